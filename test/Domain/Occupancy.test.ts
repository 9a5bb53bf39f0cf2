import { describe, expect, it } from "@effect/vitest"
import { fitsRoom, occupancyRule } from "../../src/Domain/Occupancy.js"
import { demoHotel } from "../support/hotel.js"

const double = demoHotel.room_types.find((r) => r.id === "double")!

describe("fitsRoom (demo double: 2 guests plus one infant under 2)", () => {
  it.each([
    { adults: 1, ages: [], fits: true },
    { adults: 2, ages: [], fits: true },
    { adults: 1, ages: [17], fits: true },
    { adults: 2, ages: [1], fits: true },
    { adults: 1, ages: [0, 5], fits: true },
    { adults: 1, ages: [0, 1], fits: true },
    { adults: 2, ages: [2], fits: false },
    { adults: 2, ages: [0, 1], fits: false },
    { adults: 1, ages: [0, 1, 1], fits: false },
    { adults: 1, ages: [3, 4], fits: false }
  ])("$adults adults, children $ages: $fits", ({ adults, ages, fits }) => {
    expect(fitsRoom(double, { adults, childrenAges: ages })).toBe(fits)
  })

  it("no infant beyond standard occupancy when the room allows none", () => {
    expect(fitsRoom({ ...double, max_additional_infants_under_2: 0 }, { adults: 2, childrenAges: [0] })).toBe(false)
  })

  it("states the rule", () => {
    expect(occupancyRule(double)).toBe("room type double takes at most 2 guests, plus 1 infant under 2")
  })
})
