import { GUEST_CATALOG, LOCALES, say } from "./GuestTexts.js"
import type { Language } from "./Language.js"
import { formatInstant, type LocalDate } from "./LocalDate.js"
import { asOneLine } from "./Text.js"

/*
 * How the service writes dates, times, money, guests and counts to a guest, in each language: the
 * confirmation PDF and the emails call these; the guest pages apply the same `FORMATS` and catalog
 * (generated into /assets/guest-i18n.js) to what the API answers.
 */

/**
 * The Intl options of each kind of value. A stay date is a calendar day and a deadline the hotel's
 * wall clock: both are formatted in UTC from their digits, never converted again. Russian puts a
 * deadline after "до", which takes the genitive a weekday name would need: the date alone reads right.
 */
const DAY = { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" } as const
const WEEKDAY_AND_DAY = { weekday: "long", ...DAY } as const
export const FORMATS = {
  date: WEEKDAY_AND_DAY,
  deadlineDay: { en: WEEKDAY_AND_DAY, fr: WEEKDAY_AND_DAY, ru: DAY },
  time: { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone: "UTC" }
} as const satisfies {
  readonly date: Intl.DateTimeFormatOptions
  readonly deadlineDay: Record<Language, Intl.DateTimeFormatOptions>
  readonly time: Intl.DateTimeFormatOptions
}

const at = (isoDate: string, hhmm = "00:00") => new Date(`${isoDate}T${hhmm}:00Z`)

/** A stay date, long, e.g. "Friday, 12 March 2027", "vendredi 12 mars 2027". */
export const formatDate = (date: LocalDate, language: Language): string =>
  new Intl.DateTimeFormat(LOCALES[language], FORMATS.date).format(at(date))

/** A time of day `HH:MM`, e.g. "14:00". */
export const formatTime = (hhmm: string, language: Language): string =>
  new Intl.DateTimeFormat(LOCALES[language], FORMATS.time).format(at("2000-01-01", hhmm))

/** The day a stay starts or ends with the hotel's time on it: "Friday, 12 March 2027, from 14:00", "…, by 12:00". */
export const formatStayDay = (day: "arrivalOn" | "departureOn", date: LocalDate, time: string, language: Language): string =>
  say(language, day, { date: formatDate(date, language), time: formatTime(time, language) })

/** The wall clock of `instant` (ISO with offset) in `timeZone`: `YYYY-MM-DD` and `HH:MM`. */
const wallClock = (instant: string, timeZone: string): { readonly date: string; readonly time: string } => {
  const local = formatInstant(new Date(instant), timeZone)
  return { date: local.slice(0, 10), time: local.slice(11, 16) }
}

/**
 * An instant (ISO with offset) in hotel time, as it follows "until": "14:00 on Wednesday,
 * 10 March 2027", "mercredi 10 mars 2027 à 14:00", "14:00 10 марта 2027 г.".
 */
export const formatDeadline = (instant: string, timeZone: string, language: Language): string => {
  const wall = wallClock(instant, timeZone)
  return say(language, "deadline", {
    day: new Intl.DateTimeFormat(LOCALES[language], FORMATS.deadlineDay[language]).format(at(wall.date)),
    time: formatTime(wall.time, language)
  })
}

/**
 * The free-cancellation terms in a sentence: "Free cancellation until <deadline>." on a refundable
 * rate, else the non-refundable policy.
 */
export const cancellationTerms = (
  policies: { readonly refundable: boolean; readonly free_cancellation_until: string | null },
  timeZone: string,
  language: Language
): string =>
  policies.refundable && policies.free_cancellation_until !== null
    ? say(language, "freeUntil", { when: formatDeadline(policies.free_cancellation_until, timeZone, language) })
    : GUEST_CATALOG[language].nonRefundablePolicy

/** The guest's requests ticked at completion, one label each, in the form's order. */
export const guestRequests = (
  guest: { readonly baby_cot: boolean; readonly early_check_in_request: boolean; readonly late_check_out_request: boolean },
  language: Language
): ReadonlyArray<string> =>
  (["baby_cot", "early_check_in_request", "late_check_out_request"] as const)
    .filter((field) => guest[field])
    .map((field) => GUEST_CATALOG[language][field])

/** The label of the promo code's discount, as the confirmation PDF, the emails and the pages write it. */
export const promoCodeLabel = (promo: { readonly code: string; readonly name: string }, language: Language): string =>
  say(language, "promoCodeLine", { code: promo.code, name: promo.name })

/** An amount in cents, e.g. "€1,234.50", "1 234,50 €". */
export const formatMoney = (cents: number, currency: string, language: Language): string =>
  new Intl.NumberFormat(LOCALES[language], { style: "currency", currency }).format(cents / 100)

/** The number of nights, e.g. "3 nights", "3 ночи". */
export const formatNights = (nights: number, language: Language): string => say(language, "nights", { n: nights })

/** A child's age; 0 is an infant under one. */
const formatAge = (years: number, language: Language): string =>
  years === 0 ? GUEST_CATALOG[language].infant : say(language, "age", { n: years })

/** The guests of one room, e.g. "2 adults, 1 child (aged 1)", "2 взрослых, 1 ребёнок (1 год)". */
export const guestsSummary = (
  room: { readonly adults: number; readonly children_ages: ReadonlyArray<number> },
  language: Language
): string => {
  const adults = say(language, "adults", { n: room.adults })
  if (room.children_ages.length === 0) return adults
  const list = new Intl.ListFormat(LOCALES[language], { type: "conjunction" })
    .format(room.children_ages.map((years) => formatAge(years, language)))
  return `${adults}, ${say(language, "children", { n: room.children_ages.length })} (${say(language, "ages", { list })})`
}

/** The guests of a room line: those of each room, "per room" when it books several. */
export const roomGuests = (
  room: { readonly quantity: number; readonly adults: number; readonly children_ages: ReadonlyArray<number> },
  language: Language
): string => {
  const guests = guestsSummary(room, language)
  return room.quantity > 1 ? `${guests} ${GUEST_CATALOG[language].perRoom}` : guests
}

/** The guest's full name, e.g. "Ana García", on one line whatever was stored. */
export const guestName = (guest: { readonly first_name: string; readonly last_name: string }): string =>
  asOneLine(`${guest.first_name} ${guest.last_name}`)

/** A country code's name, e.g. "ES" → "Spain", "Espagne", "Испания". */
export const formatCountry = (code: string, language: Language): string =>
  new Intl.DisplayNames(LOCALES[language], { type: "region" }).of(code) ?? code
