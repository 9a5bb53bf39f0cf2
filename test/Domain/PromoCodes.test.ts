import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import type { HotelDefinition, PromoCodeDefinition } from "../../src/Domain/Hotel.js"
import type { PromotionCode, RateCode, RoomTypeId } from "../../src/Domain/Ids.js"
import { daysBetween, type LocalDate } from "../../src/Domain/LocalDate.js"
import { priceStay, type PricingOutcome, type RoomLine } from "../../src/Domain/Pricing.js"
import {
  appliedPromoCode,
  findPromoCode,
  fitsStay,
  invalidPromoCode,
  normalizePromoCode,
  refusalOf
} from "../../src/Domain/PromoCodes.js"
import { type PackageOffer, PromoCodeInput } from "../../src/Domain/Quote.js"
import type { Stay } from "../../src/Domain/Stay.js"
import { bookedOnly, demoHotel } from "../support/hotel.js"

const date = (s: string) => s as LocalDate
const stayOf = (checkin: string, checkout: string, daysAhead = 10): Stay => ({
  checkin: date(checkin),
  checkout: date(checkout),
  nights: daysBetween(date(checkin), date(checkout)),
  daysAhead
})
const double: RoomLine = { room_type_id: "double" as RoomTypeId, quantity: 1, adults: 2, children_ages: [], rate_code: null }
const direct12 = findPromoCode(demoHotel, "DIRECT12")!

/** A code of a test hotel: 20 % off, with whatever limits the test sets. */
const code = (fields: Partial<PromoCodeDefinition> = {}): PromoCodeDefinition => ({
  code: "SPRING" as PromotionCode,
  name: { en: "Spring code", fr: "Code printemps", ru: "Весенний код" },
  discount_percent: 20,
  min_nights: 1,
  active: true,
  ...fields
})
const hotelWith = (...promo_codes: ReadonlyArray<PromoCodeDefinition>): HotelDefinition => ({ ...demoHotel, promo_codes })

const offersOf = (outcome: PricingOutcome): Record<string, PackageOffer> => {
  if (outcome._tag !== "Available") throw new Error(`expected offers, got ${JSON.stringify(outcome.rooms)}`)
  return Object.fromEntries(outcome.offers.map((o) => [o.rate_code, o]))
}
const price = (stay: Stay, promoCode: PromoCodeDefinition | null, hotel: HotelDefinition = demoHotel, rooms = [double]) =>
  offersOf(priceStay({ hotel, stay, rooms, nights: bookedOnly(() => 0), promoCode }))

// Thursday 2027-03-11 to Sunday 2027-03-14, low season: the double 110.00, 130.00, 130.00 on FLEX
const march = stayOf("2027-03-11", "2027-03-14")

describe("the promo_code a request carries", () => {
  it("a string of at most 40 characters of storable text; anything else is refused by the schema (a 400, never a 500)", () => {
    const decode = Schema.decodeUnknownResult(PromoCodeInput)
    for (const ok of ["DIRECT12", "direct12", "", "D".repeat(40), " Direct12 "]) expect(Result.isSuccess(decode(ok))).toBe(true)
    for (const bad of ["D".repeat(41), 2 ** 31, 2 ** 53, 12, null, ["DIRECT12"], "DIRECT\u000012", "\uD800"]) {
      expect(Result.isFailure(decode(bad))).toBe(true)
    }
  })
})

describe("finding and refusing a code", () => {
  it("a code is matched in any case, surrounding spaces ignored", () => {
    expect(normalizePromoCode("  direct12 ")).toBe("DIRECT12")
    expect(findPromoCode(demoHotel, "direct12")).toBe(direct12)
    expect(findPromoCode(demoHotel, " Direct12\t")).toBe(direct12)
    expect(findPromoCode(demoHotel, "DIRECT1")).toBeUndefined()
    expect(findPromoCode(demoHotel, "EARLY_BOOKING")).toBeUndefined()
    expect(findPromoCode(hotelWith(code({ code: "Spring" as PromotionCode })), "SPRING")?.code).toBe("Spring")
  })

  it("DIRECT12 of the demo hotel may be used on any day, however often it was", () => {
    expect(refusalOf(direct12, date("2026-11-22"), 0)).toBeUndefined()
    expect(refusalOf(direct12, date("2030-01-01"), 1_000_000)).toBeUndefined()
  })

  it("not_active when switched off, or today is outside booking_from..booking_until (both days included)", () => {
    const windowed = code({ booking_from: date("2027-01-10"), booking_until: date("2027-01-20") })
    expect(refusalOf(code({ active: false }), date("2027-01-15"), 0)).toBe("not_active")
    expect(refusalOf(windowed, date("2027-01-09"), 0)).toBe("not_active")
    expect(refusalOf(windowed, date("2027-01-10"), 0)).toBeUndefined()
    expect(refusalOf(windowed, date("2027-01-20"), 0)).toBeUndefined()
    expect(refusalOf(windowed, date("2027-01-21"), 0)).toBe("not_active")
    expect(refusalOf(code({ booking_until: date("2027-01-20") }), date("2026-01-01"), 0)).toBeUndefined()
    // not usable today is said before used up
    expect(refusalOf({ ...windowed, max_uses: 1 }, date("2027-01-21"), 5)).toBe("not_active")
  })

  it("used_up once the completed, not cancelled uses reach max_uses", () => {
    const limited = code({ max_uses: 3 })
    expect(refusalOf(limited, date("2027-01-15"), 2)).toBeUndefined()
    expect(refusalOf(limited, date("2027-01-15"), 3)).toBe("used_up")
    expect(refusalOf(limited, date("2027-01-15"), 4)).toBe("used_up")
  })

  it("the refusal says the code in the hotel's spelling and its reason", () => {
    const refused = invalidPromoCode(" direct12 ", "used_up")
    expect(refused.reason).toBe("used_up")
    expect(refused.message).toContain("promo_code: \"DIRECT12\"")
  })
})

describe("whether a code fits a stay and plan", () => {
  it("min_nights: DIRECT12 from 2 nights", () => {
    expect(fitsStay(direct12, stayOf("2027-03-11", "2027-03-12"), "FLEX" as RateCode)).toBe(false)
    expect(fitsStay(direct12, stayOf("2027-03-11", "2027-03-13"), "FLEX" as RateCode)).toBe(true)
  })

  it("every night within stay_from..stay_until: the checkout day is no night", () => {
    const nights = (from: string, until: string) => fitsStay(code({ stay_from: date(from), stay_until: date(until) }), march, "FLEX" as RateCode)
    expect(nights("2027-03-11", "2027-03-13")).toBe(true)
    expect(nights("2027-03-12", "2027-03-13")).toBe(false)
    expect(nights("2027-03-11", "2027-03-12")).toBe(false)
    expect(fitsStay(code({ stay_until: date("2027-03-13") }), march, "FLEX" as RateCode)).toBe(true)
    expect(fitsStay(code({ stay_from: date("2027-03-12") }), march, "FLEX" as RateCode)).toBe(false)
  })

  it("rate_codes: only the plans it names; absent, every plan", () => {
    const nrfOnly = code({ rate_codes: ["NRF" as RateCode] })
    expect(fitsStay(nrfOnly, march, "NRF" as RateCode)).toBe(true)
    expect(fitsStay(nrfOnly, march, "FLEX" as RateCode)).toBe(false)
    expect(fitsStay(code(), march, "FLEX_BB" as RateCode)).toBe(true)
  })
})

describe("a code in pricing: one more candidate promotion, the best single one applies", () => {
  it("DIRECT12 on 3 nights: 12 % off every night line, named in the package and the promotions", () => {
    const offers = price(march, direct12)
    // 12 %: 13.20 + 15.60 + 15.60 = 44.40; tax 2 × 3 × 2.88 = 17.28; 370.00 - 44.40 + 17.28 = 342.88
    expect(offers.FLEX).toMatchObject({
      package_code: "FLEX.DIRECT12",
      promotions: ["DIRECT12"],
      price: { room_total: 37000, promotion_discount: 4440, tourist_tax: 1728, total: 34288 }
    })
    expect(Object.values(offers).map((o) => o.package_code)).toEqual(["FLEX.DIRECT12", "FLEX_BB.DIRECT12", "NRF.DIRECT12"])
    expect(Object.values(offers).map((o) => appliedPromoCode(demoHotel, o))).toEqual(["DIRECT12", "DIRECT12", "DIRECT12"])
  })

  it("a code that does not fit changes nothing: DIRECT12 on one night", () => {
    const oneNight = stayOf("2027-03-11", "2027-03-12")
    expect(price(oneNight, direct12)).toEqual(price(oneNight, null))
    expect(Object.values(price(oneNight, direct12)).map((o) => appliedPromoCode(demoHotel, o))).toEqual([null, null, null])
  })

  it("only the plans the code names get it", () => {
    const promo = code({ rate_codes: ["NRF" as RateCode] })
    const offers = price(march, promo, hotelWith(promo))
    expect([offers.FLEX!.promotions, offers.FLEX_BB!.promotions, offers.NRF!.promotions]).toEqual([[], [], ["SPRING"]])
  })

  it("DIRECT12 (12 %) beats EARLY_BOOKING (10 %); LONG_STAY (15 %) beats DIRECT12", () => {
    expect(price({ ...march, daysAhead: 60 }, direct12).FLEX!.promotions).toEqual(["DIRECT12"])
    expect(price({ ...march, daysAhead: 60 }, null).FLEX!.promotions).toEqual(["EARLY_BOOKING"])
    const week = stayOf("2027-11-01", "2027-11-08", 60)
    expect(price(week, direct12).FLEX).toMatchObject({ package_code: "FLEX.LONG_STAY", promotions: ["LONG_STAY"] })
  })

  it("on a tie the automatic promotion applies, not the code", () => {
    const tie = code({ discount_percent: 10 })
    const early = { ...march, daysAhead: 60 }
    expect(price(early, tie, hotelWith(tie)).FLEX!.promotions).toEqual(["EARLY_BOOKING"])
    const better = code({ discount_percent: 11 })
    expect(price(early, better, hotelWith(better)).FLEX!.promotions).toEqual(["SPRING"])
  })

  it("a 100 % code makes the rooms free, the tourist tax stays", () => {
    const free = code({ discount_percent: 100 })
    expect(price(march, free, hotelWith(free)).FLEX!.price).toMatchObject({ promotion_discount: 37000, total: 1728 })
  })
})
