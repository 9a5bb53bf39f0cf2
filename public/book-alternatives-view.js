/* When nothing fits: the nearest stays the calendar can book, of the same length where one exists,
   else of the shortest length the dates allow, each one a link that opens its offers. */
import { el } from "./guest-dom.js"
import { fmtDate, money } from "./guest-format.js"
import { LIMITS } from "./guest-i18n.js"
import { t } from "./guest-text.js"
import { nearestStays, searchRange, shortestAllowed } from "./book-alternatives.js"
import { nightsBetween, searchParams } from "./book-search.js"

/** The calendar of `nights`-night stays around the search's arrival, for its first room's guests. */
const calendar = (search, nights, call) => {
  const { from, to } = searchRange(search.checkin, LIMITS.calendarDates)
  const room = search.rooms[0]
  const params = new URLSearchParams({ from, to, nights: String(nights), adults: String(room.adults), children_ages: room.children_ages.join(",") })
  if (search.room_type_id) params.set("room_type_id", search.room_type_id)
  if (search.promo) params.set("promo_code", search.promo)
  return call(`/v1/calendar?${params}`)
}

/** Fills `slot` with the alternatives of `search`; `call` makes a call of the page (a failed one is said, with a Try again). */
export async function showAlternatives(slot, search, { call, kept }) {
  const nights = nightsBetween(search.checkin, search.checkout)
  let answer = await calendar(search, nights, call)
  let length = nights
  if (answer.ok && nearestStays(answer.body.days, search.checkin, LIMITS.alternatives).length === 0) {
    const longer = shortestAllowed(answer.body.days, nights)
    if (longer !== null) {
      length = longer
      answer = await calendar(search, longer, call)
    }
  }
  if (!answer.ok) return slot.replaceChildren(el("p", null, t("failed")))
  const stays = nearestStays(answer.body.days, search.checkin, LIMITS.alternatives)
  if (stays.length === 0) return slot.replaceChildren(el("p", { id: "no-alternatives" }, t("noAlternatives")))
  const link = (day) => {
    const href = `/book?${searchParams({ ...search, checkin: day.checkin, checkout: day.checkout, package_code: null }, kept)}`
    const text = t("alternative", { date: fmtDate(day.checkin), nights: t("nights", { n: length }), price: money(day.lowest_total, answer.body.currency) })
    return el("li", null, el("a", { href }, text))
  }
  slot.replaceChildren(el("h3", { id: "alternatives-title" }, t("alternativesTitle")), el("ul", { class: "alternatives" }, stays.map(link)))
}
