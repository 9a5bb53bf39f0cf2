import { describe, expect, it } from "@effect/vitest"
import { emptyNight, type NightState } from "../../src/Domain/Channel/Nights.js"
import { isHighDemand, withDemandSurcharge } from "../../src/Domain/DemandPricing.js"
import { demoHotel } from "../support/hotel.js"

// the demo hotel's rule: 80 % occupied or more costs 10 % more
const demand = demoHotel.demand_pricing
const booked = (rooms: number): NightState => ({ ...emptyNight, booked: rooms })
const cell = <A>(value: A) => ({ value, as_of: Date.parse("2026-11-20T10:00:00Z") })

describe("DemandPricing: which nights are in high demand", () => {
  it("is the demo hotel's rule: 80 % and 10 %", () => {
    expect(demand).toEqual({ occupancy_threshold_percent: 80, surcharge_percent: 10 })
  })

  it("from exactly the threshold: 4 of 5 rooms taken is 80 %, 3 is not; 8 of 10 is, 7 is not", () => {
    expect(isHighDemand(demand, 5, booked(3))).toBe(false)
    expect(isHighDemand(demand, 5, booked(4))).toBe(true)
    expect(isHighDemand(demand, 10, booked(7))).toBe(false)
    expect(isHighDemand(demand, 10, booked(8))).toBe(true)
    expect(isHighDemand(demand, 10, booked(10))).toBe(true)
  })

  it("counts the rooms the hotel sold elsewhere (its rooms_to_sell), but not a stop-sell, which sells nothing", () => {
    // 10 rooms, none booked here, the hotel can sell only 2 more: 8 are taken
    expect(isHighDemand(demand, 10, { ...emptyNight, cells: { ...emptyNight.cells, rooms_to_sell: cell(2) } })).toBe(true)
    expect(isHighDemand(demand, 10, { ...emptyNight, cells: { ...emptyNight.cells, rooms_to_sell: cell(3) } })).toBe(false)
    expect(isHighDemand(demand, 10, { ...emptyNight, cells: { ...emptyNight.cells, stop_sell: cell(true) } })).toBe(false)
  })

  it("a room type of no rooms counts as full", () => {
    expect(isHighDemand(demand, 0, emptyNight)).toBe(true)
  })
})

describe("DemandPricing: the surcharge", () => {
  it("adds 10 % of the base rate on a night in high demand, rounded half up to the cent; nothing otherwise", () => {
    expect(withDemandSurcharge(demand, 5, booked(4), 10000)).toBe(11000)
    expect(withDemandSurcharge(demand, 5, booked(3), 10000)).toBe(10000)
    // 10 % of 123.45 is 12.345: 12.35
    expect(withDemandSurcharge(demand, 5, booked(5), 12345)).toBe(13580)
    expect(withDemandSurcharge(demand, 5, booked(5), 12344)).toBe(13578)
  })

  it("follows the hotel file", () => {
    expect(withDemandSurcharge({ occupancy_threshold_percent: 50, surcharge_percent: 25 }, 4, booked(2), 10000)).toBe(12500)
    expect(withDemandSurcharge({ occupancy_threshold_percent: 50, surcharge_percent: 25 }, 4, booked(1), 10000)).toBe(10000)
  })
})
