import { Schema, SchemaTransformation } from "effect"
import { RestrictionReason } from "./Channel/Restrictions.js"
import { withDefault } from "./Documentation.js"
import { RoomTypeId } from "./Ids.js"
import { LocalDate } from "./LocalDate.js"
import { MAX_ADULTS_PER_ROOM, MAX_CHILDREN_PER_ROOM } from "./Occupancy.js"
import { describeReasons } from "./Quote.js"

/**
 * A number written in a URL. A blank text is none: Effect 4's `NumberFromString` reads it as 0,
 * as JavaScript's `Number` does, so `children=` would ask for no children and `children_ages=,,`
 * for three infants.
 */
export const NumberText: Schema.Codec<number, string> = Schema.String.check(
  Schema.makeFilter((text: string) => text.trim() !== "" || `Unable to decode ${JSON.stringify(text)} into a number`)
).pipe(Schema.decodeTo(Schema.Number, SchemaTransformation.numberFromString))

/** An integer from min to max in the URL's text. */
export const urlCount = (min: number, max: number): Schema.Codec<number, string> =>
  NumberText.check(Schema.isInt(), Schema.isBetween({ minimum: min, maximum: max }))

/** An integer from min to max in JSON. */
export const jsonCount = (min: number, max: number): Schema.Codec<number> => Schema.Int.check(Schema.isBetween({ minimum: min, maximum: max }))

/** The fields of an availability query, with its counts encoded by `count` (URL text or JSON numbers). */
const availabilityFields = <I>(count: (min: number, max: number) => Schema.Codec<number, I>) => ({
  checkin: LocalDate,
  checkout: LocalDate,
  adults: count(1, MAX_ADULTS_PER_ROOM).pipe(withDefault(`Adults per room, 1 to ${MAX_ADULTS_PER_ROOM} (default 2)`, () => 2)),
  children: count(0, MAX_CHILDREN_PER_ROOM).pipe(
    withDefault(`Children per room, 0 to ${MAX_CHILDREN_PER_ROOM} (default 0); without ages they count as standard guests`, () => 0)
  )
})

/** GET /v1/availability's query string. */
export const AvailabilityQuery = Schema.Struct(availabilityFields(urlCount))
/**
 * The same query as JSON (the MCP tool `check_availability`): the same fields, counts as integers.
 * An unknown field is refused, as its `inputSchema` says (a query string may carry others): the
 * tool decodes it with `onExcessProperty: "error"`.
 */
export const AvailabilityParams = Schema.Struct(availabilityFields(jsonCount))
export type AvailabilityQuery = typeof AvailabilityQuery.Type

export const RoomTypeAvailability = Schema.Struct({
  room_type_id: RoomTypeId,
  name: Schema.String,
  available_rooms: Schema.Int.annotate({ description: "Rooms free on every night of the stay" }),
  fits_occupancy: Schema.Boolean.annotate({ description: "Whether the adults and children fit one room of this type" }),
  bookable: Schema.Boolean.annotate({
    description: "At least one room is free, the hotel allows this stay (reason null) and the occupancy fits"
  }),
  reason: Schema.NullOr(Schema.Literals([...RestrictionReason.literals, "sold_out"])).annotate({
    description: "Why this stay cannot be booked in this room type, null when it can; else the first that applies: " +
      describeReasons([...RestrictionReason.literals, "sold_out"])
  }),
  min_stay: Schema.optionalKey(Schema.Int).annotate({ description: "With reason min_stay: the fewest nights a stay arriving on checkin may have" }),
  max_stay: Schema.optionalKey(Schema.Int).annotate({ description: "With reason max_stay: the most nights a stay arriving on checkin may have" })
}).annotate({ identifier: "RoomTypeAvailability" })

export const Availability = Schema.Struct({
  checkin: LocalDate,
  checkout: LocalDate,
  nights: Schema.Int,
  adults: Schema.Int,
  children: Schema.Int,
  room_types: Schema.Array(RoomTypeAvailability),
  note: Schema.String
}).annotate({ identifier: "Availability" })
export type Availability = typeof Availability.Type
