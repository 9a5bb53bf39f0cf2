import { Schema } from "effect"
import { rule } from "./Documentation.js"

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** Whether a `YYYY-MM-DD` string names a real day; arithmetic, as every date in every request and answer passes here. */
export const isCalendarDate = (s: string): boolean => {
  const year = Number(s.slice(0, 4))
  const month = Number(s.slice(5, 7))
  const day = Number(s.slice(8, 10))
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!)
}

/** A calendar date in the hotel's own time, `YYYY-MM-DD`; never a `Date` shifted to UTC. */
export const LocalDate = Schema.String.pipe(
  Schema.check(
    Schema.isMaxLength(10, { message: "must be a date YYYY-MM-DD" }).abort(),
    // no u flag: the document says format date, not this pattern
    Schema.isPattern(/^\d{4}-\d{2}-\d{2}$/, { message: "must be a date YYYY-MM-DD" }).abort(),
    rule(isCalendarDate, "must be a real calendar date")
  ),
  Schema.brand("LocalDate"),
  Schema.annotate({
    identifier: "LocalDate",
    description: "A calendar date, YYYY-MM-DD, in the hotel's local time",
    format: "date",
    examples: ["2027-03-12" as never]
  })
)
export type LocalDate = typeof LocalDate.Type

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

// Dates and day numbers convert by arithmetic, as every night of every quote passes here: years
// are counted from March, so that the leap day ends them, in eras of 400 years (146097 days).

/** Days since 1970-01-01: the arithmetic base for local dates. */
export const toEpochDay = (date: LocalDate): number => {
  const month = Number(date.slice(5, 7))
  const year = Number(date.slice(0, 4)) - (month <= 2 ? 1 : 0)
  const era = Math.floor(year / 400)
  const yearOfEra = year - era * 400
  const dayOfYear = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + Number(date.slice(8, 10)) - 1
  return era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468
}

/** The date `day` days after 1970-01-01. */
export const fromEpochDay = (day: number): LocalDate => {
  const shifted = day + 719_468
  const era = Math.floor(shifted / 146_097)
  const dayOfEra = shifted - era * 146_097
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365)
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153)
  const dayOfMonth = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  return `${pad(year, 4)}-${pad(month)}-${pad(dayOfMonth)}` as LocalDate
}

export const addDays = (date: LocalDate, days: number): LocalDate => fromEpochDay(toEpochDay(date) + days)

export const daysBetween = (from: LocalDate, to: LocalDate): number => toEpochDay(to) - toEpochDay(from)

/** The nights of a stay: every date from check-in up to, not including, check-out. */
export const nightsOf = (checkin: LocalDate, checkout: LocalDate): ReadonlyArray<LocalDate> => {
  const nights: Array<LocalDate> = []
  for (let day = toEpochDay(checkin), last = toEpochDay(checkout); day < last; day++) nights.push(fromEpochDay(day))
  return nights
}

/** ISO weekday: 1 = Monday … 7 = Sunday. */
export const isoWeekday = (date: LocalDate): number => {
  // 1970-01-01 was a Thursday
  const fromMonday = (toEpochDay(date) + 3) % 7
  return (fromMonday < 0 ? fromMonday + 7 : fromMonday) + 1
}

/** Month of the year, 1 to 12. */
export const monthOf = (date: LocalDate): number => Number(date.slice(5, 7))

const QUARTER_HOUR_MS = 15 * 60_000

// building a formatter costs far more than using one: keep one per zone
const formatters = new Map<string, Intl.DateTimeFormat>()
const formatterFor = (timeZone: string): Intl.DateTimeFormat => {
  let formatter = formatters.get(timeZone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23"
    })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

/** The zone's offset from UTC at an instant, in minutes, asked of the time-zone database. */
const lookUpOffset = (timeZone: string, instant: number): number => {
  const parts = formatterFor(timeZone).formatToParts(new Date(instant))
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value)
  const asUtc = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"))
  return Math.round((asUtc - Math.floor(instant / 1000) * 1000) / 60_000)
}

// Offsets are whole quarter hours and change only on a quarter hour, so one look-up serves a
// whole quarter hour of instants; the time-zone database is slow next to this arithmetic.
const offsets = new Map<string, Map<number, number>>()
const offsetMinutes = (timeZone: string, instant: number): number => {
  let zone = offsets.get(timeZone)
  if (zone === undefined) {
    zone = new Map()
    offsets.set(timeZone, zone)
  }
  const quarterHour = Math.floor(instant / QUARTER_HOUR_MS)
  let offset = zone.get(quarterHour)
  if (offset === undefined) {
    if (zone.size > 10_000) zone.clear()
    offset = lookUpOffset(timeZone, instant)
    zone.set(quarterHour, offset)
  }
  return offset
}

/** Wall-clock fields of an instant in the zone. */
const zonedParts = (instant: Date, timeZone: string) => {
  const local = new Date(instant.getTime() + offsetMinutes(timeZone, instant.getTime()) * 60_000)
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds()
  }
}

/** Today's date in the given IANA time zone at `instant`. */
export const todayIn = (timeZone: string, instant: Date): LocalDate => {
  const p = zonedParts(instant, timeZone)
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}` as LocalDate
}

const formatOffset = (minutes: number) =>
  `${minutes < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`

/** An instant as an ISO date-time with the zone's offset, e.g. `2027-03-12T14:00:00+01:00`. */
export const formatInstant = (instant: Date, timeZone: string): string => {
  const p = zonedParts(instant, timeZone)
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${
    formatOffset(offsetMinutes(timeZone, instant.getTime()))
  }`
}

/** The instant of a local date and `HH:MM` time in the zone (the earlier one in a DST overlap). */
export const localInstant = (date: LocalDate, time: string, timeZone: string): Date => {
  const naive = Date.parse(`${date}T${time}:00Z`)
  const firstGuess = naive - offsetMinutes(timeZone, naive) * 60_000
  return new Date(naive - offsetMinutes(timeZone, firstGuess) * 60_000)
}
