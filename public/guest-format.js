/* Formats of the guest pages, in the page's language, as the service writes them (FORMATS of
   src/Domain/GuestFormats.ts). Dates and times are the hotel's local ones: their digits are shown,
   never converted. */
import { FORMATS } from "./guest-i18n.js"
import { language, locale, t } from "./guest-text.js"

const wall = (iso) => {
  const m = /^(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d))?/.exec(iso || "")
  return m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +(m[4] || 0), +(m[5] || 0))) : null
}
const fmt = (iso, options) => {
  const date = wall(iso)
  return date ? new Intl.DateTimeFormat(locale(), options).format(date) : String(iso)
}
/** A stay date, e.g. "Friday, 12 March 2027". */
export const fmtDate = (iso) => fmt(iso, FORMATS.date)
export const fmtTime = (hhmm) => fmt(`2000-01-01T${hhmm}`, FORMATS.time)
/** A deadline or an expiry (ISO with the hotel's offset), as it follows "until". */
export const fmtDateTime = (iso) => t("deadline", { day: fmt(iso, FORMATS.deadlineDay[language()]), time: fmt(iso, FORMATS.time) })
export const money = (amount, currency) => new Intl.NumberFormat(locale(), { style: "currency", currency }).format(amount)
export const countryName = (code) => {
  try {
    return new Intl.DisplayNames([locale()], { type: "region" }).of(code) || code
  } catch {
    return code
  }
}
/** A child's age; 0 is an infant under one. */
const age = (years) => (years === 0 ? t("infant") : t("age", { n: years }))
/** The guests of one room line, e.g. "2 adults, 1 child (aged 1) per room" (guestsSummary, roomGuests). */
export const roomGuests = (room) => {
  const ages = room.children_ages || []
  const adults = t("adults", { n: room.adults })
  const list = new Intl.ListFormat(locale(), { type: "conjunction" }).format(ages.map(age))
  const guests = ages.length === 0 ? adults : `${adults}, ${t("children", { n: ages.length })} (${t("ages", { list })})`
  return room.quantity > 1 ? `${guests} ${t("perRoom")}` : guests
}
