import { describe, expect, it } from "@effect/vitest"
import { type Day, nearestStays, searchRange, shortestAllowed } from "../../public/book-alternatives.js"
import { addDays } from "../../public/book-search.js"

const day = (checkin: string, available: boolean, extra: Partial<Day> = {}): Day => ({
  checkin,
  checkout: addDays(checkin, 2),
  available,
  lowest_total: available ? 200 : null,
  reason: available ? null : "sold_out",
  ...extra
})

describe("when nothing fits: the stays offered instead (public/book-alternatives.js)", () => {
  it("looks as far before the asked arrival as after it, within the calendar's dates", () => {
    expect(searchRange("2027-03-31", 62)).toEqual({ from: "2027-02-28", to: "2027-04-30" })
  })

  it("offers the nearest bookable arrivals, nearest first, the earlier of two as near", () => {
    const days = [
      day("2027-03-08", true),
      day("2027-03-09", false),
      day("2027-03-10", true),
      day("2027-03-12", false),
      day("2027-03-14", true),
      day("2027-03-15", true)
    ]
    expect(nearestStays(days, "2027-03-12", 3).map((d) => d.checkin)).toEqual(["2027-03-10", "2027-03-14", "2027-03-15"])
    expect(nearestStays(days, "2027-03-12", 1).map((d) => d.checkin)).toEqual(["2027-03-10"])
  })

  it("never the asked date itself, and nothing when nothing is free", () => {
    expect(nearestStays([day("2027-03-12", true)], "2027-03-12", 3)).toEqual([])
    expect(nearestStays([day("2027-03-11", false), day("2027-03-13", false)], "2027-03-12", 3)).toEqual([])
  })

  it("with no stay of that length: the shortest longer one a date asks for", () => {
    const days = [
      day("2027-03-11", false, { reason: "min_stay", min_stay: 5 }),
      day("2027-03-12", false, { reason: "min_stay", min_stay: 3 }),
      day("2027-03-13", false)
    ]
    expect(shortestAllowed(days, 2)).toBe(3)
    expect(shortestAllowed(days, 5)).toBe(null)
    expect(shortestAllowed([day("2027-03-13", false)], 2)).toBe(null)
  })
})
