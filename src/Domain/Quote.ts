import { Schema } from "effect"
import { GroupBooking } from "./BookingLimits.js"
import { wireExamples, withDefault } from "./Documentation.js"
import { PackageCode, PromotionCode, QuoteId, RateCode, RoomTypeId, TimeOfDay } from "./Ids.js"
import { Language } from "./Language.js"
import { LocalDate } from "./LocalDate.js"
import { Amount, type Cents, Currency, describedAmount } from "./Money.js"
import { MAX_ADULTS_PER_ROOM, MAX_CHILD_AGE, MAX_CHILDREN_PER_ROOM } from "./Occupancy.js"
import { Text } from "./Text.js"

/** Identical rooms one room request may book. */
export const MAX_ROOMS_PER_REQUEST = 10
/** Room requests one quote (and one reservation) may hold: more is a group booking. */
export const MAX_ROOM_REQUESTS = 20

export const ChildAge = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: MAX_CHILD_AGE })).annotate({
  description: `Age on the check-in date, 0 to ${MAX_CHILD_AGE}`
})
export const ChildrenAges = Schema.Array(ChildAge).check(Schema.isMaxLength(MAX_CHILDREN_PER_ROOM))
const Adults = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_ADULTS_PER_ROOM })).annotate({
  description: `Adults (18+) in the room, 1 to ${MAX_ADULTS_PER_ROOM}`
})

/** The longest code a request may carry: as long as a code of the hotel file may be. */
export const MAX_PROMO_CODE_LENGTH = 40

/** A promo code as a guest or agent types it; any case, surrounding spaces ignored. */
export const PromoCodeInput = Text.check(Schema.isMaxLength(MAX_PROMO_CODE_LENGTH)).annotate({
  identifier: "PromoCodeInput",
  description: `Promo code (case-insensitive, at most ${MAX_PROMO_CODE_LENGTH} characters). Unknown, inactive or used up: ` +
    "400 invalid_promo_code with error.details.reason; valid but not for this stay: promo_code.applied false",
  examples: ["DIRECT12"]
})

// Request bodies are decoded with `onExcessProperty: "error"`, as the OpenAPI says (additionalProperties:
// false): a misspelt optional field is refused, not ignored.
export const SingleRoomQuoteRequest = Schema.Struct({
  checkin: LocalDate,
  checkout: LocalDate,
  adults: Adults,
  children: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: MAX_CHILDREN_PER_ROOM })).annotate({
    description: `Children under 18 in the room, 0 to ${MAX_CHILDREN_PER_ROOM}`
  }),
  children_ages: Schema.optionalKey(ChildrenAges).annotateKey({ description: "Required when children > 0: one age per child" }),
  room_type_id: RoomTypeId,
  rate_code: Schema.optionalKey(RateCode).annotateKey({ description: "Omit to receive all eligible active rate plans" }),
  promo_code: Schema.optionalKey(PromoCodeInput)
}).annotate({
  identifier: "SingleRoomQuoteRequest",
  examples: [{
    checkin: "2027-03-12" as LocalDate,
    checkout: "2027-03-15" as LocalDate,
    adults: 2,
    children: 1,
    children_ages: [1],
    room_type_id: "double" as RoomTypeId
  }]
})
export type SingleRoomQuoteRequest = typeof SingleRoomQuoteRequest.Type

export const RoomRequest = Schema.Struct({
  room_type_id: RoomTypeId,
  quantity: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_ROOMS_PER_REQUEST })).pipe(withDefault(`Rooms of this kind, 1 to ${MAX_ROOMS_PER_REQUEST} (default 1)`, () => 1)),
  adults: Adults,
  children_ages: ChildrenAges.pipe(withDefault("Children assigned to each of these rooms; standard occupancy is 2, plus one infant under 2", () => [])),
  rate_code: Schema.optionalKey(RateCode)
}).annotate({ identifier: "RoomRequest" })
export type RoomRequest = typeof RoomRequest.Type

export const MultiRoomQuoteRequest = Schema.Struct({
  session_id: Schema.optionalKey(Text.check(Schema.isMaxLength(80))).annotate({
    description: "Correlation ID supplied by the caller, echoed in the response"
  }),
  checkin: LocalDate,
  checkout: LocalDate,
  rooms: Schema.Array(RoomRequest).check(Schema.isMinLength(1), Schema.isMaxLength(MAX_ROOM_REQUESTS)),
  promo_code: Schema.optionalKey(PromoCodeInput),
  language: Schema.optionalKey(Language).annotateKey({
    description: "The language of the offers' name and description (en, fr, ru; default en): a guest page shows them in the guest's"
  })
}).annotate({
  identifier: "MultiRoomQuoteRequest",
  examples: [{
    session_id: "chat-4711",
    checkin: "2027-03-12" as LocalDate,
    checkout: "2027-03-15" as LocalDate,
    rooms: [
      { room_type_id: "double" as RoomTypeId, quantity: 1, adults: 2, children_ages: [1] },
      { room_type_id: "twin" as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }
    ],
    promo_code: "DIRECT12"
  }]
})
export type MultiRoomQuoteRequest = typeof MultiRoomQuoteRequest.Type

export const OfferPrice = Schema.Struct({
  room_total: describedAmount("Rooms and board for every room and night"),
  promotion_discount: Amount,
  tourist_tax: Amount,
  total: describedAmount("room_total - promotion_discount + tourist_tax: the official total"),
  currency: Currency
}).annotate({ identifier: "OfferPrice" })

export const PackageOffer = Schema.Struct({
  package_code: PackageCode,
  rate_code: RateCode,
  name: Schema.String,
  description: Schema.String,
  breakfast_included: Schema.Boolean,
  refundable: Schema.Boolean,
  free_cancellation_until: Schema.NullOr(Schema.String).annotate({
    description: "Date-time with the hotel's offset until which cancellation is free; null when non-refundable"
  }),
  promotions: Schema.Array(PromotionCode),
  price: OfferPrice
}).annotate({ identifier: "PackageOffer" })
export type PackageOffer = typeof PackageOffer.Type

const REASONS = [
  "channel_stale",
  "stop_sell",
  "closed_to_arrival",
  "closed_to_departure",
  "min_stay",
  "max_stay",
  "sold_out",
  "rate_not_eligible",
  "no_common_rate_plan"
] as const
type Reason = typeof REASONS[number]

/**
 * Why a room request cannot be had, in order of precedence (docs/decisions.md#restrictions), each with what it means
 * and what a client or agent does about it: the one text the schemas, the agent rules, the MCP
 * tools and the OpenAPI descriptions give. The first is the service's own while the hotel's system is
 * silent; the next five are the hotel's restrictions, set in its own systems per room type and date.
 */
export const UNAVAILABILITY_REASONS: { readonly [R in Reason]: string } = {
  channel_stale: "the hotel's own system has sent no figures for a while and the hotel sells nothing online meanwhile: " +
    "ask again later, or contact the hotel",
  stop_sell: "the hotel has closed this room type on a night of the stay: offer other dates or another room type",
  closed_to_arrival: "the hotel takes no arrival on the check-in date in this room type: offer another arrival date or room type",
  closed_to_departure: "the hotel takes no departure on the check-out date in this room type: offer another departure date or room type",
  min_stay: "a stay arriving on the check-in date must last at least the number of nights given as min_stay: offer a " +
    "stay of that many nights or more, or another arrival date",
  max_stay: "a stay arriving on the check-in date may last at most the number of nights given as max_stay: offer a stay " +
    "of at most that many nights, or another arrival date",
  sold_out: "too few rooms of this type are free on a night of the stay: offer other dates or another room type",
  rate_not_eligible: "the rate plan asked cannot be booked for these dates, e.g. too close to check-in: quote without " +
    "rate_code, or with another plan",
  no_common_rate_plan: "the rooms ask for different rate plans and one plan must cover every room: quote them on one plan"
}

/** Some of the reasons, each with its meaning and what to do, for a description. */
export const describeReasons = (reasons: ReadonlyArray<Reason>): string =>
  reasons.map((reason) => `${reason} (${UNAVAILABILITY_REASONS[reason]})`).join("; ")

export const UnavailabilityReason = Schema.Literals(REASONS).annotate({
  description: `Why this room request cannot be had, the first that applies: ${describeReasons(REASONS)}`
})
export type UnavailabilityReason = typeof UnavailabilityReason.Type

export const RoomUnavailability = Schema.Struct({
  room_index: Schema.Int.annotate({ description: "Index of the room request in `rooms`" }),
  room_type_id: RoomTypeId,
  reason: UnavailabilityReason,
  min_stay: Schema.optionalKey(Schema.Int).annotate({ description: "With reason min_stay: the fewest nights a stay arriving on check-in may have" }),
  max_stay: Schema.optionalKey(Schema.Int).annotate({ description: "With reason max_stay: the most nights a stay arriving on check-in may have" }),
  message: Schema.String
}).annotate({ identifier: "RoomUnavailability" })
export type RoomUnavailability = typeof RoomUnavailability.Type

export const QuoteStay = Schema.Struct({
  checkin: LocalDate,
  checkout: LocalDate,
  nights: Schema.Int,
  check_in_time: TimeOfDay,
  check_out_time: TimeOfDay
}).annotate({ identifier: "QuoteStay" })

export const QuotedRoom = Schema.Struct({
  room_index: Schema.Int,
  room_type_id: RoomTypeId,
  quantity: Schema.Int,
  adults: Schema.Int,
  children_ages: Schema.Array(Schema.Int),
  rate_code: Schema.NullOr(RateCode)
}).annotate({ identifier: "QuotedRoom" })
export type QuotedRoom = typeof QuotedRoom.Type

export const PromoCodeOutcome = Schema.Struct({
  code: PromotionCode.annotateKey({ description: "The hotel's code for the promo_code sent (in its own spelling)" }),
  applied: Schema.Boolean.annotate({
    description: "true when an offer applies it (named in its promotions); false when it does not fit this stay or plan, " +
      "or another promotion is worth more"
  })
}).annotate({ identifier: "PromoCodeOutcome" })
export type PromoCodeOutcome = typeof PromoCodeOutcome.Type

export const QuoteStatus = Schema.Literals(["available", "unavailable"])

export const MultiRoomQuoteResponse = Schema.Struct({
  status: QuoteStatus.annotate({ description: "available: package_offers present; unavailable: see unavailable_rooms" }),
  environment: Schema.String,
  quote_id: QuoteId,
  session_id: Schema.NullOr(Schema.String),
  expires_at: Schema.String.annotate({ description: "Date-time with the hotel's offset; the quote cannot be reserved after it", format: "date-time" }),
  stay: QuoteStay,
  rooms: Schema.Array(QuotedRoom),
  package_offers: Schema.Array(PackageOffer).annotate({ description: "Globally priced packages for all requested rooms: authoritative totals" }),
  unavailable_rooms: Schema.Array(RoomUnavailability),
  reservable: Schema.Boolean.annotate({
    description: "Whether POST /v1/reservation-intents accepts this quote: false when it is unavailable, or when not_reservable " +
      "says why (a 409 quote_not_reservable would answer the same)"
  }),
  not_reservable: Schema.NullOr(GroupBooking).annotate({
    description: "Set when the rooms are more than one reservation may hold (reason group_booking): the quote is priced, " +
      "but only the hotel books it; give the user its contact"
  }),
  promo_code: Schema.NullOr(PromoCodeOutcome).annotate({ description: "The promo_code of the request, null when none was sent" })
}).annotate({ identifier: "MultiRoomQuoteResponse" }).pipe((schema) =>
  wireExamples(schema, [{
    status: "available",
    environment: "production",
    quote_id: "q_Dp_iPJAvs0HNRDSuqZ_X" as QuoteId,
    session_id: "chat-4711",
    expires_at: "2026-11-22T11:15:00+01:00",
    stay: { checkin: "2026-12-10" as LocalDate, checkout: "2026-12-13" as LocalDate, nights: 3, check_in_time: "14:00", check_out_time: "12:00" },
    rooms: [{ room_index: 0, room_type_id: "double" as RoomTypeId, quantity: 1, adults: 2, children_ages: [], rate_code: null }],
    package_offers: [{
      package_code: "FLEX_BB" as PackageCode,
      rate_code: "FLEX_BB" as RateCode,
      name: "Flexible, breakfast included",
      description: "Room and breakfast for every guest; free cancellation until free_cancellation_until.",
      breakfast_included: true,
      refundable: true,
      free_cancellation_until: "2026-12-08T14:00:00+01:00",
      promotions: [],
      price: { room_total: 46600 as Cents, promotion_discount: 0 as Cents, tourist_tax: 1560 as Cents, total: 48160 as Cents, currency: "EUR" }
    }],
    unavailable_rooms: [],
    reservable: true,
    not_reservable: null,
    promo_code: null
  }])
)
export type MultiRoomQuoteResponse = typeof MultiRoomQuoteResponse.Type

/** Who makes a call, as the caller names itself (application, AI agent, session): for usage measurement, never a credential. */
export const ClientInfo = Schema.Struct({
  client: Schema.NullOr(Schema.String),
  ai_agent: Schema.NullOr(Schema.String),
  session: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ClientInfo" })
export type ClientInfo = typeof ClientInfo.Type
