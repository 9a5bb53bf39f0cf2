import type { HotelDefinition } from "../Hotel.js"
import { addDays, daysBetween, type LocalDate } from "../LocalDate.js"
import { type AriMessage, MAX_AS_OF_AHEAD_MS, MAX_UPDATE_DATES, type MessageIssue } from "./Message.js"

/* The checks of a message that depend on the hotel and on today, which the schema cannot make. */

/**
 * The dates the channel interface speaks of, in hotel time: from yesterday (a night still being
 * sold after midnight) to the end of the booking window. A date outside is refused, never read.
 */
export const channelWindow = (hotel: HotelDefinition, today: LocalDate): { readonly first: LocalDate; readonly last: LocalDate } => ({
  first: addDays(today, -1),
  last: addDays(today, hotel.booking.max_days_ahead)
})

/** The issues of a message that the schema cannot see: they depend on the hotel and on today. */
export const messageIssues = (
  hotel: HotelDefinition,
  today: LocalDate,
  now: number,
  message: AriMessage
): ReadonlyArray<MessageIssue> => {
  const issues: Array<MessageIssue> = []
  if (Date.parse(message.as_of) > now + MAX_AS_OF_AHEAD_MS) {
    issues.push({ path: "as_of", message: "is more than 5 minutes in the future: check the sending system's clock" })
  }
  const { first, last } = channelWindow(hotel, today)
  message.updates.forEach((update, i) => {
    const at = (field: string, text: string) => issues.push({ path: `updates[${i}].${field}`, message: text })
    const room = update.room_type_id === undefined ? undefined : hotel.room_types.find((r) => r.id === update.room_type_id)
    if (update.room_type_id !== undefined && room === undefined) {
      at("room_type_id", `unknown room type "${update.room_type_id}"; known: ${hotel.room_types.map((r) => r.id).join(", ")}`)
    }
    const dates = daysBetween(update.from, update.to) + 1
    if (dates < 1) at("to", "must not be before from")
    else if (dates > MAX_UPDATE_DATES) at("to", `the range spans ${dates} dates; an update covers at most ${MAX_UPDATE_DATES}`)
    if (update.from < first) at("from", `must not be before ${first} (yesterday in hotel time)`)
    if (update.to > last) at("to", `must not be after ${last} (the booking window, ${hotel.booking.max_days_ahead} days ahead)`)
    const toSell = update.rooms_to_sell
    if (toSell !== undefined && toSell !== null) {
      const over = (room === undefined ? hotel.room_types : [room]).filter((r) => toSell > r.inventory)
      if (over.length > 0) {
        at("rooms_to_sell", `${toSell} is more than the hotel has: ${over.map((r) => `${r.id} ${r.inventory}`).join(", ")}`)
      }
    }
    if (update.min_stay != null && update.max_stay != null && update.min_stay > update.max_stay) {
      at("min_stay", `${update.min_stay} is above max_stay ${update.max_stay}`)
    }
  })
  return issues
}
