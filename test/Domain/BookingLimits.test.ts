import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import {
  completionLimitWait,
  completionRefusal,
  countsCompletions,
  groupBooking,
  intentHourStart,
  intentRefusal,
  recipientKey,
  roomNights,
  roomNightsLimitWait,
  withinRecipientLimit
} from "../../src/Domain/BookingLimits.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import { demoHotel } from "../support/hotel.js"

const HOUR = 3_600_000

describe("business limits", () => {
  it("a group is more rooms than max_rooms_per_reservation, counting each request's quantity", () => {
    expect(groupBooking(demoHotel, [{ quantity: 4 }, { quantity: 2 }])).toEqual(Option.none())
    expect(groupBooking(demoHotel, [{ quantity: 4 }, { quantity: 2 }, { quantity: 1 }])).toEqual(Option.some({
      reason: "group_booking",
      max_rooms: 6,
      requested_rooms: 7,
      contact: { email: demoHotel.contact.email, phone: demoHotel.contact.phone }
    }))
    const strict = { ...demoHotel, booking: { ...demoHotel.booking, max_rooms_per_reservation: 1 } }
    expect(Option.map(groupBooking(strict, [{ quantity: 2 }]), (g) => g.max_rooms)).toEqual(Option.some(1))
  })

  it("completions per hour: the wait ends when enough of the oldest have left the hour", () => {
    const now = 10 * HOUR
    expect(completionLimitWait(3, [now - 50 * 60_000, now - 10 * 60_000], now)).toEqual(Option.none())
    // full: the oldest leaves in 10 minutes
    expect(completionLimitWait(3, [now - 50 * 60_000, now - 20 * 60_000, now - 60_000], now)).toEqual(Option.some(600))
    // over (the limit was lowered): two must leave, the second of them in 40 minutes
    expect(completionLimitWait(2, [now - 50 * 60_000, now - 20 * 60_000, now - 60_000], now)).toEqual(Option.some(2400))
    // never less than a second; 0 is no limit
    expect(completionLimitWait(1, [now - HOUR + 1], now)).toEqual(Option.some(1))
    expect(completionLimitWait(0, [now, now, now], now)).toEqual(Option.none())
  })

  it("room-nights per day: each room for each night; the wait ends when enough of the oldest have left the 24 hours", () => {
    expect(roomNights([{ quantity: 2 }, { quantity: 1 }], "2027-03-01" as LocalDate, "2027-03-15" as LocalDate)).toBe(42)
    const now = 30 * HOUR
    const recent = [{ at: now - 20 * HOUR, roomNights: 28 }, { at: now - 10 * HOUR, roomNights: 28 }]
    expect(roomNightsLimitWait(60, recent, 4, now)).toEqual(Option.none())
    // 5 more: the first must leave, in 4 hours
    expect(roomNightsLimitWait(60, recent, 5, now)).toEqual(Option.some(4 * 3600))
    // 40 more: both must leave, the second in 14 hours
    expect(roomNightsLimitWait(60, recent, 40, now)).toEqual(Option.some(14 * 3600))
    // beyond the limit by itself: never online, the whole window; 0 is no limit
    expect(roomNightsLimitWait(60, [], 61, now)).toEqual(Option.some(24 * 3600))
    expect(roomNightsLimitWait(0, recent, 1_000, now)).toEqual(Option.none())
  })

  it("emails per recipient: within the limit while fewer went; 0 is no limit; one mailbox whatever its case", () => {
    expect(withinRecipientLimit(2, 1)).toBe(true)
    expect(withinRecipientLimit(2, 2)).toBe(false)
    expect(withinRecipientLimit(0, 1_000)).toBe(true)
    expect(recipientKey(" Jeanne@Example.ORG ")).toBe("jeanne@example.org")
  })

  it("a completion is refused by the hour's count first, then by the day's room-nights with the hotel's contact; off limits count nothing", () => {
    const now = 30 * HOUR
    const limits = { perHour: 2, roomNightsPerDay: 60 }
    const recent = [{ at: now - 20 * HOUR, roomNights: 28 }, { at: now - 30 * 60_000, roomNights: 28 }, { at: now - 10 * 60_000, roomNights: 2 }]
    expect(completionRefusal(limits, demoHotel, recent, 1, now)).toEqual(Option.some({
      limit: "booking_limit",
      message: "this client address has booked 2 times in the last hour (completions, and stay changes adding room-nights), " +
        "the most the hotel takes (2): " +
        "retry in 1800 s, or contact the hotel",
      retry_after_seconds: 1800
    }))
    const contact = { email: "reservations@belle-rive-nice.example", phone: "+33 4 93 00 12 34" }
    expect(completionRefusal({ ...limits, perHour: 0 }, demoHotel, recent, 3, now)).toEqual(Option.some({
      limit: "room_nights",
      message: "3 more room-nights would take this client address beyond the 60 the hotel books online from one address in " +
        "24 hours (58 booked): retry in 14400 s, or book with the hotel (reservations@belle-rive-nice.example, +33 4 93 00 12 34)",
      retry_after_seconds: 14400,
      contact
    }))
    // beyond the limit by itself: only the hotel books it
    expect(Option.map(completionRefusal(limits, demoHotel, [], 61, now), (r) => r.message)).toEqual(Option.some(
      "61 more room-nights would take this client address beyond the 60 the hotel books online from one address in " +
        "24 hours (0 booked): book with the hotel (reservations@belle-rive-nice.example, +33 4 93 00 12 34)"
    ))
    expect(completionRefusal({ ...limits, perHour: 0 }, demoHotel, recent, 2, now)).toEqual(Option.none())
    expect(countsCompletions({ perHour: 0, roomNightsPerDay: 0 })).toBe(false)
    expect(countsCompletions({ perHour: 0, roomNightsPerDay: 1 })).toBe(true)
  })

  it("intents are counted per clock hour: refused, an address waits until the next hour starts", () => {
    const ten = Date.parse("2026-11-22T10:00:00Z")
    expect(intentHourStart(ten)).toBe(ten)
    expect(intentHourStart(ten + HOUR - 1)).toBe(ten)
    expect(intentHourStart(ten + HOUR)).toBe(ten + HOUR)
    expect(intentRefusal(60, ten).retry_after_seconds).toBe(3600)
    expect(intentRefusal(60, ten + 20_000).retry_after_seconds).toBe(3580)
    // never 0: a client told to retry at once would be refused again
    expect(intentRefusal(60, ten + HOUR - 1).retry_after_seconds).toBe(1)
    expect(intentRefusal(60, ten).message).toContain("60 reservation intents this hour")
  })
})
