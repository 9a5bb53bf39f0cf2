import { Option, Schema } from "effect"
import type { HotelDefinition } from "./Hotel.js"
import { HOUR_MS } from "./Lifetimes.js"
import { daysBetween, type LocalDate } from "./LocalDate.js"

/**
 * The limits a hotel sets so that a public API without payment cannot book it out or use its
 * mail server as a relay (docs/decisions.md#abuse): rooms per reservation, completions and room-nights per
 * client address, emails per recipient and day.
 */

/** The hotel's reservations contact, given to whoever the online limits send to the hotel. */
export const HotelContact = Schema.Struct({ email: Schema.String, phone: Schema.String })
export type HotelContact = typeof HotelContact.Type

export const hotelContact = (hotel: HotelDefinition): HotelContact => ({ email: hotel.contact.email, phone: hotel.contact.phone })

/** Why a quote cannot be reserved online: more rooms than one reservation may hold, arranged with the hotel. */
export const GroupBooking = Schema.Struct({
  reason: Schema.Literal("group_booking"),
  max_rooms: Schema.Int.annotate({ description: "Rooms one reservation may hold (booking.max_rooms_per_reservation)" }),
  requested_rooms: Schema.Int.annotate({ description: "Rooms asked for: the sum of quantity over the room requests" }),
  contact: HotelContact.annotate({
    description: "The hotel's reservations contact, who books groups"
  })
}).annotate({
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
    contact: hotelContact(hotel)
  })
}

export const groupBookingMessage = (group: GroupBooking): string =>
  `${group.requested_rooms} rooms are more than the ${group.max_rooms} one reservation may hold: ` +
  `a group booking is arranged with the hotel (${group.contact.email}, ${group.contact.phone})`

/** The window completions per client address are counted in. */
export const COMPLETION_WINDOW_MS = HOUR_MS

/** The window room-nights per client address are counted in. */
const ROOM_NIGHTS_WINDOW_MS = 24 * HOUR_MS

/** Completions made before this instant no longer count for the booking limit. */
const completionWindowStart = (now: number): number => now - COMPLETION_WINDOW_MS

/** Completions made before this instant count for no limit: housekeeping deletes their address. */
export const completionAddressCutoff = (now: number): number => now - ROOM_NIGHTS_WINDOW_MS

/** Seconds until an event at `at` leaves a window of `windowMs`: at least 1. */
const secondsUntilOut = (at: number, windowMs: number, now: number) => Math.max(1, Math.ceil((at + windowMs - now) / 1000))

/**
 * Seconds until one more event is within `limit` per `windowMs`, given when the events of the
 * window were (epoch ms, oldest first); none when it is within the limit now, or the limit is off
 * (0). Enough of the oldest must leave the window for the count to drop below the limit: the wait
 * ends when the last of them leaves.
 */
export const slidingLimitWait = (limit: number, windowMs: number, recent: ReadonlyArray<number>, now: number): Option.Option<number> =>
  limit === 0 || recent.length < limit ? Option.none() : Option.some(secondsUntilOut(recent[recent.length - limit]!, windowMs, now))

/** `slidingLimitWait` of completions per client address and hour (BOOKING_LIMIT_PER_HOUR), given those of the hour. */
export const completionLimitWait = (limit: number, recent: ReadonlyArray<number>, now: number): Option.Option<number> =>
  slidingLimitWait(limit, COMPLETION_WINDOW_MS, recent, now)

/** A completion as the limits per client address count it. */
export interface CountedCompletion {
  /** Epoch ms. */
  readonly at: number
  readonly roomNights: number
}

/** What a reservation holds: each room for each night. */
export const roomNights = (rooms: ReadonlyArray<{ readonly quantity: number }>, checkin: LocalDate, checkout: LocalDate): number =>
  requestedRooms(rooms) * daysBetween(checkin, checkout)

/**
 * ROOM_NIGHTS_PER_ADDRESS_PER_DAY: seconds until a completion of `requested` room-nights keeps the
 * client address within `limit` over 24 hours, given its completions of the last 24 hours (oldest
 * first); none when it does now, or the limit is off (0). A stay beyond the limit by itself never
 * fits: the whole window (only the hotel books it: the refusal gives its contact).
 */
export const roomNightsLimitWait = (
  limit: number,
  recent: ReadonlyArray<CountedCompletion>,
  requested: number,
  now: number
): Option.Option<number> => {
  if (limit === 0) return Option.none()
  let total = recent.reduce((sum, c) => sum + c.roomNights, requested)
  if (total <= limit) return Option.none()
  if (requested > limit) return Option.some(ROOM_NIGHTS_WINDOW_MS / 1000)
  // the oldest leave first: the wait ends when the last that must leave has left
  for (const completion of recent) {
    total -= completion.roomNights
    if (total <= limit) return Option.some(secondsUntilOut(completion.at, ROOM_NIGHTS_WINDOW_MS, now))
  }
  return Option.some(ROOM_NIGHTS_WINDOW_MS / 1000)
}

/** The completion limits per client address the service runs with (from the configuration): 0 turns one off. */
export interface CompletionLimits {
  /** BOOKING_LIMIT_PER_HOUR: completions per client address in an hour. */
  readonly perHour: number
  /** ROOM_NIGHTS_PER_ADDRESS_PER_DAY: room-nights one client address completes within 24 hours. */
  readonly roomNightsPerDay: number
}

/** Whether completions must be counted per client address at all: some limit is on. */
export const countsCompletions = (limits: CompletionLimits): boolean => limits.perHour > 0 || limits.roomNightsPerDay > 0

/** A completion one of the limits refuses: how long to wait, why, and the hotel's contact when the hotel can take it. */
export interface CompletionRefusal {
  /** Which limit refuses it, as the operators' metrics name it. */
  readonly limit: "booking_limit" | "room_nights"
  readonly message: string
  readonly retry_after_seconds: number
  readonly contact?: HotelContact
}

/**
 * Why a client address may not complete a reservation of `requested` room-nights now, or change a
 * stay to `requested` room-nights more than it held, given its bookings of the last 24 hours
 * (oldest first: completions, and changes that added room-nights): it made its hour's bookings, or
 * these room-nights would take its day's beyond the limit (then the hotel, who can book it, is named).
 */
export const completionRefusal = (
  limits: CompletionLimits,
  hotel: HotelDefinition,
  recent: ReadonlyArray<CountedCompletion>,
  requested: number,
  now: number
): Option.Option<CompletionRefusal> => {
  const lastHour = recent.map((c) => c.at).filter((at) => at > completionWindowStart(now))
  const inHour = completionLimitWait(limits.perHour, lastHour, now)
  if (Option.isSome(inHour)) {
    return Option.some({
      limit: "booking_limit",
      message: `this client address has booked ${lastHour.length} times in the last hour (completions, and stay changes ` +
        `adding room-nights), the most the hotel ` +
        `takes (${limits.perHour}): retry in ${inHour.value} s, or contact the hotel`,
      retry_after_seconds: inHour.value
    })
  }
  const limit = limits.roomNightsPerDay
  return Option.map(roomNightsLimitWait(limit, recent, requested, now), (wait) => {
    const contact = hotelContact(hotel)
    const booked = recent.reduce((sum, c) => sum + c.roomNights, 0)
    return {
      limit: "room_nights",
      message: `${requested} more room-nights would take this client address beyond the ${limit} the hotel books online ` +
        `from one address in 24 hours (${booked} booked): ` +
        (requested > limit ? "" : `retry in ${wait} s, or `) + `book with the hotel (${contact.email}, ${contact.phone})`,
      retry_after_seconds: wait,
      contact
    }
  })
}

/** Intents per client address are counted per clock hour: one counter per address and hour, one statement an intent. */
const INTENT_WINDOW_MS = HOUR_MS

/** The start of the clock hour an intent made at `now` is counted in (epoch ms); hours that started before are over. */
export const intentHourStart = (now: number): number => now - (now % INTENT_WINDOW_MS)

/**
 * INTENT_LIMIT_PER_HOUR: an intent the client address may not make, its hour's intents made: how
 * long until the next hour, when it may again. Each pending intent is kept for weeks (its quote,
 * the reservation, its token), so one address may make only a guest's share of them.
 */
export const intentRefusal = (limit: number, now: number): { readonly message: string; readonly retry_after_seconds: number } => {
  const seconds = secondsUntilOut(intentHourStart(now), INTENT_WINDOW_MS, now)
  return {
    message: `this client address has made ${limit} reservation intents this hour, the most the hotel takes: ` +
      `retry in ${seconds} s, or complete one of those already made`,
    retry_after_seconds: seconds
  }
}

/** The window emails per recipient are counted in. */
export const RECIPIENT_WINDOW_MS = 86_400_000

/** Whether one more email to a recipient who had `sent` in the window stays within `limit` (0: no limit). */
export const withinRecipientLimit = (limit: number, sent: number): boolean => limit === 0 || sent < limit

/** The address emails are counted by: case does not make another mailbox. */
export const recipientKey = (email: string): string => email.trim().toLowerCase()
