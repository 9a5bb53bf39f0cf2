import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import fc from "fast-check"
import type { ValidationError } from "../../src/Domain/Errors.js"
import type { HotelDefinition } from "../../src/Domain/Hotel.js"
import type { RateCode, RoomTypeId } from "../../src/Domain/Ids.js"
import { daysBetween, fromEpochDay, type LocalDate, nightsOf, toEpochDay } from "../../src/Domain/LocalDate.js"
import { percentOf } from "../../src/Domain/Money.js"
import { fitsRoom } from "../../src/Domain/Occupancy.js"
import {
  type PricingOutcome,
  priceStay,
  type RoomLine,
  singleRoomLine,
  validateRooms
} from "../../src/Domain/Pricing.js"
import type { PackageOffer, SingleRoomQuoteRequest } from "../../src/Domain/Quote.js"
import type { Stay } from "../../src/Domain/Stay.js"
import { bookedOnly, demoHotel as hotel } from "../support/hotel.js"
import { prop } from "./prop.js"

// --- helpers -----------------------------------------------------------------

const date = (s: string) => s as LocalDate

const stayOf = (checkin: string, checkout: string, daysAhead: number): Stay => ({
  checkin: date(checkin),
  checkout: date(checkout),
  nights: daysBetween(date(checkin), date(checkout)),
  daysAhead
})

const line = (
  room: string,
  adults: number,
  children_ages: ReadonlyArray<number> = [],
  rate: string | null = null,
  quantity = 1
): RoomLine => ({ room_type_id: room as RoomTypeId, quantity, adults, children_ages, rate_code: rate as RateCode | null })

type Booked = (roomTypeId: RoomTypeId, night: LocalDate) => number
const noBookings: Booked = () => 0

const quote = (stay: Stay, rooms: ReadonlyArray<RoomLine>, booked: Booked = noBookings, h: HotelDefinition = hotel) =>
  priceStay({ hotel: h, stay, rooms, nights: bookedOnly(booked) })

/** The offers of an available outcome, by rate code. */
const offersOf = (outcome: PricingOutcome): Record<string, PackageOffer> => {
  if (outcome._tag !== "Available") throw new Error(`expected offers, got ${JSON.stringify(outcome.rooms)}`)
  return Object.fromEntries(outcome.offers.map((o) => [o.rate_code, o]))
}

const price = (room_total: number, promotion_discount: number, tourist_tax: number, total: number) => ({
  room_total,
  promotion_discount,
  tourist_tax,
  total,
  currency: "EUR"
})

const errorOf = <A>(result: Result.Result<A, ValidationError>): ValidationError => {
  if (Result.isSuccess(result)) throw new Error("expected a ValidationError")
  return result.failure
}

/** A copy of the demo hotel with some fields replaced. */
const withHotel = (patch: Partial<HotelDefinition>): HotelDefinition => ({ ...hotel, ...patch })

// Thursday 2027-03-11 to Sunday 2027-03-14: nights Thu, Fri, Sat, all low season (double 110 €).
const march = stayOf("2027-03-11", "2027-03-14", 10)

// --- singleRoomLine ------------------------------------------------------------

describe("singleRoomLine", () => {
  const request = (fields: Partial<SingleRoomQuoteRequest>): SingleRoomQuoteRequest => ({
    checkin: date("2027-03-12"),
    checkout: date("2027-03-15"),
    adults: 2,
    children: 0,
    room_type_id: "double" as RoomTypeId,
    ...fields
  })

  it("makes one room line, rate code or null", () => {
    expect(singleRoomLine(request({ children: 1, children_ages: [1], rate_code: "NRF" as RateCode }))).toEqual(
      Result.succeed(line("double", 2, [1], "NRF"))
    )
    expect(singleRoomLine(request({}))).toEqual(Result.succeed(line("double", 2, [], null)))
    expect(singleRoomLine(request({ children_ages: [] }))).toEqual(Result.succeed(line("double", 2, [], null)))
  })

  it.each([
    { children: 1, children_ages: undefined },
    { children: 2, children_ages: [4] },
    { children: 0, children_ages: [4] }
  ])("rejects children $children with ages $children_ages: children_ages_mismatch", ({ children, children_ages }) => {
    const error = errorOf(singleRoomLine(request(children_ages === undefined ? { children } : { children, children_ages })))
    expect(error.code).toBe("children_ages_mismatch")
    expect(error.message).toMatch(/\bchildren\b/)
    expect(error.message).toContain("children_ages")
  })
})

// --- validateRooms -------------------------------------------------------------

describe("validateRooms", () => {
  it("accepts known rooms and plans within occupancy, an infant beyond 2 guests included", () => {
    expect(validateRooms(hotel, [line("double", 2, [1], "FLEX"), line("deluxe", 1, [17]), line("twin", 1, [0], "NRF", 3)]))
      .toEqual(Result.void)
  })

  it("unknown_room_type names the field and the known ids", () => {
    const error = errorOf(validateRooms(hotel, [line("double", 2), line("suite", 2)]))
    expect(error.code).toBe("unknown_room_type")
    expect(error.message).toContain("rooms[1].room_type_id")
    expect(error.message).toContain("double, twin, deluxe")
  })

  it("unknown_rate_code for an unknown or inactive plan", () => {
    const unknown = errorOf(validateRooms(hotel, [line("double", 2, [], "BOGUS")]))
    expect(unknown.code).toBe("unknown_rate_code")
    expect(unknown.message).toContain("rooms[0].rate_code")
    expect(unknown.message).toContain("FLEX, FLEX_BB, NRF")

    const noNrf = withHotel({ rate_plans: hotel.rate_plans.map((p) => p.code === "NRF" ? { ...p, active: false } : p) })
    const inactive = errorOf(validateRooms(noNrf, [line("double", 2, [], "NRF")]))
    expect(inactive.code).toBe("unknown_rate_code")
    expect(inactive.message).not.toContain("NRF;")
    expect(inactive.message).toContain("FLEX, FLEX_BB")
  })

  it.each([
    { adults: 2, ages: [5] },
    { adults: 2, ages: [0, 1] },
    { adults: 1, ages: [12, 3] }
  ])("occupancy_exceeded for $adults adults and children $ages", ({ adults, ages }) => {
    const error = errorOf(validateRooms(hotel, [line("twin", 1), line("double", adults, ages)]))
    expect(error.code).toBe("occupancy_exceeded")
    expect(error.message).toContain("rooms[1]")
    expect(error.message).toContain("at most 2 guests")
    expect(error.message).toContain("infant under 2")
  })

  it("reports the first problem, line by line", () => {
    expect(errorOf(validateRooms(hotel, [line("double", 2, [], "BOGUS"), line("suite", 2)])).code).toBe("unknown_rate_code")
    expect(errorOf(validateRooms(hotel, [line("double", 2, [5]), line("suite", 2)])).code).toBe("occupancy_exceeded")
    expect(errorOf(validateRooms(hotel, [line("suite", 2, [5, 6], "BOGUS")])).code).toBe("unknown_room_type")
    expect(errorOf(validateRooms(hotel, [line("double", 2, [5], "BOGUS")])).code).toBe("unknown_rate_code")
  })
})

// --- priceStay: hand-computed examples -------------------------------------------

describe("priceStay examples (demo hotel)", () => {
  it("double, 2 adults, Thu–Sun in March: FLEX, FLEX_BB, NRF", () => {
    const offers = offersOf(quote(march, [line("double", 2)]))
    expect(Object.keys(offers)).toEqual(["FLEX", "FLEX_BB", "NRF"])
    // FLEX: Thu 110 + Fri (110 + 20) + Sat (110 + 20) = 370.00; tax 2 adults × 3 nights × 2.88 = 17.28
    expect(offers.FLEX!.price).toEqual(price(37000, 0, 1728, 38728))
    // FLEX_BB: 370.00 + 2 adults × 3 nights × 16.00 = 466.00; + 17.28 = 483.28
    expect(offers.FLEX_BB!.price).toEqual(price(46600, 0, 1728, 48328))
    // NRF: 12 % off each night: 110 - 13.20 = 96.80; 130 - 15.60 = 114.40 (×2) → 325.60; + 17.28 = 342.88
    expect(offers.NRF!.price).toEqual(price(32560, 0, 1728, 34288))
  })

  it("offer details come from the plan; cancellation two days before check-in at 14:00 hotel time", () => {
    const offers = offersOf(quote(march, [line("double", 2)]))
    expect(offers.FLEX_BB).toMatchObject({
      package_code: "FLEX_BB",
      name: "Flexible with breakfast",
      breakfast_included: true,
      refundable: true,
      free_cancellation_until: "2027-03-09T14:00:00+01:00",
      promotions: []
    })
    expect(offers.NRF).toMatchObject({ package_code: "NRF", refundable: false, free_cancellation_until: null })
    // summer time: the offset follows the date
    const july = offersOf(quote(stayOf("2027-07-01", "2027-07-03", 10), [line("double", 2)]))
    expect(july.FLEX!.free_cancellation_until).toBe("2027-06-29T14:00:00+02:00")
  })

  it("LONG_STAY: 7 nights, twin, 1 adult", () => {
    // Mon 2027-11-01 to Mon 2027-11-08, low season: 5 × 120 + Fri, Sat 2 × 140 = 880.00
    const offers = offersOf(quote(stayOf("2027-11-01", "2027-11-08", 20), [line("twin", 1)]))
    // FLEX: 15 % per night: 5 × 18.00 + 2 × 21.00 = 132.00; tax 7 × 2.88 = 20.16; 880 - 132 + 20.16 = 768.16
    expect(offers.FLEX!.price).toEqual(price(88000, 13200, 2016, 76816))
    expect(offers.FLEX).toMatchObject({ package_code: "FLEX.LONG_STAY", promotions: ["LONG_STAY"] })
    // NRF: nights 105.60 (5×) and 123.20 (2×) = 774.40; 15 %: 5 × 15.84 + 2 × 18.48 = 116.16; 774.40 - 116.16 + 20.16 = 678.40
    expect(offers.NRF!.price).toEqual(price(77440, 11616, 2016, 67840))
    expect(offers.NRF!.package_code).toBe("NRF.LONG_STAY")
  })

  it("EARLY_BOOKING: 45+ days ahead; LONG_STAY wins when both apply", () => {
    const offers = offersOf(quote({ ...march, daysAhead: 60 }, [line("double", 2)]))
    // FLEX_BB night lines 142.00, 162.00, 162.00 = 466.00; 10 %: 14.20 + 16.20 + 16.20 = 46.60
    // 466.00 - 46.60 + 17.28 = 436.68
    expect(offers.FLEX_BB!.price).toEqual(price(46600, 4660, 1728, 43668))
    expect(offers.FLEX_BB).toMatchObject({ package_code: "FLEX_BB.EARLY_BOOKING", promotions: ["EARLY_BOOKING"] })
    // 44 days ahead: no promotion
    expect(offersOf(quote({ ...march, daysAhead: 44 }, [line("double", 2)])).FLEX!.promotions).toEqual([])
    // 7 nights, 60 days ahead: 15 % beats 10 %: 880.00 → 132.00 off
    const both = offersOf(quote(stayOf("2027-11-01", "2027-11-08", 60), [line("twin", 1)]))
    expect(both.FLEX!.promotions).toEqual(["LONG_STAY"])
    expect(both.FLEX!.price.promotion_discount).toBe(13200)
  })

  it("a tie between promotions keeps the first in file order", () => {
    const tie = withHotel({ promotions: hotel.promotions.map((p) => ({ ...p, discount_percent: 10 })) })
    const offers = offersOf(quote(stayOf("2027-11-01", "2027-11-08", 60), [line("twin", 1)], noBookings, tie))
    expect(offers.FLEX!.promotions).toEqual(["EARLY_BOOKING"])
  })

  it("breakfast by age: infant free, child 2–11 8 €, from 12 16 €; children pay no tax", () => {
    // 1 adult + infant 1 + child 7 in a double: breakfast 16 + 0 + 8 = 24.00 a night
    const offers = offersOf(quote(march, [line("double", 1, [1, 7])]))
    // FLEX: 370.00; tax 1 adult × 3 × 2.88 = 8.64
    expect(offers.FLEX!.price).toEqual(price(37000, 0, 864, 37864))
    // FLEX_BB: 370.00 + 3 × 24.00 = 442.00; + 8.64 = 450.64
    expect(offers.FLEX_BB!.price).toEqual(price(44200, 0, 864, 45064))
    // boundaries: ages 2, 11, 12, 17 in single-child rooms, 3 nights
    const breakfast = (age: number) => {
      const o = offersOf(quote(march, [line("double", 1, [age])]))
      return (o.FLEX_BB!.price.room_total - o.FLEX!.price.room_total) / 3 - 1600
    }
    expect([0, 1, 2, 11, 12, 17].map(breakfast)).toEqual([0, 0, 800, 800, 1600, 1600])
  })

  it("demand surcharge: 10 of 12 doubles booked on Friday", () => {
    const booked: Booked = (room, night) => room === "double" && night === "2027-03-12" ? 10 : 0
    const offers = offersOf(quote(march, [line("double", 2)], booked))
    // 10 × 100 = 1000 ≥ 80 × 12 = 960: Friday 130.00 + 10 % = 143.00
    // FLEX: 110 + 143 + 130 = 383.00; + 17.28 = 400.28
    expect(offers.FLEX!.price).toEqual(price(38300, 0, 1728, 40028))
    // NRF: 96.80 + (143 - 17.16 = 125.84) + 114.40 = 337.04; + 17.28 = 354.32
    expect(offers.NRF!.price).toEqual(price(33704, 0, 1728, 35432))
    // 9 booked: 900 < 960, no surcharge
    const calm = offersOf(quote(march, [line("double", 2)], (room, night) => booked(room, night) - 1))
    expect(calm.FLEX!.price.room_total).toBe(37000)
  })

  it("tourist tax follows the period of each night across the new year", () => {
    // Thu 2026-12-31 (110, tax 2.60) and Fri 2027-01-01 (130, tax 2.88): 240.00; tax 2 × (2.60 + 2.88) = 10.96
    const offers = offersOf(quote(stayOf("2026-12-31", "2027-01-02", 10), [line("double", 2)]))
    expect(offers.FLEX!.price).toEqual(price(24000, 0, 1096, 25096))
  })

  it("several rooms are priced together", () => {
    // 2 doubles: 2 × 370.00; twin: 120 + 140 + 140 = 400.00 → 1140.00; tax 3 rooms × 2 adults × 3 × 2.88 = 51.84
    const offers = offersOf(quote(march, [line("double", 2, [], null, 2), line("twin", 2)]))
    expect(offers.FLEX!.price).toEqual(price(114000, 0, 5184, 119184))
  })

  it("NRF is not offered 2 days ahead; asked for, it is rate_not_eligible", () => {
    const soon = { ...march, daysAhead: 2 }
    expect(Object.keys(offersOf(quote(soon, [line("double", 2)])))).toEqual(["FLEX", "FLEX_BB"])
    expect(quote(soon, [line("double", 2), line("twin", 2, [], "NRF")])).toEqual({
      _tag: "Unavailable",
      rooms: [{ room_index: 1, room_type_id: "twin", reason: "rate_not_eligible", message: expect.stringContaining("3 days") }]
    })
    // 3 days ahead is enough
    expect(Object.keys(offersOf(quote({ ...march, daysAhead: 3 }, [line("double", 2, [], "NRF")])))).toEqual(["NRF"])
  })

  it("a rate code limits the offers for every room; conflicting codes are no_common_rate_plan", () => {
    expect(Object.keys(offersOf(quote(march, [line("double", 2), line("twin", 1, [], "FLEX_BB")])))).toEqual(["FLEX_BB"])
    const outcome = quote(march, [line("double", 2, [], "FLEX"), line("deluxe", 2), line("twin", 1, [], "NRF")])
    expect(outcome).toMatchObject({
      _tag: "Unavailable",
      rooms: [
        { room_index: 0, room_type_id: "double", reason: "no_common_rate_plan" },
        { room_index: 2, room_type_id: "twin", reason: "no_common_rate_plan" }
      ]
    })
  })

  it("with no plan bookable at all, every room is rate_not_eligible", () => {
    const late = withHotel({ rate_plans: hotel.rate_plans.map((p) => ({ ...p, min_days_ahead: 5 })) })
    expect(quote({ ...march, daysAhead: 1 }, [line("double", 2), line("twin", 1, [], "FLEX")], noBookings, late))
      .toMatchObject({ _tag: "Unavailable", rooms: [{ reason: "rate_not_eligible" }, { reason: "rate_not_eligible" }] })
  })

  it("sold_out counts rooms of a type over every line and the busiest night", () => {
    const booked: Booked = (room, night) => room === "double" && night === "2027-03-12" ? 10 : 0
    // 2 doubles free: 2 fit, 3 over two lines do not
    expect(quote(march, [line("double", 2, [], null, 2), line("twin", 2)], booked)._tag).toBe("Available")
    const outcome = quote(march, [line("double", 2, [], null, 2), line("twin", 2), line("double", 1)], booked)
    expect(outcome).toEqual({
      _tag: "Unavailable",
      rooms: [
        { room_index: 0, room_type_id: "double", reason: "sold_out", message: expect.stringContaining("only 2") },
        { room_index: 2, room_type_id: "double", reason: "sold_out", message: expect.stringContaining("only 2") }
      ]
    })
    // nights outside the stay do not count: checkout on Friday
    expect(quote(stayOf("2027-03-10", "2027-03-12", 10), [line("double", 2, [], null, 10)], booked)._tag).toBe("Available")
  })
})

// --- priceStay: properties ------------------------------------------------------

const roomIds = hotel.room_types.map((r) => r.id)
const roomOf = (id: RoomTypeId) => hotel.room_types.find((r) => r.id === id)!
const FIRST_DAY = toEpochDay(date("2026-11-22"))

const lineArb = (maxQuantity: number) =>
  fc.record({
    room_type_id: fc.constantFrom(...roomIds),
    quantity: fc.integer({ min: 1, max: maxQuantity }),
    adults: fc.integer({ min: 1, max: 2 }),
    children_ages: fc.array(fc.integer({ min: 0, max: 17 }), { maxLength: 2 }),
    rate_code: fc.constant(null)
  }).filter((l) => fitsRoom(roomOf(l.room_type_id), { adults: l.adults, childrenAges: l.children_ages }))

const stayArb = fc.record({ start: fc.integer({ min: 0, max: 500 }), nights: fc.integer({ min: 1, max: 30 }) }).map(
  ({ nights, start }): Stay => {
    const checkin = fromEpochDay(FIRST_DAY + start)
    return { checkin, checkout: fromEpochDay(FIRST_DAY + start + nights), nights, daysAhead: start }
  }
)

/** Bookings: a share of each inventory held on one weekday (90 % triggers the demand surcharge), none otherwise. */
const bookedArb = fc.record({ weekday: fc.integer({ min: 0, max: 6 }), percent: fc.constantFrom(0, 50, 90) }).map(
  ({ percent, weekday }): Booked => (room, night) =>
    toEpochDay(night) % 7 === weekday ? Math.floor(roomOf(room).inventory * percent / 100) : 0
)

const touristTaxRate = (night: LocalDate) => night <= "2026-12-31" ? 260 : 288

describe("priceStay properties", () => {
  prop("every offer adds up; no amount is negative; at most one promotion", {
    stay: stayArb,
    rooms: fc.array(lineArb(2), { minLength: 1, maxLength: 3 }),
    booked: bookedArb
  }, ({ booked, rooms, stay }) => {
    const outcome = quote(stay, rooms, booked)
    if (outcome._tag === "Unavailable") {
      // without rate codes only availability can fail
      expect(outcome.rooms.every((r) => r.reason === "sold_out")).toBe(true)
      return
    }
    expect(outcome.offers.length).toBeGreaterThanOrEqual(2)
    for (const offer of outcome.offers) {
      const p = offer.price
      expect(p.total).toBe(p.room_total - p.promotion_discount + p.tourist_tax)
      for (const amount of [p.room_total, p.promotion_discount, p.tourist_tax, p.total]) {
        expect(Number.isInteger(amount) && amount >= 0).toBe(true)
      }
      expect(offer.promotions.length).toBeLessThanOrEqual(1)
      expect(offer.package_code).toBe([offer.rate_code, ...offer.promotions].join("."))
      expect(p.promotion_discount > 0).toBe(offer.promotions.length === 1)
    }
  })

  prop("n identical rooms cost n times one room", {
    stay: stayArb,
    room: lineArb(1),
    n: fc.integer({ min: 1, max: 5 })
  }, ({ n, room, stay }) => {
    const one = offersOf(quote(stay, [room]))
    const many = offersOf(quote(stay, [{ ...room, quantity: n }]))
    expect(Object.keys(many)).toEqual(Object.keys(one))
    for (const [code, offer] of Object.entries(one)) {
      const { currency, ...amounts } = offer.price
      expect(many[code]!.price).toEqual({
        currency,
        ...Object.fromEntries(Object.entries(amounts).map(([k, v]) => [k, n * v]))
      })
      expect(many[code]!.promotions).toEqual(offer.promotions)
    }
  })

  prop("FLEX_BB costs exactly the guests' breakfasts more than FLEX", {
    stay: stayArb,
    rooms: fc.array(lineArb(2), { minLength: 1, maxLength: 3 }),
    booked: bookedArb
  }, ({ booked, rooms, stay }) => {
    const outcome = quote(stay, rooms, booked)
    fc.pre(outcome._tag === "Available")
    const offers = offersOf(outcome)
    const breakfast = (age: number) => age >= 12 ? 1600 : age >= 2 ? 800 : 0
    const perNight = rooms.reduce(
      (acc, l) => acc + l.quantity * (l.adults * 1600 + l.children_ages.reduce((a, age) => a + breakfast(age), 0)),
      0
    )
    expect(offers.FLEX_BB!.price.room_total - offers.FLEX!.price.room_total).toBe(perNight * stay.nights)
  })

  prop("tourist tax: every adult pays the night's rate, children never", {
    stay: stayArb,
    rooms: fc.array(lineArb(2), { minLength: 1, maxLength: 3 })
  }, ({ rooms, stay }) => {
    const perNight = nightsOf(stay.checkin, stay.checkout).reduce((acc, night) => acc + touristTaxRate(night), 0)
    const adults = rooms.reduce((acc, l) => acc + l.quantity * l.adults, 0)
    const outcome = quote(stay, rooms)
    fc.pre(outcome._tag === "Available")
    const withChildren = offersOf(outcome)
    const withoutChildren = offersOf(quote(stay, rooms.map((l) => ({ ...l, children_ages: [] }))))
    for (const code of Object.keys(withChildren)) {
      expect(withChildren[code]!.price.tourist_tax).toBe(adults * perNight)
      expect(withoutChildren[code]!.price.tourist_tax).toBe(adults * perNight)
    }
  })

  prop("percentOf rounds half up to the cent", {
    amount: fc.integer({ min: 0, max: 10_000_000 }),
    percent: fc.integer({ min: 0, max: 100 })
  }, ({ amount, percent }) => {
    // exact: amount × percent / 100 - result lies in [-0.5, 0.5)
    const diff = amount * percent - 100 * percentOf(amount, percent)
    expect(diff >= -50 && diff < 50).toBe(true)
  })

  it("percentOf: examples at the half cent", () => {
    // 1.5 → 2, 1.49 → 1, 2.5 → 3 (not to even), 1234.5 → 1235, 1234.4 → 1234
    expect([percentOf(150, 1), percentOf(149, 1), percentOf(250, 1), percentOf(12345, 10), percentOf(12344, 10)])
      .toEqual([2, 1, 3, 1235, 1234])
  })
})
