import { Schema } from "effect"
import { rule } from "./Documentation.js"

// each identifier its own brand: `Schema.brand` takes one literal name, as each call below gives it
const brandedString = (pattern: RegExp, maxLength: number) =>
<B extends string>(brand: Parameters<typeof Schema.brand<B>>[0], description: string, example: string) =>
  Schema.String.pipe(
    // the length first: a long text is refused before the pattern reads it
    Schema.check(Schema.isMaxLength(maxLength).abort(), Schema.isPattern(pattern)),
    Schema.brand<B>(brand),
    Schema.annotate({ identifier: brand, description, examples: [example as never] })
  )

/** Codes of the hotel file: room types, rate plans, promotions. */
const code = brandedString(/^[A-Za-z0-9_-]{1,40}$/u, 40)
/** Identifiers the service issues. */
const token = brandedString(/^[A-Za-z0-9_.-]{1,64}$/u, 64)

export const HotelId = code("HotelId", "Hotel identifier", "seaside-hotel")
export type HotelId = typeof HotelId.Type

export const RoomTypeId = code("RoomTypeId", "Room type identifier: the id of one of the hotel's room types (GET /v1/room-types)", "double")
export type RoomTypeId = typeof RoomTypeId.Type

export const RateCode = code("RateCode", "Rate plan code: the code of one of the hotel's rate plans (a quote's offers name them)", "FLEX")
export type RateCode = typeof RateCode.Type

export const PromotionCode = code("PromotionCode", "Promotion code", "EARLY_BOOKING")
export type PromotionCode = typeof PromotionCode.Type

/** Time of day, `HH:MM`. */
export const TimeOfDay = Schema.String.pipe(
  Schema.check(
    Schema.isMaxLength(5, { message: "must be a time of day HH:MM" }).abort(),
    Schema.isPattern(/^([01]\d|2[0-3]):[0-5]\d$/u, { message: "must be a time of day HH:MM" })
  ),
  Schema.annotate({ identifier: "TimeOfDay", description: "Time of day, HH:MM", examples: ["14:00"] })
)

export const QuoteId = token("QuoteId", "Identifier of a stored live quote", "q_01JD6ZK3V6W9F4T8Y2N5R7B3XQ")
export type QuoteId = typeof QuoteId.Type

export const PackageCode = token("PackageCode", "Code of one package offer within a quote", "FLEX_BB.EARLY_BOOKING")
export type PackageCode = typeof PackageCode.Type

export const ReservationId = token("ReservationId", "Identifier of a reservation", "r_01JD6ZM0C4B8X2V9Q7H3K5N1TA")
export type ReservationId = typeof ReservationId.Type

/** The largest cursor: positions are PostgreSQL bigints. */
const MAX_CURSOR = 9_223_372_036_854_775_807n

/** An opaque position in the feed: strictly increasing in commit order. */
export const FeedCursor = Schema.String.check(
  Schema.isPattern(/^[0-9]{1,19}$/u).abort(),
  Schema.isMaxLength(19).abort(),
  rule((cursor: string) => BigInt(cursor) <= MAX_CURSOR, "not a cursor of this feed")
).annotate({
  identifier: "FeedCursor",
  description: "Opaque position in the feed; keep the last one processed and ask after it"
})
export type FeedCursor = typeof FeedCursor.Type
