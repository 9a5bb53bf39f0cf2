import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { cancellationRefusal, freeCancellationLapse, freeCancellationUntil } from "../../src/Domain/CancellationPolicy.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import { demoHotel } from "../support/hotel.js"
import { sampleReservation } from "../support/reservation.js"

const d = (s: string) => s as LocalDate
const at = (iso: string) => Date.parse(iso)

describe("CancellationPolicy: the free-cancellation deadline", () => {
  it("is 14:00 hotel time two days before check-in (the demo hotel's rule), with the hotel's offset", () => {
    expect(freeCancellationUntil(demoHotel, d("2027-03-12"))).toBe("2027-03-10T14:00:00+01:00")
    // across the new year and a month's start
    expect(freeCancellationUntil(demoHotel, d("2027-01-01"))).toBe("2026-12-30T14:00:00+01:00")
    expect(freeCancellationUntil(demoHotel, d("2027-03-01"))).toBe("2027-02-27T14:00:00+01:00")
  })

  it("keeps 14:00 in hotel time across the changes of summer time (Europe/Paris: 28 March and 31 October 2027)", () => {
    // the last deadline before summer time, and the first in it: one hour apart in UTC, the same on the hotel's clock
    expect(freeCancellationUntil(demoHotel, d("2027-03-29"))).toBe("2027-03-27T14:00:00+01:00")
    expect(freeCancellationUntil(demoHotel, d("2027-03-30"))).toBe("2027-03-28T14:00:00+02:00")
    expect(freeCancellationUntil(demoHotel, d("2027-11-01"))).toBe("2027-10-30T14:00:00+02:00")
    expect(freeCancellationUntil(demoHotel, d("2027-11-02"))).toBe("2027-10-31T14:00:00+01:00")
    expect(at(freeCancellationUntil(demoHotel, d("2027-03-30")))).toBe(at("2027-03-28T12:00:00Z"))
  })

  it("follows the hotel file: another hour and day count move it, nothing else does", () => {
    const sameDay = { ...demoHotel, cancellation: { free_until_days_before: 0, free_until_time: "18:00" } }
    expect(freeCancellationUntil(sameDay, d("2027-03-12"))).toBe("2027-03-12T18:00:00+01:00")
    const week = { ...demoHotel, cancellation: { free_until_days_before: 7, free_until_time: "00:00" } }
    expect(freeCancellationUntil(week, d("2027-03-12"))).toBe("2027-03-05T00:00:00+01:00")
    const tokyo = { ...demoHotel, timezone: "Asia/Tokyo" }
    expect(freeCancellationUntil(tokyo, d("2027-03-12"))).toBe("2027-03-10T14:00:00+09:00")
  })

  it("is what a refundable offer carries; a non-refundable one carries none", () => {
    expect(sampleReservation({ rateCode: "FLEX" }).offer.free_cancellation_until).toBe(freeCancellationUntil(demoHotel, d("2027-03-12")))
    expect(sampleReservation({ rateCode: "NRF" }).offer.free_cancellation_until).toBeNull()
  })
})

describe("CancellationPolicy: when the free cancellation lapses", () => {
  // deadline 2027-03-10T14:00:00+01:00 = 13:00Z
  const flex = sampleReservation({ rateCode: "FLEX" })
  const deadline = at("2027-03-10T13:00:00Z")

  it("holds until one millisecond before the deadline; at the deadline itself, and after, it has lapsed", () => {
    expect(freeCancellationLapse(flex, deadline - 1)).toEqual(Option.none())
    expect(freeCancellationLapse(flex, deadline)).toEqual(Option.some("deadline_passed"))
    expect(freeCancellationLapse(flex, deadline + 1)).toEqual(Option.some("deadline_passed"))
  })

  it("never holds on a non-refundable rate, however early", () => {
    expect(freeCancellationLapse(sampleReservation({ rateCode: "NRF" }), at("2026-01-01T00:00:00Z"))).toEqual(Option.some("non_refundable"))
    // a refundable flag without a deadline is no promise either
    const noDeadline = { offer: { ...flex.offer, free_cancellation_until: null } }
    expect(freeCancellationLapse(noDeadline, 0)).toEqual(Option.some("non_refundable"))
  })

  it("is read in absolute time: a deadline in summer time lapses at its own UTC instant", () => {
    const summer = sampleReservation({ rateCode: "FLEX", checkin: "2027-03-30", checkout: "2027-03-31" })
    expect(summer.offer.free_cancellation_until).toBe("2027-03-28T14:00:00+02:00")
    expect(freeCancellationLapse(summer, at("2027-03-28T11:59:59.999Z"))).toEqual(Option.none())
    expect(freeCancellationLapse(summer, at("2027-03-28T12:00:00Z"))).toEqual(Option.some("deadline_passed"))
  })
})

describe("CancellationPolicy: why a cancellation is refused", () => {
  const flex = sampleReservation({ rateCode: "FLEX" })
  const deadline = at("2027-03-10T13:00:00Z")

  it("a refundable rate before the deadline may be cancelled", () => {
    expect(cancellationRefusal(flex, deadline - 1)).toEqual(Option.none())
  })

  it("after the deadline: deadline_passed, with the deadline in the message", () => {
    expect(cancellationRefusal(flex, deadline)).toEqual(Option.some({
      reason: "deadline_passed",
      message: "reservation BR-7K3Q9X cannot be cancelled: free cancellation was possible until 2027-03-10T14:00:00+01:00 " +
        "(hotel time); contact the hotel"
    }))
  })

  it("a non-refundable rate: non_refundable, naming the rate", () => {
    expect(cancellationRefusal(sampleReservation({ rateCode: "NRF" }), 0)).toEqual(Option.some({
      reason: "non_refundable",
      message: "reservation BR-7K3Q9X cannot be cancelled: the NRF rate is non-refundable: it cannot be cancelled free of " +
        "charge; contact the hotel"
    }))
  })

  it("a reservation no longer completed: not_completed, before any deadline", () => {
    const cancelled = { ...flex, status: "CANCELLED" as const }
    expect(Option.map(cancellationRefusal(cancelled, deadline - 1), (r) => r.reason)).toEqual(Option.some("not_completed"))
  })
})
