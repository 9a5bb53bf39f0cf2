import { Schema } from "effect"

const DAY_MS = 86_400_000

const isCalendarDate = (s: string): boolean => {
  const date = new Date(`${s}T00:00:00Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === s
}

/** A calendar date in the hotel's own time, `YYYY-MM-DD`; never a `Date` shifted to UTC. */
export const LocalDate = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}$/, { message: () => "must be a date YYYY-MM-DD" }),
  Schema.filter(isCalendarDate, { message: () => "must be a real calendar date" }),
  Schema.brand("LocalDate"),
  Schema.annotations({
    identifier: "LocalDate",
    description: "A calendar date, YYYY-MM-DD, in the hotel's local time",
    jsonSchema: { type: "string", format: "date" },
    examples: ["2027-03-12" as never]
  })
)
export type LocalDate = typeof LocalDate.Type

/** Days since 1970-01-01: the arithmetic base for local dates. */
export const toEpochDay = (date: LocalDate): number => Date.parse(`${date}T00:00:00Z`) / DAY_MS

export const fromEpochDay = (day: number): LocalDate =>
  new Date(day * DAY_MS).toISOString().slice(0, 10) as LocalDate

export const addDays = (date: LocalDate, days: number): LocalDate => fromEpochDay(toEpochDay(date) + days)

export const daysBetween = (from: LocalDate, to: LocalDate): number => toEpochDay(to) - toEpochDay(from)

/** The nights of a stay: every date from check-in up to, not including, check-out. */
export const nightsOf = (checkin: LocalDate, checkout: LocalDate): ReadonlyArray<LocalDate> => {
  const first = toEpochDay(checkin)
  return Array.from({ length: Math.max(0, toEpochDay(checkout) - first) }, (_, i) => fromEpochDay(first + i))
}

/** ISO weekday: 1 = Monday … 7 = Sunday. */
export const isoWeekday = (date: LocalDate): number => {
  const day = new Date(toEpochDay(date) * DAY_MS).getUTCDay()
  return day === 0 ? 7 : day
}

/** Month of the year, 1 to 12. */
export const monthOf = (date: LocalDate): number => Number(date.slice(5, 7))

const zonedParts = (instant: Date, timeZone: string) => {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23"
  }).formatToParts(instant)
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value)
  return { year: get("year"), month: get("month"), day: get("day"), hour: get("hour"), minute: get("minute"), second: get("second") }
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

/** Today's date in the given IANA time zone at `instant`. */
export const todayIn = (timeZone: string, instant: Date): LocalDate => {
  const p = zonedParts(instant, timeZone)
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}` as LocalDate
}

/** The zone's offset from UTC at `instant`, in minutes. */
const offsetMinutes = (timeZone: string, instant: Date): number => {
  const p = zonedParts(instant, timeZone)
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second)
  return Math.round((asUtc - Math.floor(instant.getTime() / 1000) * 1000) / 60_000)
}

const formatOffset = (minutes: number) =>
  `${minutes < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`

/** An instant as an ISO date-time with the zone's offset, e.g. `2027-03-12T14:00:00+01:00`. */
export const formatInstant = (instant: Date, timeZone: string): string => {
  const p = zonedParts(instant, timeZone)
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${
    formatOffset(offsetMinutes(timeZone, instant))
  }`
}

/** The instant of a local date and `HH:MM` time in the zone (the earlier one in a DST overlap). */
export const localInstant = (date: LocalDate, time: string, timeZone: string): Date => {
  const naive = Date.parse(`${date}T${time}:00Z`)
  const firstGuess = naive - offsetMinutes(timeZone, new Date(naive)) * 60_000
  return new Date(naive - offsetMinutes(timeZone, new Date(firstGuess)) * 60_000)
}
