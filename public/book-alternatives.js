/* When nothing fits: which stays to offer instead, from GET /v1/calendar's days. Pure (no DOM, no
   fetch), so it is unit-tested as it runs in the page. The calendar decides what is bookable; this
   only orders what it says. */
import { addDays, nightsBetween } from "./book-search.js"

/**
 * The arrival dates of the range to look in around `checkin`: `dates` of them (the calendar's most),
 * as many before it as after (the calendar answers the past ones `past`: the page needs no today).
 */
export function searchRange(checkin, dates) {
  const from = addDays(checkin, -Math.floor(dates / 2))
  return { from, to: addDays(from, dates - 1) }
}

/**
 * The bookable days nearest to `checkin`, at most `count`, nearest first; of two as near, the
 * earlier. The asked date itself is not one (it is what did not fit).
 */
export const nearestStays = (days, checkin, count) =>
  days
    .filter((day) => day.available && day.checkin !== checkin)
    .map((day) => ({ day, distance: Math.abs(nightsBetween(checkin, day.checkin)) }))
    .sort((a, b) => a.distance - b.distance || nightsBetween(b.day.checkin, a.day.checkin))
    .slice(0, count)
    .map(({ day }) => day)

/**
 * When no stay of the asked length can be had: the shortest longer stay the calendar's dates ask
 * for (their `min_stay`), to look again with; null when no date names one.
 */
export const shortestAllowed = (days, nights) => {
  const lengths = days.filter((day) => day.reason === "min_stay" && day.min_stay > nights).map((day) => day.min_stay)
  return lengths.length === 0 ? null : Math.min(...lengths)
}
