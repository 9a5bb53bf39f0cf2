import { Clock, Context, Effect, Layer, Metric, Option } from "effect"
import { groupBooking, requestedRooms } from "../Domain/BookingLimits.js"
import { NotFound, QuoteExpired } from "../Domain/Errors.js"
import type { QuoteId } from "../Domain/Ids.js"
import { hasLapsed, quoteExpiresAt } from "../Domain/Lifetimes.js"
import { formatInstant, type LocalDate } from "../Domain/LocalDate.js"
import { nightLookup, readUntil } from "../Domain/Channel/Nights.js"
import { priceStay, type RoomLine, singleRoomLine, validateRooms } from "../Domain/Pricing.js"
import type {
  ClientInfo,
  MultiRoomQuoteRequest,
  MultiRoomQuoteResponse,
  PackageOffer,
  SingleRoomQuoteRequest
} from "../Domain/Quote.js"
import { validateStay } from "../Domain/Stay.js"
import type { HotelDefinition } from "../Domain/Hotel.js"
import { type Language, localized } from "../Domain/Language.js"
import { InventoryRepo } from "../Layers/Persistence/InventoryRepo.js"
import { QuoteRepo, type StoredQuote } from "../Layers/Persistence/QuoteRepo.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"
import { randomId } from "../Layers/Platform/RandomId.js"
import { HotelCatalog } from "./HotelCatalog.js"
import { PromoCodes } from "./PromoCodes.js"
import * as Metrics from "../Layers/Platform/Metrics.js"
import * as Tracing from "../Layers/Platform/Tracing.js"
import { ChannelSilence } from "./ChannelSilence.js"

/** An offer with its plan's name and description in `language` (the reservation views say them in the guest's too). */
const inLanguage = (hotel: HotelDefinition, offer: PackageOffer, language: Language): PackageOffer => {
  const plan = hotel.rate_plans.find((p) => p.code === offer.rate_code)
  return plan === undefined || language === "en"
    ? offer
    : { ...offer, name: localized(plan.name, language), description: localized(plan.description, language) }
}

const newQuoteId = Effect.sync(() => randomId("q_") as QuoteId)

interface QuoteRequest {
  readonly checkin: LocalDate
  readonly checkout: LocalDate
  readonly sessionId: string | null
  readonly rooms: ReadonlyArray<RoomLine>
  /** The language of the offers' names and descriptions. */
  readonly language: Language
  readonly promoCode: string | undefined
}

/** Live quotes: priced from the database on every call, stored until they expire. */
export class Quotes extends Context.Service<Quotes>()("Quotes", {
  make: Effect.gen(function*() {
    const config = yield* AppConfig
    const catalog = yield* HotelCatalog
    const inventory = yield* InventoryRepo
    const repo = yield* QuoteRepo
    const promoCodes = yield* PromoCodes
    const silence = yield* ChannelSilence

    /** Prices a request against live bookings. */
    const price = Tracing.fn("Quotes.price")(function*(request: QuoteRequest) {
      const hotel = yield* catalog.definition()
      const stay = yield* Effect.fromResult(validateStay(hotel, yield* catalog.today(hotel), request.checkin, request.checkout))
      yield* Effect.fromResult(validateRooms(hotel, request.rooms))
      // most quotes carry no code: they skip the call and its span
      const promoCode = request.promoCode === undefined ? null : yield* promoCodes.resolve(request.promoCode)
      const nights = yield* silence.sellable(nightLookup(yield* inventory.nights(stay.checkin, readUntil(stay.checkout))))
      const outcome = priceStay({ hotel, stay, rooms: request.rooms, nights, promoCode })
      return { hotel, stay, outcome, promoCode }
    })

    const issue = Tracing.fn("Quotes.issue")(function*(request: QuoteRequest, client: ClientInfo) {
      yield* Tracing.annotate({
        "hotel.client": client.client ?? "",
        "hotel.ai_agent": client.ai_agent ?? "",
        "hotel.session": client.session ?? "",
        "quote.rooms": requestedRooms(request.rooms)
      })
      const { hotel, outcome, promoCode, stay } = yield* price(request)
      const now = yield* Clock.currentTimeMillis
      // a group is priced all the same: only reserving it online is refused
      const group = groupBooking(hotel, request.rooms)
      const response: MultiRoomQuoteResponse = {
        status: outcome._tag === "Available" ? "available" : "unavailable",
        environment: config.environment,
        quote_id: yield* newQuoteId,
        session_id: request.sessionId,
        expires_at: formatInstant(new Date(quoteExpiresAt(now, config.quoteTtlSeconds)), hotel.timezone),
        stay: {
          checkin: stay.checkin,
          checkout: stay.checkout,
          nights: stay.nights,
          check_in_time: hotel.check_in,
          check_out_time: hotel.check_out
        },
        rooms: request.rooms.map((room, room_index) => ({ room_index, ...room })),
        package_offers: outcome._tag === "Available" ? outcome.offers.map((offer) => inLanguage(hotel, offer, request.language)) : [],
        unavailable_rooms: outcome._tag === "Unavailable" ? outcome.rooms : [],
        reservable: outcome._tag === "Available" && Option.isNone(group),
        not_reservable: Option.getOrNull(group),
        promo_code: promoCode === null ? null : {
          code: promoCode.code,
          applied: outcome._tag === "Available" && outcome.offers.some((offer) => offer.promotions.includes(promoCode.code))
        }
      }
      yield* repo.insert({ response, client })
      yield* Metric.update(Metrics.quotes({ outcome: response.status }), 1)
      yield* Tracing.annotate({ "quote.id": response.quote_id, "quote.status": response.status })
      return response
    })

    return {
      /** POST /v1/quotes: one or many rooms, priced together. */
      quoteRooms: Tracing.fn("Quotes.quoteRooms")(function*(request: MultiRoomQuoteRequest, client: ClientInfo) {
        return yield* issue({
          checkin: request.checkin,
          checkout: request.checkout,
          sessionId: request.session_id ?? null,
          rooms: request.rooms.map((room) => ({
            room_type_id: room.room_type_id,
            quantity: room.quantity,
            adults: room.adults,
            children_ages: room.children_ages,
            rate_code: room.rate_code ?? null
          })),
          promoCode: request.promo_code,
          language: request.language ?? "en"
        }, client)
      }),
      /** POST /v1/quote: the one-room form, answered in the same shape. */
      quoteSingleRoom: Tracing.fn("Quotes.quoteSingleRoom")(function*(request: SingleRoomQuoteRequest, client: ClientInfo) {
        const line = yield* Effect.fromResult(singleRoomLine(request))
        return yield* issue({ checkin: request.checkin, checkout: request.checkout, sessionId: null, rooms: [line], promoCode: request.promo_code, language: "en" }, client)
      }),
      /** A stored quote that has not expired yet. */
      findValid: Tracing.fn("Quotes.findValid")(function*(id: QuoteId) {
        const stored: StoredQuote = yield* repo.find(id).pipe(
          Effect.flatMap(Option.match({
            onNone: () => Effect.fail(new NotFound({ message: `no quote ${id}: quote again with POST /v1/quotes` })),
            onSome: Effect.succeed
          }))
        )
        if (hasLapsed(stored.response.expires_at, yield* Clock.currentTimeMillis)) {
          return yield* new QuoteExpired({
            message: `quote ${id} expired at ${stored.response.expires_at}: quote again with POST /v1/quotes`,
            quote_id: id,
            expired_at: stored.response.expires_at
          })
        }
        return stored
      })
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([HotelCatalog.layer, PromoCodes.layer, ChannelSilence.layer]))
}
