import { Effect, Record, Schema } from "effect"
import { rule } from "./Documentation.js"
import { HotelId, PromotionCode, RateCode, RoomTypeId, TimeOfDay } from "./Ids.js"
import { Language, LocalizedText, localized } from "./Language.js"
import { LocalDate } from "./LocalDate.js"
import { Amount, Cents, Currency } from "./Money.js"

const Percent = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 100 }))
const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const Month = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 12 }))
const IsoWeekday = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 7 }))

export const Season = Schema.Struct({
  id: Schema.String.check(Schema.isMinLength(1)),
  name: Schema.String,
  months: Schema.Array(Month).check(Schema.isMinLength(1))
})

export const RoomTypeDefinition = Schema.Struct({
  id: RoomTypeId,
  name: LocalizedText,
  description: LocalizedText,
  size_m2: Schema.Finite.check(Schema.isGreaterThan(0)),
  beds: LocalizedText,
  view: Schema.String,
  amenities: Schema.Array(Schema.String),
  inventory: NonNegativeInt,
  max_standard_occupancy: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10 })),
  max_additional_infants_under_2: NonNegativeInt,
  /** Nightly base rate per season id. */
  base_rates_cents: Schema.Record(Schema.String, Cents.check(Schema.isGreaterThanOrEqualTo(0)))
})
export type RoomTypeDefinition = typeof RoomTypeDefinition.Type

export const BreakfastPrice = Schema.Struct({ min_age: NonNegativeInt, amount_cents: Cents.check(Schema.isGreaterThanOrEqualTo(0)) })

export const RatePlanDefinition = Schema.Struct({
  code: RateCode,
  name: LocalizedText,
  description: LocalizedText,
  active: Schema.Boolean,
  refundable: Schema.Boolean,
  breakfast_included: Schema.Boolean,
  /** Percentage below the flexible room price. */
  discount_percent: Percent,
  /** Calendar days in hotel time from today to check-in that the plan requires. */
  min_days_ahead: NonNegativeInt,
  /** Breakfast per guest per night by age: the first entry whose `min_age` the guest reaches applies. */
  breakfast_cents: Schema.Array(BreakfastPrice)
})
export type RatePlanDefinition = typeof RatePlanDefinition.Type

export const PromotionDefinition = Schema.Struct({
  code: PromotionCode,
  name: LocalizedText,
  description: LocalizedText,
  active: Schema.Boolean,
  discount_percent: Percent,
  min_days_ahead: NonNegativeInt,
  min_nights: NonNegativeInt
})
export type PromotionDefinition = typeof PromotionDefinition.Type

/**
 * A code a guest types to get a discount (docs/decisions.md#promo-codes): one more candidate promotion of an offer
 * when it fits the stay and plan. Codes are matched case-insensitively.
 */
export const PromoCodeDefinition = Schema.Struct({
  code: PromotionCode,
  name: LocalizedText,
  discount_percent: Schema.Finite.check(Schema.isBetween({ minimum: 1, maximum: 100 })),
  min_nights: Schema.Int.check(Schema.isGreaterThan(0)).pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed(1))),
  /** Hotel-time dates on which the code may be used (quoted and completed); absent: no limit. */
  booking_from: Schema.optionalKey(LocalDate),
  booking_until: Schema.optionalKey(LocalDate),
  /** Every night of the stay must fall within them; absent: no limit. */
  stay_from: Schema.optionalKey(LocalDate),
  stay_until: Schema.optionalKey(LocalDate),
  /** The plans it applies to; absent: every plan. */
  rate_codes: Schema.optionalKey(Schema.Array(RateCode).check(Schema.isMinLength(1))),
  /** Completed, not cancelled reservations that may use it; absent: unlimited. */
  max_uses: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThan(0))),
  active: Schema.Boolean
})
export type PromoCodeDefinition = typeof PromoCodeDefinition.Type

export const TouristTaxPeriod = Schema.Struct({
  from: LocalDate,
  until: LocalDate,
  amount_cents: Cents.check(Schema.isGreaterThanOrEqualTo(0))
})

/** The policies every reservation view, email and PDF shows; a hotel may state more. */
const REQUIRED_POLICIES = ["cancellation", "payment"] as const

// a record, not a struct with these keys, so that GET /v1/hotel keeps the file's order
const Policies = Schema.Record(Schema.String, LocalizedText).pipe(
  Schema.check(rule((policies: { readonly [key: string]: LocalizedText }) =>
    REQUIRED_POLICIES.filter((key) => policies[key] === undefined).map((key) => ({ path: [key], issue: `policy ${key} is required` }))
  )),
  Schema.annotate({ description: `Policy texts by topic; ${REQUIRED_POLICIES.join(" and ")} are required` })
)

/**
 * The hotel definition file: everything that makes one hotel, imported into the database.
 * Texts that guests read (descriptions, policies, room, rate plan and promotion names) are
 * `LocalizedText`: English is required, French and Russian fall back to it.
 */
export const HotelDefinition = Schema.Struct({
  id: HotelId,
  name: Schema.String.check(Schema.isMinLength(1)),
  /** Reservation numbers start with it, e.g. BR-7K3Q9X. */
  reservation_prefix: Schema.String.check(Schema.isPattern(/^[A-Z]{2,4}$/u)),
  description: LocalizedText,
  address: Schema.Struct({
    street: Schema.String,
    postal_code: Schema.String,
    city: Schema.String,
    country: Schema.String.check(Schema.isPattern(/^[A-Z]{2}$/u))
  }),
  timezone: Schema.String.check(
    rule((tz: string) => {
      try {
        new Intl.DateTimeFormat("en", { timeZone: tz })
        return true
      } catch {
        return false
      }
    }, "must be an IANA time zone")
  ),
  currency: Currency,
  check_in: TimeOfDay,
  check_out: TimeOfDay,
  contact: Schema.Struct({ phone: Schema.String, email: Schema.String, website: Schema.String }),
  policies: Policies,
  booking: Schema.Struct({
    max_nights: Schema.Int.check(Schema.isGreaterThan(0)),
    max_days_ahead: Schema.Int.check(Schema.isGreaterThan(0)),
    /** Rooms one reservation may hold (the sum of the quantities); more is a group booking, made with the hotel. */
    max_rooms_per_reservation: Schema.Int.check(Schema.isGreaterThan(0))
  }),
  cancellation: Schema.Struct({ free_until_days_before: NonNegativeInt, free_until_time: TimeOfDay }),
  seasons: Schema.Array(Season).check(Schema.isMinLength(1)),
  weekend_supplement: Schema.Struct({ iso_weekdays: Schema.Array(IsoWeekday), amount_cents: Cents.check(Schema.isGreaterThanOrEqualTo(0)) }),
  demand_pricing: Schema.Struct({ occupancy_threshold_percent: Percent, surcharge_percent: Percent }),
  baby_cot: Schema.Struct({ available: Schema.Boolean, on_request: Schema.Boolean, price_cents: Cents.check(Schema.isGreaterThanOrEqualTo(0)) }),
  room_types: Schema.Array(RoomTypeDefinition).check(Schema.isMinLength(1)),
  rate_plans: Schema.Array(RatePlanDefinition).check(Schema.isMinLength(1)),
  promotions: Schema.Array(PromotionDefinition),
  // optional: definitions imported before promo codes existed still load
  promo_codes: Schema.Array(PromoCodeDefinition).pipe(Schema.withDecodingDefaultTypeKey(Effect.sync(() => []))),
  tourist_tax: Schema.Struct({ description: LocalizedText, min_age: NonNegativeInt, periods: Schema.Array(TouristTaxPeriod) }),
  /** The terms a guest accepts at completion, by language; a new text needs a new version. */
  terms: Schema.Struct({
    version: Schema.String.check(Schema.isMinLength(1)),
    text: Schema.Struct({ en: Schema.String, fr: Schema.String, ru: Schema.String })
  })
}).pipe(
  Schema.check(rule((hotel) => {
    const issues: Array<Schema.FilterIssue> = []
    const months = hotel.seasons.flatMap((s) => s.months)
    if (months.length !== 12 || new Set(months).size !== 12) {
      issues.push({ path: ["seasons"], issue: "seasons must cover every month exactly once" })
    }
    hotel.room_types.forEach((room, i) => {
      for (const season of hotel.seasons) {
        if (room.base_rates_cents[season.id] === undefined) {
          issues.push({ path: ["room_types", i, "base_rates_cents", season.id], issue: `missing base rate for season ${season.id}` })
        }
      }
    })
    const unique = (path: string, ids: ReadonlyArray<string>) => {
      if (new Set(ids).size !== ids.length) issues.push({ path: [path], issue: `${path} ids must be unique` })
    }
    unique("room_types", hotel.room_types.map((r) => r.id))
    unique("rate_plans", hotel.rate_plans.map((r) => r.code))
    unique("promotions", hotel.promotions.map((p) => p.code))
    // a package code names its promotion, so a promo code may not spell an automatic promotion's code either
    const promotionCodes = hotel.promotions.map((p) => p.code.toUpperCase())
    const promoCodes = hotel.promo_codes.map((p) => p.code.toUpperCase())
    if (new Set(promoCodes).size !== promoCodes.length || promoCodes.some((code) => promotionCodes.includes(code))) {
      issues.push({ path: ["promo_codes"], issue: "promo codes must be unique (case-insensitively) and differ from promotion codes" })
    }
    const rateCodes: ReadonlyArray<string> = hotel.rate_plans.map((p) => p.code)
    hotel.promo_codes.forEach((promo, i) => {
      const ordered = (from: string | undefined, until: string | undefined, field: string) => {
        if (from !== undefined && until !== undefined && from > until) {
          issues.push({ path: ["promo_codes", i, field], issue: `${field} must not be before the matching _from date` })
        }
      }
      ordered(promo.booking_from, promo.booking_until, "booking_until")
      ordered(promo.stay_from, promo.stay_until, "stay_until")
      promo.rate_codes?.forEach((code, j) => {
        if (!rateCodes.includes(code)) {
          issues.push({ path: ["promo_codes", i, "rate_codes", j], issue: `unknown rate plan ${code}` })
        }
      })
    })
    return issues
  })),
  Schema.annotate({ identifier: "HotelDefinition" })
)
export type HotelDefinition = typeof HotelDefinition.Type

// --- API views ---------------------------------------------------------------

export const Hotel = Schema.Struct({
  id: HotelId,
  name: Schema.String,
  description: Schema.String,
  city: Schema.String,
  country: Schema.String.annotate({ description: "ISO 3166-1 alpha-2 country code" }),
  address: HotelDefinition.fields.address,
  timezone: Schema.String.annotate({ description: "IANA time zone of the hotel; every date is local to it" }),
  currency: Currency,
  check_in: TimeOfDay.annotateKey({ description: "Check-in from this time, strict" }),
  check_out: TimeOfDay.annotateKey({ description: "Check-out by this time, strict" }),
  contact: HotelDefinition.fields.contact,
  policies: Schema.Record(Schema.String, Schema.String),
  tourist_tax: Schema.Struct({
    description: Schema.String,
    dynamic: Schema.Boolean,
    official_amount: Schema.String
  }).annotate({ description: "Dynamic: the official amount is only in live quote responses" })
}).annotate({ identifier: "Hotel" })
export type Hotel = typeof Hotel.Type

export const BabyCot = Schema.Struct({
  available: Schema.Boolean,
  on_request: Schema.Boolean,
  price: Amount,
  currency: Currency
}).annotate({ identifier: "BabyCot" })

export const RoomType = Schema.Struct({
  id: RoomTypeId,
  name: Schema.String,
  description: Schema.String,
  size_m2: Schema.Finite,
  beds: Schema.String,
  view: Schema.String,
  amenities: Schema.Array(Schema.String),
  max_standard_occupancy: Schema.Int,
  additional_infant_under_2_allowed: Schema.Boolean,
  max_additional_infants_under_2: Schema.Int,
  baby_cot: BabyCot
}).annotate({ identifier: "RoomType" })
export type RoomType = typeof RoomType.Type

export const RoomTypes = Schema.Struct({ rooms: Schema.Array(RoomType) }).annotate({ identifier: "RoomTypes" })

/** GET /v1/room-types: English unless a guest page asks for the guest's language. */
export const RoomTypesQuery = Schema.Struct({
  language: Schema.optionalKey(Language).annotateKey({
    description: "The language of name, description and beds (en, fr, ru; default en): a guest page shows them in the guest's"
  })
})

// The public API has no language of its own: it shows the hotel's English texts (always present).

export const hotelView = (hotel: HotelDefinition): Hotel => ({
  id: hotel.id,
  name: hotel.name,
  description: hotel.description.en,
  city: hotel.address.city,
  country: hotel.address.country,
  address: hotel.address,
  timezone: hotel.timezone,
  currency: hotel.currency,
  check_in: hotel.check_in,
  check_out: hotel.check_out,
  contact: hotel.contact,
  policies: Record.map(hotel.policies, (text) => text.en),
  tourist_tax: {
    description: hotel.tourist_tax.description.en,
    dynamic: true,
    official_amount: "Only in live quote responses (POST /v1/quotes, package_offers[].price.tourist_tax)"
  }
})

export const roomTypeView = (hotel: HotelDefinition, room: RoomTypeDefinition, language: Language = "en"): RoomType => ({
  id: room.id,
  name: localized(room.name, language),
  description: localized(room.description, language),
  size_m2: room.size_m2,
  beds: localized(room.beds, language),
  view: room.view,
  amenities: room.amenities,
  max_standard_occupancy: room.max_standard_occupancy,
  additional_infant_under_2_allowed: room.max_additional_infants_under_2 > 0,
  max_additional_infants_under_2: room.max_additional_infants_under_2,
  baby_cot: {
    available: hotel.baby_cot.available,
    on_request: hotel.baby_cot.on_request,
    price: hotel.baby_cot.price_cents,
    currency: hotel.currency
  }
})
