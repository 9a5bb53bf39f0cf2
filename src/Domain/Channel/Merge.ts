import type { HotelDefinition } from "../Hotel.js"
import type { RoomTypeId } from "../Ids.js"
import { fromEpochDay, type LocalDate, toEpochDay } from "../LocalDate.js"
import type { Cell, ChannelCells } from "./Cells.js"
import { type AriMessage, type AriUpdate, CHANNEL_FIELDS, type ChannelField, type MessageIssue } from "./Message.js"
import type { NightLookup } from "./Nights.js"

/* A message merged into the stored cells: newest as_of wins, per field, in typed arrays. */

/** The positions in `CHANNEL_FIELDS` of the fields an update carries (present, `null` included). */
const fieldsOf = (update: AriUpdate): ReadonlyArray<number> =>
  CHANNEL_FIELDS.flatMap((field, f) => Object.hasOwn(update, field) ? [f] : [])

/** A night of a room type that a message touched, with its cells after the message. */
export interface TouchedNight {
  readonly room_type_id: RoomTypeId
  readonly night: LocalDate
  readonly cells: ChannelCells
  /** Whether `rooms_to_sell` was written: its `booked_since` counts from the new `as_of`. */
  readonly roomsToSellWritten: boolean
}

export interface MessageOutcome {
  readonly nights: ReadonlyArray<TouchedNight>
  readonly applied: number
  readonly stale: number
  /** Nights whose `min_stay` ends above their `max_stay`: the message is refused whole. */
  readonly issues: ReadonlyArray<MessageIssue>
}

/**
 * A checked message applied to the current cells: for each (room type, date, field) it sets, the
 * value with the latest `as_of` wins, an equal one included (so a message repeated under a new id
 * changes nothing, and a later update of the same message wins over an earlier one); an older one
 * is stale and leaves the cell alone. `null` is a value like any other, with its `as_of`.
 * Checked: `messageIssues` found nothing, so its dates lie within the booking window.
 */
export const applyMessage = (
  hotel: HotelDefinition,
  current: NightLookup,
  message: AriMessage
): MessageOutcome => {
  const asOf = Date.parse(message.as_of)
  const types = hotel.room_types.map((room) => room.id)
  const active = message.updates.map((update, index) => ({ update, index, fields: fieldsOf(update) }))
    .filter(({ fields }) => fields.length > 0)
  if (active.length === 0) return { nights: [], applied: 0, stale: 0, issues: [] }
  // A message may cover every field of every room type's every date 1,000 times over (10 million
  // cells): per field, one slot per room type and date holds the last update that set it and how
  // many updates did, written without allocating. Every update shares the message's as_of, so the
  // last one wins and each one is applied or stale as the stored cell's as_of says.
  const first = Math.min(...active.map(({ update }) => toEpochDay(update.from)))
  const span = Math.max(...active.map(({ update }) => toEpochDay(update.to))) - first + 1
  const slots = types.length * span
  const setBy = CHANNEL_FIELDS.map(() => new Int32Array(slots).fill(-1))
  const hits = CHANNEL_FIELDS.map(() => new Int32Array(slots))
  for (const { fields, index, update } of active) {
    const typeIndexes = update.room_type_id === undefined ? types.map((_, t) => t) : [types.indexOf(update.room_type_id)]
    const from = toEpochDay(update.from) - first
    const to = toEpochDay(update.to) - first
    for (const f of fields) {
      for (const t of typeIndexes) {
        for (let day = from; day <= to; day++) {
          setBy[f]![t * span + day] = index
          hits[f]![t * span + day]!++
        }
      }
    }
  }
  const nights: Array<TouchedNight> = []
  const issues: Array<MessageIssue> = []
  let applied = 0
  let stale = 0
  for (let t = 0; t < types.length; t++) {
    for (let day = 0; day < span; day++) {
      const slot = t * span + day
      if (setBy.every((fieldSetBy) => fieldSetBy[slot] === -1)) continue
      const roomTypeId = types[t]!
      const night = fromEpochDay(first + day)
      const stored = current(roomTypeId, night).cells
      const cells: Record<ChannelField, Cell<unknown>> = { ...stored }
      let roomsToSellWritten = false
      CHANNEL_FIELDS.forEach((field, f) => {
        const by = setBy[f]![slot]!
        if (by === -1) return
        const asOfStored = stored[field].as_of
        if (asOfStored !== null && asOfStored > asOf) {
          stale += hits[f]![slot]!
          return
        }
        applied += hits[f]![slot]!
        cells[field] = { value: message.updates[by]![field], as_of: asOf }
        if (field === "rooms_to_sell") roomsToSellWritten = true
      })
      const after = cells as ChannelCells
      nights.push({ room_type_id: roomTypeId, night, cells: after, roomsToSellWritten })
      const min = after.min_stay.value
      const max = after.max_stay.value
      if (min !== null && max !== null && min > max) {
        // named by the update that last set this night's stay bounds
        const index = Math.max(setBy[CHANNEL_FIELDS.indexOf("min_stay")]![slot]!, setBy[CHANNEL_FIELDS.indexOf("max_stay")]![slot]!)
        if (index === -1) continue
        const path = `updates[${index}].${message.updates[index]!.min_stay !== undefined ? "min_stay" : "max_stay"}`
        if (!issues.some((issue) => issue.path === path)) {
          issues.push({ path, message: `${roomTypeId} on ${night} would have min_stay ${min} above max_stay ${max}` })
        }
      }
    }
  }
  return { nights, applied, stale, issues }
}
