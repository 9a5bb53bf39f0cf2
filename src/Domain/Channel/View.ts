import { Schema } from "effect"
import type { HotelDefinition } from "../Hotel.js"
import { FeedCursor, RoomTypeId } from "../Ids.js"
import { formatInstant, LocalDate } from "../LocalDate.js"
import { type Cents, Currency, describedAmount } from "../Money.js"
import { MAX_VIEW_DATES } from "./Message.js"
import { freeRooms, isOversold, type NightState } from "./Nights.js"

/* GET /internal/v1/inventory: its query and its answer, night by night. */

/** `GET /internal/v1/inventory`'s query. */
export const InventoryQuery = Schema.Struct({
  from: LocalDate,
  to: LocalDate.annotateKey({ description: `Last date, inclusive; at most ${MAX_VIEW_DATES} dates from from` }),
  room_type_id: Schema.optionalKey(RoomTypeId).annotateKey({ description: "Only this room type; absent: every one" })
}).annotate({ identifier: "InventoryQuery" })
export type InventoryQuery = typeof InventoryQuery.Type

export const BaseRateSource = Schema.Literals(["message", "hotel_file"])

export const InventoryNight = Schema.Struct({
  date: LocalDate,
  rooms: Schema.Int.annotate({ description: "The hotel file's count" }),
  booked_here: Schema.Int.annotate({ description: "Rooms this service's completed reservations hold" }),
  rooms_to_sell: Schema.NullOr(Schema.Int).annotate({ description: "The hotel's figure; null: none (the file's count applies)" }),
  rooms_to_sell_as_of: Schema.NullOr(Schema.String).annotate({ description: "When the hotel's system computed it" }),
  rooms_to_sell_reservations_through: Schema.NullOr(FeedCursor).annotate({
    description: "The feed cursor up to which the figure counts this service's reservation changes (its message's " +
      "reservations_through, or an earlier message's); null: none"
  }),
  booked_here_since: Schema.NullOr(Schema.Int).annotate({
    description: "Of booked_here, the rooms the figure does not count: taken by changes after its cursor whose PMS push " +
      "was not acknowledged before it was computed"
  }),
  free: Schema.Int.annotate({ description: "min(rooms - booked_here, rooms_to_sell - booked_here_since), never below 0" }),
  oversold: Schema.Boolean.annotate({ description: "rooms_to_sell is below booked_here_since: sold elsewhere too" }),
  stop_sell: Schema.Boolean,
  closed_to_arrival: Schema.Boolean,
  closed_to_departure: Schema.Boolean,
  min_stay: Schema.NullOr(Schema.Int),
  max_stay: Schema.NullOr(Schema.Int),
  base_rate: describedAmount("The nightly base rate quotes start from"),
  base_rate_source: BaseRateSource
}).annotate({ identifier: "InventoryNight" })
export type InventoryNight = typeof InventoryNight.Type

export const InventoryView = Schema.Struct({
  from: LocalDate,
  to: LocalDate,
  currency: Currency,
  room_types: Schema.Array(Schema.Struct({
    room_type_id: RoomTypeId,
    nights: Schema.Array(InventoryNight)
  }))
}).annotate({ identifier: "InventoryView" })
export type InventoryView = typeof InventoryView.Type

/**
 * An `as_of` as the view answers it, in hotel time, with its milliseconds when it has any: the
 * hotel's system compares it with the instant it sent, and two figures may be a second apart.
 */
const formatAsOf = (asOf: number, timeZone: string): string => {
  const text = formatInstant(new Date(asOf), timeZone)
  const millis = ((asOf % 1000) + 1000) % 1000
  return millis === 0 ? text : `${text.slice(0, 19)}.${String(millis).padStart(3, "0")}${text.slice(19)}`
}

/** One night of the inventory view. */
export const inventoryNight = (
  hotel: HotelDefinition,
  rooms: number,
  night: LocalDate,
  state: NightState,
  fileRate: Cents
): InventoryNight => {
  const { cells } = state
  const asOf = cells.rooms_to_sell.as_of
  return {
    date: night,
    rooms,
    booked_here: state.booked,
    rooms_to_sell: cells.rooms_to_sell.value,
    rooms_to_sell_as_of: asOf === null ? null : formatAsOf(asOf, hotel.timezone),
    rooms_to_sell_reservations_through: state.knowledge?.through?.toString() ?? null,
    booked_here_since: cells.rooms_to_sell.value === null ? null : state.booked_since,
    free: freeRooms(rooms, state),
    oversold: isOversold(state),
    stop_sell: cells.stop_sell.value === true,
    closed_to_arrival: cells.closed_to_arrival.value === true,
    closed_to_departure: cells.closed_to_departure.value === true,
    min_stay: cells.min_stay.value,
    max_stay: cells.max_stay.value,
    base_rate: cells.base_rate.value ?? fileRate,
    base_rate_source: cells.base_rate.value === null ? "hotel_file" : "message"
  }
}
