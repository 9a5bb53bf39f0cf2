import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { AriAnswer, AriMessage, MAX_AS_OF_AHEAD_MS, MAX_UPDATE_DATES, MAX_UPDATES, MAX_VIEW_DATES } from "../../Domain/Channel/Message.js"
import { InventoryQuery, InventoryView } from "../../Domain/Channel/View.js"
import type { HotelDefinition } from "../../Domain/Hotel.js"
import { FeedPage, FeedQuery, MAX_FEED_LIMIT } from "../../Domain/ReservationFeed.js"
import { API_VERSION } from "../../Domain/Version.js"
import type { AboutTheHotel } from "../Handlers/AboutTheHotel.js"
import { asDocumented } from "./Document.js"
import { InvalidMessageBody, InvalidTokenBody, MessageIdReusedBody, NotFoundBody, RateLimitedBody, ServiceUnavailableBody, ValidationErrorBody } from "./Errors.js"
import { ForbiddenBody, InternalErrorBody, MessageTooLargeBody, MissingBearerBody } from "../Transport/TransportErrors.js"

/*
 * The channel interface (docs/decisions.md#channel-interface): what the hotel's own systems (its PMS or channel manager)
 * call. An HttpApi of its own, with its own OpenAPI document, so that nothing of it appears in the
 * public API's documents; served under `/internal` only when `CHANNEL_TOKEN` is set.
 */

/** Every path of the interface is under this prefix: nothing else of the service is. */
export const CHANNEL_PREFIX = "/internal"
export const ARI_PATH = `${CHANNEL_PREFIX}/v1/ari`
export const CHANNEL_DOCUMENT_PATH = `${CHANNEL_PREFIX}/openapi.json`

/** A message of 1,000 updates of every field is about 300 KB: room for it, on this endpoint alone. */
export const MAX_ARI_BODY_BYTES = 1024 * 1024

/** Every call carries the channel token; the caller's address may be restricted too. */
export class ChannelAuth extends HttpApiMiddleware.Service<ChannelAuth>()("ChannelAuth", {
  error: [MissingBearerBody, InvalidTokenBody, ForbiddenBody],
  security: {
    // spelt as the document has always spelt it (the scheme's name is case-insensitive)
    channelToken: HttpApiSecurity.http({ scheme: "bearer" }).pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "Authorization: Bearer CHANNEL_TOKEN, the token the hotel set in the service's environment; callers may also be " +
          "restricted to CHANNEL_ALLOWED_ADDRESSES (403 forbidden otherwise)."
      )
    )
  }
}) {}

export class ChannelGroup extends HttpApiGroup.make("channel")
  .add(
    HttpApiEndpoint.post("ari", ARI_PATH, { payload: AriMessage, success: AriAnswer, error: [InvalidMessageBody, MessageIdReusedBody, MessageTooLargeBody] })
      .annotate(OpenApi.Summary, "Rooms to sell, restrictions and rates per room type and date (ARI)")
      .annotate(
        OpenApi.Description,
        `Up to ${MAX_UPDATES} updates, each a room type (or all) and a range of at most ${MAX_UPDATE_DATES} dates, not before ` +
          "yesterday nor beyond the booking window (hotel time). A field present sets that value on every date, absent leaves it, " +
          "null clears it. For each (room type, date, field) the latest as_of wins, an equal one included; an older one is " +
          "counted as stale and changes nothing. The message is applied whole or not at all: a bad one is 400 invalid_request " +
          "with details.issues naming each bad field by its path (updates[3].min_stay), and does not use up its message_id. " +
          "The same message_id with the same body answers the first answer and changes nothing; with another body it is " +
          "422 message_id_reused. as_of orders the figures and must be a real instant, not before 2000, at most " +
          `${MAX_AS_OF_AHEAD_MS / 60_000} minutes ahead. rooms_to_sell holds back the rooms of this service's reservation ` +
          "changes the figure does not count: those after reservations_through (a cursor of GET /internal/v1/reservations) " +
          "when the message carries one; without it, those neither an earlier message's cursor covered nor acknowledged " +
          `by the hotel's PMS ${MAX_AS_OF_AHEAD_MS / 60_000} minutes before min(as_of, arrival). Bodies up to 1 MiB.`
      ),
    HttpApiEndpoint.get("inventory", `${CHANNEL_PREFIX}/v1/inventory`, {
      query: InventoryQuery,
      success: InventoryView,
      error: [InvalidMessageBody, ValidationErrorBody]
    })
      .annotate(OpenApi.Summary, "What the service believes it may sell, per room type and night")
      .annotate(
        OpenApi.Description,
        `From from to to (at most ${MAX_VIEW_DATES} dates): the hotel file's rooms, the rooms this service booked, the hotel's ` +
          "rooms_to_sell and its as_of, the rooms booked here since, free = min(rooms - booked_here, rooms_to_sell - " +
          "booked_here_since) never below 0, oversold when rooms_to_sell is below booked_here_since, the restrictions and the " +
          "base rate with where it came from. What the hotel's system compares against its own figures."
      ),
    HttpApiEndpoint.get("reservations", `${CHANNEL_PREFIX}/v1/reservations`, {
      query: FeedQuery,
      success: FeedPage,
      error: InvalidMessageBody
    })
      .annotate(OpenApi.Summary, "Every change to a reservation, in commit order, for a PMS that pulls")
      .annotate(
        OpenApi.Description,
        `Up to limit (1 to ${MAX_FEED_LIMIT}) changes after the cursor after (none: from the first): completed, ` +
          "guest_updated, stay_changed, cancelled, each with the reservation as the PMS push carries it. Keep next_cursor and " +
          "ask after it: no change is missed or reordered. An empty page gives back the cursor it was asked with."
      ),
    // behind the same token as the rest; not in the document it serves
    HttpApiEndpoint.get("document", CHANNEL_DOCUMENT_PATH, { success: Schema.Unknown })
      .annotate(OpenApi.Exclude, true)
  )
  .middleware(ChannelAuth)
  .annotate(OpenApi.Title, "Channel")
  .annotate(OpenApi.Description, "For the hotel's own systems: rooms to sell, restrictions and rates in; inventory and reservations out")
{}

/**
 * The errors every operation of the channel interface may answer: a request that breaks its schema
 * (each bad field by its path), an unknown path, the rate limit, a database that does not answer,
 * our own fault; as `RequestErrors` declares them for the public API.
 */
export class ChannelRequestErrors extends HttpApiMiddleware.Service<ChannelRequestErrors>()("ChannelRequestErrors", {
  error: [InvalidMessageBody, NotFoundBody, RateLimitedBody, ServiceUnavailableBody, InternalErrorBody]
}) {}

export class ChannelApi extends HttpApi.make("hotel-channel-api")
  .add(ChannelGroup)
  .middleware(ChannelRequestErrors)
  // a message is exactly its schema: an unknown key is refused, not dropped; a refusal quotes the value refused
  .annotate(HttpApi.PayloadParseOptions, { onExcessProperty: "error", reportInput: true })
  .annotate(HttpApi.QueryParseOptions, { reportInput: true })
  .annotateMerge(OpenApi.annotations({
    version: API_VERSION,
    description: "For the hotel's PMS or channel manager: availability, restrictions and rates (ARI) in, " +
      "the inventory view and the reservation feed out. Served only when CHANNEL_TOKEN is set; every call carries it.",
    transform: asDocumented([ChannelGroup])
  }))
{}

/** What the channel document says of the hotel: its title. */
export const aboutTheHotel = (hotel: HotelDefinition): AboutTheHotel => ({ title: `${hotel.name} channel interface` })
