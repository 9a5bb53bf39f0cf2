import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import {
  addDays,
  daysBetween,
  formatInstant,
  fromEpochDay,
  isoWeekday,
  LocalDate,
  localInstant,
  nightsOf,
  todayIn,
  toEpochDay
} from "../../src/Domain/LocalDate.js"
import { prop } from "./prop.js"

/** The time-zone database's own answer, the slow way. */
const reference = (instant: Date, timeZone: string) => {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
    timeZoneName: "longOffset"
  }).formatToParts(instant)
  const get = (type: string) => parts.find((p) => p.type === type)!.value
  const offset = get("timeZoneName").replace("GMT", "") || "+00:00"
  return `${get("year")}-${get("month")}-${get("day")}T${get("hour")}:${get("minute")}:${get("second")}${offset}`
}

const zones = ["Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "America/St_Johns", "UTC"]
const instants = fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2029, 0, 1) }).map((ms) => new Date(ms))

const pad = (n: number, width: number) => String(n).padStart(width, "0")
/** Dates of the right shape, real or not: days 0 to 31 of months 0 to 13, leap and century years included. */
const shapedDates = fc.tuple(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 31 }))
  .map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`)
/** The calendar's own answer, the slow way. */
const isRealDate = (s: string) => {
  const date = new Date(`${s}T00:00:00Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === s
}

describe("LocalDate", () => {
  prop("accepts exactly the real calendar dates", [shapedDates], ([s]) => {
    expect(Schema.is(LocalDate)(s)).toBe(isRealDate(s))
  }, { fastCheck: { numRuns: 5000, examples: [["2028-02-29"], ["2100-02-29"], ["2000-02-29"], ["2027-02-29"], ["2027-04-31"], ["2027-12-31"]] } })

  // years 0001 to 9999, as far as the four-digit format goes
  const epochDays = fc.integer({ min: -719_162, max: 2_932_896 })

  prop("fromEpochDay names the same day as Date, and toEpochDay takes it back", [epochDays], ([day]) => {
    const date = fromEpochDay(day)
    expect(date).toBe(new Date(day * 86_400_000).toISOString().slice(0, 10))
    expect(toEpochDay(date)).toBe(day)
  })

  prop("isoWeekday agrees with Date, Monday 1 to Sunday 7", [epochDays], ([day]) => {
    expect(isoWeekday(fromEpochDay(day))).toBe(new Date(day * 86_400_000).getUTCDay() || 7)
  })

  prop("formatInstant agrees with the time-zone database, DST changes included", [instants, fc.constantFrom(...zones)], ([instant, zone]) => {
    expect(formatInstant(instant, zone)).toBe(reference(instant, zone))
    expect(todayIn(zone, instant)).toBe(reference(instant, zone).slice(0, 10))
  }, { fastCheck: { numRuns: 2000 } })

  it("formats the hotel's deadlines with the offset of their date", () => {
    expect(formatInstant(localInstant("2027-03-10" as LocalDate, "14:00", "Europe/Paris"), "Europe/Paris")).toBe("2027-03-10T14:00:00+01:00")
    expect(formatInstant(localInstant("2027-07-10" as LocalDate, "14:00", "Europe/Paris"), "Europe/Paris")).toBe("2027-07-10T14:00:00+02:00")
    // the night DST starts: 14:00 exists and is in summer time
    expect(formatInstant(localInstant("2027-03-28" as LocalDate, "14:00", "Europe/Paris"), "Europe/Paris")).toBe("2027-03-28T14:00:00+02:00")
  })

  it("counts days and nights on the calendar", () => {
    const d = (s: string) => s as LocalDate
    expect(daysBetween(d("2026-12-30"), d("2027-01-02"))).toBe(3)
    expect(addDays(d("2028-02-28"), 1)).toBe("2028-02-29")
    expect(nightsOf(d("2027-03-27"), d("2027-03-29"))).toEqual(["2027-03-27", "2027-03-28"])
    expect(isoWeekday(d("2026-11-22"))).toBe(7)
    expect(isoWeekday(d("2026-11-23"))).toBe(1)
  })
})
