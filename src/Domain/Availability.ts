import { Schema } from "effect"
import { RestrictionReason } from "./Channel.js"
import { RoomTypeId } from "./Ids.js"
import { LocalDate } from "./LocalDate.js"
import { MAX_ADULTS_PER_ROOM, MAX_CHILDREN_PER_ROOM } from "./Occupancy.js"
import { describeReasons } from "./Quote.js"

/** An integer from min to max in the URL's text; the document shows it as the integer it is. */
export const urlCount = (min: number, max: number): Schema.Schema<number, string> =>
  Schema.NumberFromString.pipe(Schema.int(), Schema.between(min, max)).annotations({
    jsonSchema: { type: "integer", minimum: min, maximum: max }
  })

/** An integer from min to max in JSON. */
export const jsonCount = (min: number, max: number): Schema.Schema<number> => Schema.Int.pipe(Schema.between(min, max))

/** The fields of an availability query, with its counts encoded by `count` (URL text or JSON numbers). */
const availabilityFields = <I>(count: (min: number, max: number) => Schema.Schema<number, I>) => ({
  checkin: LocalDate,
  checkout: LocalDate,
  adults: Schema.optionalWith(count(1, MAX_ADULTS_PER_ROOM), { default: () => 2 }).annotations({
    description: `Adults per room, 1 to ${MAX_ADULTS_PER_ROOM} (default 2)`
  }),
  children: Schema.optionalWith(count(0, MAX_CHILDREN_PER_ROOM), { default: () => 0 }).annotations({
    description: `Children per room, 0 to ${MAX_CHILDREN_PER_ROOM} (default 0); without ages they count as standard guests`
  })
})

/** GET /v1/availability's query string. */
export const AvailabilityQuery = Schema.Struct(availabilityFields(urlCount))
/**
 * The same query as JSON (the MCP tool `check_availability`): the same fields, counts as integers;
 * an unknown field is refused, as its `inputSchema` says (a query string may carry others).
 */
export const AvailabilityParams = Schema.Struct(availabilityFields(jsonCount)).annotations({
  parseOptions: { onExcessProperty: "error" }
})
export type AvailabilityQuery = typeof AvailabilityQuery.Type

export const RoomTypeAvailability = Schema.Struct({
  room_type_id: RoomTypeId,
  name: Schema.String,
  available_rooms: Schema.Int.annotations({ description: "Rooms free on every night of the stay" }),
  fits_occupancy: Schema.Boolean.annotations({ description: "Whether the adults and children fit one room of this type" }),
  bookable: Schema.Boolean.annotations({
    description: "At least one room is free, the hotel allows this stay (reason null) and the occupancy fits"
  }),
  reason: Schema.NullOr(Schema.Literal(...RestrictionReason.literals, "sold_out")).annotations({
    description: "Why this stay cannot be booked in this room type, null when it can; else the first that applies: " +
      describeReasons([...RestrictionReason.literals, "sold_out"])
  }),
  min_stay: Schema.optional(Schema.Int).annotations({ description: "With reason min_stay: the fewest nights a stay arriving on checkin may have" }),
  max_stay: Schema.optional(Schema.Int).annotations({ description: "With reason max_stay: the most nights a stay arriving on checkin may have" })
}).annotations({ identifier: "RoomTypeAvailability" })

export const Availability = Schema.Struct({
  checkin: LocalDate,
  checkout: LocalDate,
  nights: Schema.Int,
  adults: Schema.Int,
  children: Schema.Int,
  room_types: Schema.Array(RoomTypeAvailability),
  note: Schema.String
}).annotations({ identifier: "Availability" })
export type Availability = typeof Availability.Type
