/* The booking page's results: the offers of POST /v1/quotes as cards grouped by room type, and,
   when nothing fits, why for each room type. Every figure is the quote's own: the page adds
   nothing up. */
import { el } from "./guest-dom.js"
import { fmtDateTime } from "./guest-format.js"
import { priceTable, reasonText } from "./guest-summary.js"
import { t } from "./guest-text.js"


/** Whether the quote's promo code is among the promotions this offer applies. */
const appliesCode = (quote, offer) =>
  Boolean(quote.promo_code && quote.promo_code.applied && offer.promotions.some((p) => p.toUpperCase() === quote.promo_code.code.toUpperCase()))

/** One offer as a card (its id names its rate plan: one offer per plan in a quote): what it includes, its cancellation, its price as the quote gives it, and the button that books it. */
function offerCard(quote, offer, id, choose) {
  const { price } = offer
  const titleId = `${id}-title`
  return el(
    "li",
    { class: "card offer", id, "data-package": offer.package_code },
    el("h3", { id: titleId }, offer.name),
    offer.description ? el("p", { class: "note" }, offer.description) : null,
    el(
      "ul",
      { class: "includes" },
      el("li", null, offer.breakfast_included ? t("breakfast") : t("noBreakfast")),
      el("li", null, offer.refundable ? t("refundable") : t("nonRefundable"))
    ),
    el(
      "p",
      { class: "policy" },
      offer.refundable && offer.free_cancellation_until
        ? t("freeUntil", { when: fmtDateTime(offer.free_cancellation_until) })
        : t("nonRefundablePolicy")
    ),
    priceTable(price, appliesCode(quote, offer) ? t("promoCodeApplied", quote.promo_code) : t("discount"), { class: "amount" }),
    quote.reservable
      ? el("button", { type: "button", class: "primary choose", "aria-describedby": titleId, onclick: (event) => choose(quote, offer, event.currentTarget) }, t("chooseOffer"))
      : null
  )
}

/**
 * The offers of each room type's quote, grouped under the room type's name: `groups` are
 * `{ type, quote }` in the order to show them; `preselect` a package_code shown first in its group.
 */
export function offerGroups(groups, preselect, choose) {
  return groups.map(({ type, quote }) => {
    // a preselected package (its code, or its rate plan's, which promotions do not change) first
    const chosen = (offer) => Number(offer.package_code === preselect || offer.rate_code === preselect)
    const offers = [...quote.package_offers].sort((a, b) => chosen(b) - chosen(a))
    return el(
      "section",
      { class: "room-group", id: `type-${type.id}`, "aria-labelledby": `type-${type.id}-title` },
      el("h2", { id: `type-${type.id}-title` }, type.name),
      type.description ? el("p", { class: "note" }, type.description) : null,
      el("ul", { class: "offers" }, offers.map((offer) => offerCard(quote, offer, `offer-${type.id}-${offer.rate_code}`, choose)))
    )
  })
}

/** Why each room type has nothing for this search: its quote's unavailable rooms, in words. */
export const unavailableReasons = (groups) =>
  el(
    "ul",
    { id: "reasons" },
    groups.map(({ type, quote }) => {
      const reasons = [...new Set(quote.unavailable_rooms.map((room) => reasonText(room, "changeReason_")))]
      return el("li", { "data-type": type.id }, el("strong", null, type.name), t("colon"), reasons.join("; "))
    })
  )
