import type { HotelDefinition } from "../Hotel.js"
import type { RoomTypeId } from "../Ids.js"
import { addDays, type LocalDate } from "../LocalDate.js"
import type { AriMessage } from "./Message.js"

/* Which nights a message locks, merged into a few ranges. */

/**
 * The (room type, night) rows a message touches, as ranges to lock: per room type, its updates'
 * dates merged where they overlap or meet, so a message of many small updates locks a few ranges.
 */
export const messageRanges = (
  hotel: HotelDefinition,
  message: AriMessage
): ReadonlyArray<{ readonly roomTypeIds: ReadonlyArray<RoomTypeId>; readonly checkin: LocalDate; readonly checkout: LocalDate }> =>
  hotel.room_types.flatMap((room) => {
    const spans = message.updates
      .filter((update) => update.room_type_id === undefined || update.room_type_id === room.id)
      .map((update) => ({ checkin: update.from, checkout: addDays(update.to, 1) }))
      .sort((a, b) => a.checkin < b.checkin ? -1 : a.checkin > b.checkin ? 1 : 0)
    const merged: Array<{ checkin: LocalDate; checkout: LocalDate }> = []
    for (const span of spans) {
      const last = merged[merged.length - 1]
      if (last !== undefined && span.checkin <= last.checkout) {
        if (span.checkout > last.checkout) last.checkout = span.checkout
      } else merged.push({ ...span })
    }
    return merged.map((span) => ({ roomTypeIds: [room.id], ...span }))
  })
