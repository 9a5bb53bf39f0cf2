import { describe, expect, it } from "@effect/vitest"
import {
  guestLinkExpiresAt,
  guestLinkExpiry,
  hasLapsed,
  idempotencyKeyExpiresAt,
  manageLinkExpiresAt,
  manageLinkExpiry,
  expiredReservationPurgeCutoff,
  quoteExpiresAt,
  quotePurgeCutoff,
  unusedQuotePurgeCutoff
} from "../../src/Domain/Lifetimes.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import { demoHotel } from "../support/hotel.js"

const HOUR = 3_600_000
const DAY = 24 * HOUR
const now = Date.parse("2026-11-22T10:00:00Z")

describe("lifetimes", () => {
  it("something lapses at its expiry instant, not a millisecond later", () => {
    expect(hasLapsed("2026-11-22T11:00:00+01:00", now - 1)).toBe(false)
    expect(hasLapsed("2026-11-22T11:00:00+01:00", now)).toBe(true)
  })

  it("a quote expires its TTL after it is issued, and is purged its retention after that", () => {
    expect(quoteExpiresAt(now, 900)).toBe(now + 900_000)
    expect(quotePurgeCutoff(now, 30)).toBe(now - 30 * DAY)
  })

  it("a guest link works 24 hours and never past check-in; a manage link until 30 days after check-out", () => {
    expect(guestLinkExpiresAt(now, now + 3 * DAY)).toBe(now + DAY)
    expect(guestLinkExpiresAt(now, now + 2 * HOUR)).toBe(now + 2 * HOUR)
    expect(manageLinkExpiresAt(now)).toBe(now + 30 * DAY)
    expect(idempotencyKeyExpiresAt(now)).toBe(now + DAY)
  })

  it("a reservation never completed is kept its retention after the link lapsed; a quote never reserved, one day after it expired", () => {
    expect(expiredReservationPurgeCutoff(now, 7)).toBe(now - 7 * DAY)
    expect(unusedQuotePurgeCutoff(now)).toBe(now - DAY)
  })

  it("the links of a stay are counted from the hotel's own check-in and check-out times, in hotel time (summer time too)", () => {
    // check-in 14:00 in Nice on 2027-03-12 is 13:00Z; a link issued the day before at 15:00Z lapses at check-in
    expect(guestLinkExpiry(demoHotel, Date.parse("2027-03-11T15:00:00Z"), "2027-03-12" as LocalDate)).toBe(Date.parse("2027-03-12T13:00:00Z"))
    expect(guestLinkExpiry(demoHotel, now, "2027-03-12" as LocalDate)).toBe(now + DAY)
    // check-out 12:00 in Nice on 2027-07-15 is 10:00Z (summer time), plus 30 days
    expect(manageLinkExpiry(demoHotel, "2027-07-15" as LocalDate)).toBe(Date.parse("2027-07-15T10:00:00Z") + 30 * DAY)
  })
})
