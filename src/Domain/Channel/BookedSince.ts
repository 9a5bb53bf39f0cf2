import type { ReservationId, RoomTypeId } from "../Ids.js"
import { type LocalDate, nightsOf } from "../LocalDate.js"
import { type Knowledge } from "./Knowledge.js"
import { type NightLookup, nightLookup, type NightState, type StoredNight } from "./Nights.js"

/* The booked_since rule: the rooms this service holds that the hotel's figure cannot count, taken and given back. */

/** Rooms of one type a reservation holds on each night from `checkin` up to `checkout`. */
export interface Hold {
  readonly reservation_id: ReservationId
  readonly room_type_id: RoomTypeId
  readonly rooms: number
  readonly checkin: LocalDate
  readonly checkout: LocalDate
}

/** Rooms wanted per room type: a reservation takes (and gives back) the same rooms on every night. */
export const roomsByType = (rooms: ReadonlyArray<{ readonly room_type_id: RoomTypeId; readonly quantity: number }>): Map<RoomTypeId, number> => {
  const wanted = new Map<RoomTypeId, number>()
  for (const line of rooms) wanted.set(line.room_type_id, (wanted.get(line.room_type_id) ?? 0) + line.quantity)
  return wanted
}

/** The rooms per type a reservation's lines hold on every night of its stay. */
export const holdsOf = (
  reservationId: ReservationId,
  lines: ReadonlyArray<{ readonly room_type_id: RoomTypeId; readonly quantity: number }>,
  checkin: LocalDate,
  checkout: LocalDate
): ReadonlyArray<Hold> =>
  [...roomsByType(lines)].map(([room_type_id, rooms]) => ({ reservation_id: reservationId, room_type_id, rooms, checkin, checkout }))

/**
 * What a figure may count of one reservation: the rooms of the last change it surely has (by its
 * cursor or an acknowledged push), or those of any later change, which it may have heard of too (a
 * push it took after the figure's cursor, an acknowledgement that was lost). Oldest first; no
 * state at all: the figure has heard of none of its changes.
 */
export type CountedStates = ReadonlyArray<ReadonlyArray<Hold>>

/**
 * The fewest rooms of a type a figure may count for a reservation on a night: whichever of its
 * states the hotel has, it counts at least these. Counting fewer than it does only holds back a
 * room more until the next message; counting more would sell one twice.
 */
export const countedOn = (states: CountedStates | undefined, roomTypeId: RoomTypeId, night: LocalDate): number => {
  if (states === undefined || states.length === 0) return 0
  let fewest = Infinity
  for (const state of states) fewest = Math.min(fewest, roomsHeldOn(state, roomTypeId, night))
  return fewest
}

/**
 * The rooms a figure cannot count, per room type and night (its `booked_since`): what each
 * reservation holds now beyond what the figure may count it holding. A reservation the figure
 * counts with more rooms than it holds now (a cancellation or a shorter stay it has not heard of)
 * gives nothing back: the figure still counts those rooms as sold.
 */
export const unknownRooms = (
  current: ReadonlyArray<Hold>,
  counted: ReadonlyMap<ReservationId, CountedStates>
): (roomTypeId: RoomTypeId, night: LocalDate) => number => {
  const unknown = new Map<string, number>()
  for (const hold of current) {
    const states = counted.get(hold.reservation_id)
    for (const night of nightsOf(hold.checkin, hold.checkout)) {
      const extra = hold.rooms - countedOn(states, hold.room_type_id, night)
      if (extra <= 0) continue
      const key = `${hold.room_type_id}\u0000${night}`
      unknown.set(key, (unknown.get(key) ?? 0) + extra)
    }
  }
  return (roomTypeId, night) => unknown.get(`${roomTypeId}\u0000${night}`) ?? 0
}

/**
 * The rooms of `booked_since` a reservation gives back when it releases `rooms` of the `held` it
 * holds on a night, while the figure may count it holding `counted` there: only those the figure
 * cannot count.
 */
export const givenBack = (held: number, counted: number, rooms: number): number => Math.max(0, Math.min(rooms, held - counted))

/** The rooms of a type that `holds` hold on a night. */
export const roomsHeldOn = (holds: ReadonlyArray<Hold>, roomTypeId: RoomTypeId, night: LocalDate): number => {
  let rooms = 0
  for (const hold of holds) if (hold.room_type_id === roomTypeId && hold.checkin <= night && night < hold.checkout) rooms += hold.rooms
  return rooms
}

/** A night after a reservation took `rooms` more: a night with a figure counts them as unknown to it (taken since). */
export const taken = (night: NightState, rooms: number): NightState => ({
  ...night,
  booked: night.booked + rooms,
  booked_since: night.booked_since + (night.knowledge === null ? 0 : rooms)
})

/** A night after a reservation gave back `rooms`, of which `back` the figure did not count (`givenBack`). */
export const released = (night: NightState, rooms: number, back: number): NightState => {
  const booked = night.booked - rooms
  return { ...night, booked, booked_since: Math.max(0, Math.min(booked, night.booked_since - back)) }
}

/** Rooms of a type taken (more than 0) or given back (less than 0) on every night from `checkin` up to `checkout`. */
export interface NightsChange {
  readonly roomTypeId: RoomTypeId
  readonly checkin: LocalDate
  readonly checkout: LocalDate
  readonly rooms: number
}

/** Of the rooms a change gives back on a night, those the night's figure did not count (`givenBack`); 0 for a change that takes. */
export type GivenBackOn = (change: NightsChange, night: LocalDate) => number

/** A stay's rooms, per type, taken (`sign` 1) or given back (-1) on every night of it. */
export const stayChanges = (
  lines: ReadonlyArray<{ readonly room_type_id: RoomTypeId; readonly quantity: number }>,
  checkin: LocalDate,
  checkout: LocalDate,
  sign: 1 | -1
): ReadonlyArray<NightsChange> => [...roomsByType(lines)].map(([roomTypeId, rooms]) => ({ roomTypeId, checkin, checkout, rooms: sign * rooms }))

/**
 * What `booked_since` gets back when a reservation holding `held` gives back rooms on a night of
 * `locked`: only rooms that night's figure cannot count (docs/decisions.md#what-may-be-sold); a room the hotel may still count stays
 * counted until its next message. `counted`: the states a figure of some knowledge may count the reservation in.
 */
export const givenBackBy = (
  held: ReadonlyArray<Hold>,
  locked: NightLookup,
  counted: (knowledge: Knowledge) => CountedStates | undefined
): GivenBackOn =>
(change, night) => {
  const { knowledge } = locked(change.roomTypeId, night)
  if (knowledge === null) return 0
  return givenBack(roomsHeldOn(held, change.roomTypeId, night), countedOn(counted(knowledge), change.roomTypeId, night), -change.rooms)
}

/**
 * A night's bookings after some changes, beside what it held when it was locked: the store writes
 * the new figures only over a night still as it was locked, so a write without the lock (a bug)
 * changes nothing instead of losing another transaction's rooms.
 */
export interface BookedNight {
  readonly room_type_id: RoomTypeId
  readonly night: LocalDate
  readonly booked: number
  readonly booked_since: number
  readonly locked: { readonly booked: number; readonly booked_since: number }
}

/**
 * The nights `locked` after `changes`, in order: the one place `booked` and `booked_since` are
 * computed, for PostgreSQL and the in-memory store alike (they only write the result). Each night
 * a change covers appears once; a night absent from `locked` counts as empty (the store then
 * finds it not as locked).
 */
export const afterChanges = (
  locked: ReadonlyArray<StoredNight>,
  changes: ReadonlyArray<NightsChange>,
  givenBackOn: GivenBackOn = () => 0
): ReadonlyArray<BookedNight> => {
  const before = nightLookup(locked)
  const after = new Map<string, { readonly room_type_id: RoomTypeId; readonly night: LocalDate; state: NightState }>()
  for (const change of changes) {
    for (const night of nightsOf(change.checkin, change.checkout)) {
      const key = `${change.roomTypeId}\u0000${night}`
      const entry = after.get(key) ?? { room_type_id: change.roomTypeId, night, state: before(change.roomTypeId, night) }
      entry.state = change.rooms > 0
        ? taken(entry.state, change.rooms)
        : released(entry.state, -change.rooms, givenBackOn(change, night))
      after.set(key, entry)
    }
  }
  return [...after.values()].map(({ night, room_type_id, state }) => {
    const { booked, booked_since } = before(room_type_id, night)
    return { room_type_id, night, booked: state.booked, booked_since: state.booked_since, locked: { booked, booked_since } }
  })
}
