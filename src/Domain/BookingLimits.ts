import { Option, Schema } from "effect"
import type { HotelDefinition } from "./Hotel.js"

/**
 * The limits a hotel sets so that a public API without payment cannot book it out or use its
 * mail server as a relay (DESIGN §9): rooms per reservation, completions per client address and
 * hour, emails per recipient and day.
 */

/** Why a quote cannot be reserved online: more rooms than one reservation may hold, arranged with the hotel. */
export const GroupBooking = Schema.Struct({
  reason: Schema.Literal("group_booking"),
  max_rooms: Schema.Int.annotations({ description: "Rooms one reservation may hold (booking.max_rooms_per_reservation)" }),
  requested_rooms: Schema.Int.annotations({ description: "Rooms asked for: the sum of quantity over the room requests" }),
  contact: Schema.Struct({ email: Schema.String, phone: Schema.String }).annotations({
    description: "The hotel's reservations contact, who books groups"
  })
}).annotations({
  identifier: "GroupBooking",
  description: "More rooms than one reservation may hold: the quote is priced, but only the hotel can book it (contact)"
})
export type GroupBooking = typeof GroupBooking.Type

/** Rooms a request asks for: each room request counts its quantity. */
export const requestedRooms = (rooms: ReadonlyArray<{ readonly quantity: number }>): number =>
  rooms.reduce((n, room) => n + room.quantity, 0)

/** The group booking these rooms make, if they are more than one reservation may hold. */
export const groupBooking = (hotel: HotelDefinition, rooms: ReadonlyArray<{ readonly quantity: number }>): Option.Option<GroupBooking> => {
  const requested = requestedRooms(rooms)
  const max = hotel.booking.max_rooms_per_reservation
  return requested <= max ? Option.none() : Option.some({
    reason: "group_booking",
    max_rooms: max,
    requested_rooms: requested,
    contact: { email: hotel.contact.email, phone: hotel.contact.phone }
  })
}

export const groupBookingMessage = (group: GroupBooking): string =>
  `${group.requested_rooms} rooms are more than the ${group.max_rooms} one reservation may hold: ` +
  `a group booking is arranged with the hotel (${group.contact.email}, ${group.contact.phone})`

/** The window completions per client address are counted in. */
const COMPLETION_WINDOW_MS = 3_600_000

/** Completions made before this instant no longer count: the booking limit counts them, and housekeeping deletes their address, after it. */
export const completionWindowStart = (now: number): number => now - COMPLETION_WINDOW_MS

/**
 * Seconds until one more completion from a client address is within `limit` per hour, given when
 * its completions of the last hour were made (epoch ms, oldest first); none when it is within the
 * limit now, or the limit is off (0). Enough of the oldest must leave the hour for the count to
 * drop below the limit: the wait ends when the last of them leaves.
 */
export const completionLimitWait = (limit: number, recent: ReadonlyArray<number>, now: number): Option.Option<number> => {
  if (limit === 0 || recent.length < limit) return Option.none()
  const leaving = recent[recent.length - limit]!
  return Option.some(Math.max(1, Math.ceil((leaving + COMPLETION_WINDOW_MS - now) / 1000)))
}

/** The window emails per recipient are counted in. */
export const RECIPIENT_WINDOW_MS = 86_400_000

/** Whether one more email to a recipient who had `sent` in the window stays within `limit` (0: no limit). */
export const withinRecipientLimit = (limit: number, sent: number): boolean => limit === 0 || sent < limit

/** The address emails are counted by: case does not make another mailbox. */
export const recipientKey = (email: string): string => email.trim().toLowerCase()
