/* Formats of the guest pages, in the page's language. Dates and times are the hotel's local ones:
   their digits are shown, never converted. */
import { locale } from "./guest-text.js"

const wall = (iso) => {
  const m = /^(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d))?/.exec(iso || "")
  return m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +(m[4] || 0), +(m[5] || 0))) : null
}
const fmt = (iso, options) => {
  const date = wall(iso)
  return date ? new Intl.DateTimeFormat(locale(), { timeZone: "UTC", ...options }).format(date) : String(iso)
}
export const fmtDate = (iso) => fmt(iso, { weekday: "short", day: "numeric", month: "long", year: "numeric" })
export const fmtDateTime = (iso) => fmt(iso, { day: "numeric", month: "long", year: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
export const fmtTime = (hhmm) => fmt(`2000-01-01T${hhmm}`, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
export const money = (amount, currency) => new Intl.NumberFormat(locale(), { style: "currency", currency }).format(amount)
export const countryName = (code) => {
  try {
    return new Intl.DisplayNames([locale()], { type: "region" }).of(code) || code
  } catch {
    return code
  }
}
