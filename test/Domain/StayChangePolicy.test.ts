import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import fc from "fast-check"
import { cancellationRefusal } from "../../src/Domain/CancellationPolicy.js"
import { changeRefusal } from "../../src/Domain/StayChangePolicy.js"
import { sampleReservation } from "../support/reservation.js"

const at = (iso: string) => Date.parse(iso)
const reason = (refusal: Option.Option<{ readonly reason: string }>) => Option.map(refusal, (r) => r.reason)

describe("StayChangePolicy: who may change a stay, and until when", () => {
  const flex = sampleReservation({ rateCode: "FLEX" })
  // the current stay's free-cancellation deadline: 2027-03-10T14:00:00+01:00
  const deadline = at("2027-03-10T13:00:00Z")

  it("the guest of a completed reservation on a refundable rate, until one millisecond before the deadline", () => {
    expect(changeRefusal(flex, deadline - 1)).toEqual(Option.none())
  })

  it("at the deadline and after: deadline_passed, with the deadline and whom to ask", () => {
    expect(changeRefusal(flex, deadline)).toEqual(Option.some({
      reason: "deadline_passed",
      message: "the stay of reservation BR-7K3Q9X cannot be changed: changes were possible until 2027-03-10T14:00:00+01:00 " +
        "(hotel time); contact the hotel to change it"
    }))
    expect(reason(changeRefusal(flex, deadline + 1))).toEqual(Option.some("deadline_passed"))
  })

  it("never on a non-refundable rate", () => {
    expect(changeRefusal(sampleReservation({ rateCode: "NRF" }), 0)).toEqual(Option.some({
      reason: "non_refundable",
      message: "the stay of reservation BR-7K3Q9X cannot be changed: the NRF rate is non-refundable; contact the hotel to change it"
    }))
  })

  it("never once the reservation is no longer completed, whatever its rate and the time", () => {
    expect(changeRefusal({ ...flex, status: "CANCELLED" }, deadline - 1)).toEqual(Option.some({
      reason: "not_completed",
      message: "the stay of reservation BR-7K3Q9X cannot be changed: it is CANCELLED; book a new stay with POST /v1/quotes"
    }))
  })

  it("the deadline is the current stay's: a stay in summer time lapses at its own instant (14:00 CEST = 12:00Z)", () => {
    const summer = sampleReservation({ rateCode: "FLEX", checkin: "2027-03-30", checkout: "2027-03-31" })
    expect(changeRefusal(summer, at("2027-03-28T11:59:59.999Z"))).toEqual(Option.none())
    expect(reason(changeRefusal(summer, at("2027-03-28T12:00:00Z")))).toEqual(Option.some("deadline_passed"))
  })

  it("is refused exactly when a cancellation is, for the same reason: a change keeps the cancellation's terms", () => {
    const reservations = [flex, sampleReservation({ rateCode: "NRF" }), { ...flex, status: "CANCELLED" as const }]
    fc.assert(
      fc.property(fc.constantFrom(...reservations), fc.integer({ min: deadline - 86_400_000, max: deadline + 86_400_000 }), (r, now) => {
        expect(reason(changeRefusal(r, now))).toEqual(reason(cancellationRefusal(r, now)))
      })
    )
  })
})
