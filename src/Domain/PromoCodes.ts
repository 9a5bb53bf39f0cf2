import { InvalidPromoCode, type PromoCodeRefusal } from "./Errors.js"
import type { HotelDefinition, PromoCodeDefinition } from "./Hotel.js"
import type { RateCode } from "./Ids.js"
import { addDays, type LocalDate } from "./LocalDate.js"
import type { PackageOffer } from "./Quote.js"
import type { Stay } from "./Stay.js"

/** The one spelling codes are compared in: typed codes and the hotel file's both pass here. */
export const normalizePromoCode = (code: string): string => code.trim().toUpperCase()

/** The hotel's code of that spelling, in any case. */
export const findPromoCode = (hotel: HotelDefinition, code: string): PromoCodeDefinition | undefined => {
  const wanted = normalizePromoCode(code)
  return hotel.promo_codes.find((promo) => normalizePromoCode(promo.code) === wanted)
}

/** Whether a code may be used today at all (before its uses are counted): switched on and within its booking dates. */
export const isUsableOn = (promo: PromoCodeDefinition, today: LocalDate): boolean =>
  promo.active &&
  (promo.booking_from === undefined || promo.booking_from <= today) &&
  (promo.booking_until === undefined || today <= promo.booking_until)

/** Whether uses so far leave one for this booking. */
export const hasUseLeft = (promo: PromoCodeDefinition, uses: number): boolean =>
  promo.max_uses === undefined || uses < promo.max_uses

/** Why a known code is refused today with these uses so far; undefined when it may be used. */
export const refusalOf = (promo: PromoCodeDefinition, today: LocalDate, uses: number): PromoCodeRefusal | undefined =>
  !isUsableOn(promo, today) ? "not_active" : !hasUseLeft(promo, uses) ? "used_up" : undefined

const REASON_TEXT: Record<PromoCodeRefusal, string> = {
  unknown: "is not a code of this hotel",
  not_active: "cannot be used today",
  used_up: "has been used as often as it may be"
}

/** The 400 answer for a refused code. */
export const invalidPromoCode = (code: string, reason: PromoCodeRefusal): InvalidPromoCode =>
  new InvalidPromoCode({
    message: `promo_code: "${normalizePromoCode(code)}" ${REASON_TEXT[reason]}; quote without it or ask the hotel`,
    reason
  })

/** Whether a usable code discounts this stay on this plan: enough nights, every night in its stay dates, a plan it names. */
export const fitsStay = (promo: PromoCodeDefinition, stay: Stay, rateCode: RateCode): boolean =>
  stay.nights >= promo.min_nights &&
  (promo.stay_from === undefined || promo.stay_from <= stay.checkin) &&
  (promo.stay_until === undefined || addDays(stay.checkout, -1) <= promo.stay_until) &&
  (promo.rate_codes === undefined || promo.rate_codes.includes(rateCode))

/** The hotel's promo code an offer applies: the one of its promotions that is a code of the hotel. */
export const promoCodeOfOffer = (hotel: HotelDefinition, offer: PackageOffer): PromoCodeDefinition | undefined =>
  offer.promotions.map((code) => findPromoCode(hotel, code)).find((promo) => promo !== undefined)

/** The code a reservation keeps of its offer (normalised), or null. */
export const appliedPromoCode = (hotel: HotelDefinition, offer: PackageOffer): string | null => {
  const promo = promoCodeOfOffer(hotel, offer)
  return promo === undefined ? null : normalizePromoCode(promo.code)
}
