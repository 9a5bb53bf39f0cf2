import type { RoomTypeId } from "../Ids.js"
import { addDays, type LocalDate, nightsOf } from "../LocalDate.js"
import { type ChannelCells, noCells } from "./Cells.js"
import type { Knowledge } from "./Knowledge.js"

/* A room type's night as selling reads it, and the rooms it leaves free. */

/**
 * One room type's night as selling needs it: this service's own bookings and what the hotel's
 * systems said of it. `booked_since` counts the rooms of `booked` that the figure of `rooms_to_sell`
 * does not count, as `knowledge` says (null: no figure).
 */
export interface NightState {
  readonly booked: number
  readonly booked_since: number
  readonly cells: ChannelCells
  readonly knowledge: Knowledge | null
  /** The hotel's system fell silent and the hotel chose to stop selling then (`CHANNEL_STALE_ACTION=stop_selling`). */
  readonly channel_stale?: boolean
}

export const emptyNight: NightState = { booked: 0, booked_since: 0, cells: noCells, knowledge: null }

/** A night of a room type, as the repositories read and lock them. */
export interface StoredNight extends NightState {
  readonly room_type_id: RoomTypeId
  readonly night: LocalDate
}

/** Per room type and night, the state of the night; absent ones are empty. */
export type NightLookup = (roomTypeId: RoomTypeId, night: LocalDate) => NightState

/** The lookup of rows read or locked. */
export const nightLookup = (rows: ReadonlyArray<StoredNight>): NightLookup => {
  // per room type, then night: asked for every room and night of every stay priced, so no key is built per look-up
  const byType = new Map<RoomTypeId, Map<LocalDate, NightState>>()
  for (const row of rows) {
    let byNight = byType.get(row.room_type_id)
    if (byNight === undefined) byType.set(row.room_type_id, byNight = new Map())
    byNight.set(row.night, row)
  }
  return (roomTypeId, night) => byType.get(roomTypeId)?.get(night) ?? emptyNight
}

/**
 * The nights of `nights` closed while the channel is silent (docs/decisions.md#operators): the figures may be old,
 * so no stay is sold on them, whatever they say, until the hotel's system speaks again.
 */
export const closedWhileSilent = (nights: NightLookup): NightLookup => (roomTypeId, night) => ({
  ...nights(roomTypeId, night),
  channel_stale: true
})

/**
 * The rooms of a type that may still be sold on a night: what the hotel file's count leaves, and,
 * once the hotel's systems sent a figure, what that figure leaves after the rooms this service
 * took that it does not count. Never below 0: a night the hotel oversold elsewhere has none.
 */
export const freeRooms = (rooms: number, night: NightState): number => {
  const byCount = rooms - night.booked
  const toSell = night.cells.rooms_to_sell.value
  return Math.max(0, toSell === null ? byCount : Math.min(byCount, toSell - night.booked_since))
}

/** The rooms of a type free on every night from `checkin` up to `checkout`: a room is sold for the whole stay. */
export const freeDuringStay = (
  rooms: number,
  nights: NightLookup,
  roomTypeId: RoomTypeId,
  checkin: LocalDate,
  checkout: LocalDate
): number => {
  let free = rooms
  for (const night of nightsOf(checkin, checkout)) free = Math.min(free, freeRooms(rooms, nights(roomTypeId, night)))
  return Math.max(0, free)
}

/** Whether the hotel's figure is below the rooms this service took that it does not count: sold elsewhere too. */
export const isOversold = (night: NightState): boolean => {
  const toSell = night.cells.rooms_to_sell.value
  return toSell !== null && toSell < night.booked_since
}

/** The nights a read must cover to price and check stays from `checkin` to `checkout`: the check-out date too (closed to departure). */
export const readUntil = (checkout: LocalDate): LocalDate => addDays(checkout, 1)
