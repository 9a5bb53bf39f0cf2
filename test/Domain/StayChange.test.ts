import { describe, expect, it } from "@effect/vitest"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import { daysBetween, type LocalDate } from "../../src/Domain/LocalDate.js"
import type { RoomLine } from "../../src/Domain/Pricing.js"
import { nightsChanges } from "../../src/Domain/StayChange.js"
import { sampleReservation } from "../support/reservation.js"

const d = (s: string) => s as LocalDate
const stayOf = (checkin: string, checkout: string) => ({
  checkin: d(checkin),
  checkout: d(checkout),
  nights: daysBetween(d(checkin), d(checkout)),
  daysAhead: 100
})
const rooms = (type: string, quantity: number): RoomLine => ({
  room_type_id: type as RoomTypeId,
  quantity,
  adults: 2,
  children_ages: [],
  rate_code: null
})

describe("nightsChanges: what a stay change takes and gives back", () => {
  // 2 doubles and 2 twins from 2027-03-12 to 2027-03-15
  const held = { ...sampleReservation(), rooms: [rooms("double", 2), rooms("twin", 2)].map((room, room_index) => ({ ...room, room_index })) }

  it("nights kept with the same rooms move nothing; only the nights added and given back do", () => {
    expect(nightsChanges(held, stayOf("2027-03-13", "2027-03-16"), [rooms("double", 2), rooms("twin", 2)])).toEqual([
      { roomTypeId: "double", checkin: "2027-03-12", checkout: "2027-03-13", rooms: -2 },
      { roomTypeId: "double", checkin: "2027-03-15", checkout: "2027-03-16", rooms: 2 },
      { roomTypeId: "twin", checkin: "2027-03-12", checkout: "2027-03-13", rooms: -2 },
      { roomTypeId: "twin", checkin: "2027-03-15", checkout: "2027-03-16", rooms: 2 }
    ])
  })

  it("fewer or more rooms on kept nights move the difference; another room type is all new; the same stay moves nothing", () => {
    expect(nightsChanges(held, stayOf("2027-03-12", "2027-03-15"), [rooms("double", 3), rooms("deluxe", 1)])).toEqual([
      { roomTypeId: "double", checkin: "2027-03-12", checkout: "2027-03-15", rooms: 1 },
      { roomTypeId: "twin", checkin: "2027-03-12", checkout: "2027-03-15", rooms: -2 },
      { roomTypeId: "deluxe", checkin: "2027-03-12", checkout: "2027-03-15", rooms: 1 }
    ])
    expect(nightsChanges(held, stayOf("2027-03-12", "2027-03-15"), [rooms("double", 2), rooms("twin", 2)])).toEqual([])
  })

  it("a stay with no night in common gives back every night and takes every new one", () => {
    expect(nightsChanges(held, stayOf("2027-04-01", "2027-04-02"), [rooms("double", 1)])).toEqual([
      { roomTypeId: "double", checkin: "2027-03-12", checkout: "2027-03-15", rooms: -2 },
      { roomTypeId: "double", checkin: "2027-04-01", checkout: "2027-04-02", rooms: 1 },
      { roomTypeId: "twin", checkin: "2027-03-12", checkout: "2027-03-15", rooms: -2 }
    ])
  })
})
