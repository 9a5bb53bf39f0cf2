/* When nothing fits: the nearest stays the calendar can book, of the same length where one exists,
   else of the shortest length the dates allow, each one a link that opens its offers. */
import { callJson } from "./guest-api.js"
import { el } from "./guest-dom.js"
import { fmtDate, money } from "./guest-format.js"
import { LIMITS } from "./guest-i18n.js"
import { t } from "./guest-text.js"
import { nearestStays, searchRange, shortestAllowed } from "./book-alternatives.js"
import { nightsBetween, searchParams } from "./book-search.js"

/** The calendar of `nights`-night stays around the search's arrival, for its first room's guests. */
const calendar = (search, nights, headers) => {
  const { from, to } = searchRange(search.checkin, LIMITS.calendarDates)
  const room = search.rooms[0]
  const params = new URLSearchParams({ from, to, nights: String(nights), adults: String(room.adults), children_ages: room.children_ages.join(",") })
  if (search.room_type_id) params.set("room_type_id", search.room_type_id)
  if (search.promo) params.set("promo_code", search.promo)
  return callJson(`/v1/calendar?${params}`, { headers })
}

/** Fills `slot` with the alternatives of `search`; a failed call is shown with a way to try it again. */
export async function showAlternatives(slot, search, { headers, kept }) {
  const nights = nightsBetween(search.checkin, search.checkout)
  let answer = await calendar(search, nights, headers)
  let length = nights
  if (answer.ok && nearestStays(answer.body.days, search.checkin, LIMITS.alternatives).length === 0) {
    const longer = shortestAllowed(answer.body.days, nights)
    if (longer !== null) {
      length = longer
      answer = await calendar(search, longer, headers)
    }
  }
  if (!answer.ok) {
    const retry = el("button", { type: "button", class: "secondary", id: "alternatives-retry", onclick: () => showAlternatives(slot, search, { headers, kept }) }, t("retry"))
    return slot.replaceChildren(el("p", null, t("bookLoadError")), el("p", null, retry))
  }
  const stays = nearestStays(answer.body.days, search.checkin, LIMITS.alternatives)
  if (stays.length === 0) return slot.replaceChildren(el("p", { id: "no-alternatives" }, t("noAlternatives")))
  const link = (day) => {
    const href = `/book?${searchParams({ ...search, checkin: day.checkin, checkout: day.checkout, package_code: null }, kept)}`
    const text = t("alternative", { date: fmtDate(day.checkin), nights: t("nights", { n: length }), price: money(day.lowest_total, answer.body.currency) })
    return el("li", null, el("a", { href }, text))
  }
  slot.replaceChildren(el("h3", { id: "alternatives-title" }, t("alternativesTitle")), el("ul", { class: "alternatives" }, stays.map(link)))
}
