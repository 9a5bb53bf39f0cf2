import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { MultiRoomQuoteRequest, MultiRoomQuoteResponse, SingleRoomQuoteRequest } from "../../Domain/Quote.js"
import { RULES } from "../Handlers/AgentRules.js"
import { InvalidPromoCodeBody, ValidationErrorBody } from "./Errors.js"
import { AnalyticsHeaders } from "./RequestHeaders.js"

/**
 * A quote is the service's own typed value, its dates, ids and amounts made by the domain (whose
 * property tests hold them to their schemas): its encoding skips the checks (formats, ranges) and
 * still converts each field (the handler's, ../Handlers/Quotes.ts). The typed client made from
 * this contract decodes it so too.
 */
export const QUOTE_ENCODING = { disableChecks: true } as const

const PROMO_CODE_DESCRIPTION = "An optional promo_code (case-insensitive) is one more candidate promotion of each offer: " +
  "the best single promotion applies, and promo_code.applied says whether an offer applies the code (false when it does " +
  "not fit the stay or plan). Unknown, inactive or used-up codes answer 400 invalid_promo_code with error.details.reason " +
  "(unknown, not_active, used_up)."

/** Endpoints 7 and 8: official live quotes, the only source of a total. */
export class QuotesGroup extends HttpApiGroup.make("quotes")
  .add(
    HttpApiEndpoint.post("quoteSingleRoom", "/v1/quote", {
      payload: SingleRoomQuoteRequest,
      headers: AnalyticsHeaders,
      success: MultiRoomQuoteResponse,
      error: [ValidationErrorBody, InvalidPromoCodeBody]
    })
      .annotate(OpenApi.Summary, "Official live quote for one room, optionally with a promo_code")
      .annotate(
        OpenApi.Description,
        "The one-room form of POST /v1/quotes, answered in the same shape. Without rate_code, every eligible active rate plan is offered. " +
          "reservable says whether POST /v1/reservation-intents accepts the quote. " + PROMO_CODE_DESCRIPTION
      ),
    HttpApiEndpoint.post("quoteRooms", "/v1/quotes", {
      payload: MultiRoomQuoteRequest,
      headers: AnalyticsHeaders,
      success: MultiRoomQuoteResponse,
      error: [ValidationErrorBody, InvalidPromoCodeBody]
    })
      .annotate(OpenApi.Summary, "Official live quote for one or many rooms (recommended, also for one room), optionally with a promo_code")
      .annotate(
        OpenApi.Description,
        "Validates aggregate inventory, occupancy, rate eligibility, promotions and tourist tax, and answers package_offers " +
          "priced for all requested rooms together: their price.total is the official total; never add room totals yourself. " +
          "status unavailable (a 200) lists in unavailable_rooms which room request cannot be served and why. " +
          `${RULES.unavailable} ${RULES.hotelSystems} ` +
          "A quote can be reserved until expires_at, when reservable is true. More rooms than one reservation may hold " +
          "(the hotel's booking.max_rooms_per_reservation, counting each request's quantity) are still priced, but the quote " +
          "says reservable false and not_reservable gives reason group_booking, max_rooms, requested_rooms and the hotel's " +
          "contact: a group is booked with the hotel, and an intent for it answers 409 quote_not_reservable. " +
          PROMO_CODE_DESCRIPTION
      )
  )
  .annotate(OpenApi.Title, "Quotes")
  .annotate(OpenApi.Description, "Live direct price quotes")
  .annotate(HttpApi.SuccessParseOptions, QUOTE_ENCODING)
{}
