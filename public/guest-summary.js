/* The reservation's summary, as both guest pages show it: stay, rooms, package, price, policies. */
import { el } from "./guest-dom.js"
import { fmtDate, fmtDateTime, fmtTime, money, roomGuests } from "./guest-format.js"
import { hasText, t } from "./guest-text.js"

export const fact = (term, value) => [el("dt", null, term), el("dd", null, value)]

/** A stay date, and the hotel's time on it when the stay says it: "Friday, 12 March 2027, from 14:00". */
const dayAt = (key, date, time) => (time ? t(key, { date: fmtDate(date), time: fmtTime(time) }) : fmtDate(date))

/** Arrival, departure and length of a stay, as terms and values of a list of facts. */
export const stayFacts = (stay) =>
  [
    fact(t("arrival"), dayAt("arrivalOn", stay.checkin, stay.check_in_time)),
    fact(t("departure"), dayAt("departureOn", stay.checkout, stay.check_out_time)),
    fact(t("length"), t("nights", { n: stay.nights }))
  ].flat()

/** A room request as a list item: its name ({room_name}), guests and ages. */
export const roomLine = (room) => {
  const name = room.quantity > 1 ? `${room.quantity} × ${room.room_name}` : room.room_name
  return el("li", null, el("strong", null, name), ` — ${roomGuests(room)}`)
}

const priceRow = (label, value, cls) => el("tr", { class: cls }, el("th", { scope: "row" }, label), el("td", null, value))

/**
 * A price as a table, the quote's or the reservation's figures as they are (never added up here):
 * the discount's line named `discountLabel`, the total's amount with `totalAttributes`.
 */
export const priceTable = (price, discountLabel, totalAttributes) =>
  el(
    "table",
    { class: "price" },
    el(
      "tbody",
      null,
      priceRow(t("roomTotal"), money(price.room_total, price.currency)),
      price.promotion_discount > 0 ? priceRow(discountLabel, money(-price.promotion_discount, price.currency)) : null,
      priceRow(t("tax"), money(price.tourist_tax, price.currency)),
      priceRow(t("total"), el("span", totalAttributes, money(price.total, price.currency)), "total")
    )
  )

/** The stay, rooms, package, price and policies, in the reservation's language. */
export function summary(r) {
  const { stay, price, policies } = r
  const pkg = r.package
  return el(
    "section",
    { class: "card", id: "summary", "aria-labelledby": "summary-title" },
    el("h2", { id: "summary-title" }, t("yourStay")),
    el("dl", { class: "facts" }, stayFacts(stay)),
    el("h3", null, t("rooms")),
    el("ul", { class: "rooms" }, r.rooms.map(roomLine)),
    el("h3", null, t("package")),
    el("p", { id: "package" }, el("strong", null, pkg.name), pkg.description ? el("br") : null, pkg.description || null),
    el("p", { class: "note" }, `${pkg.breakfast_included ? t("breakfast") : t("noBreakfast")} · ${policies.refundable ? t("refundable") : t("nonRefundable")}`),
    el("h3", null, t("price")),
    priceTable(price, r.promo_code ? t("promoCodeLine", r.promo_code) : t("discount"), { id: "total" }),
    el("h3", null, t("cancellation")),
    policies.refundable && policies.free_cancellation_until
      ? el("p", { id: "free-until" }, t("freeUntil", { when: fmtDateTime(policies.free_cancellation_until) }))
      : el("p", { id: "non-refundable" }, t("nonRefundablePolicy")),
    policies.cancellation ? el("p", null, policies.cancellation) : null,
    el("p", null, el("span", { class: "badge" }, t("noPayment"))),
    policies.payment ? el("p", { class: "note" }, policies.payment) : null
  )
}

/**
 * Why a room request changed (an entry of a 409's error.details.rooms), in the page's language: the
 * page's own words (`prefix`) first, then the common ones; a stay length says its number of nights.
 */
export const reasonText = (room, prefix = "reason_") => {
  const key = [`${prefix}${room.reason}`, `reason_${room.reason}`].find(hasText)
  const bound = room.min_stay ?? room.max_stay
  return key === undefined ? "" : t(key, bound === undefined ? {} : { nights: t("nights", { n: bound }) })
}
