import { describe, expect, it } from "@effect/vitest"
import { Option, Result } from "effect"
import type { RateCode, RoomTypeId } from "../../src/Domain/Ids.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import { calendarDates, calendarRooms, calendarStays, nightsToRead, priceCalendar } from "../../src/Domain/PriceCalendar.js"
import { bookedOnly, demoHotel } from "../support/hotel.js"

const d = (s: string) => s as LocalDate
const TODAY = d("2026-11-22")
const codeOf = <A>(result: Result.Result<A, { readonly code: string }>) => Result.isFailure(result) ? result.failure.code : "ok"

describe("price calendar (domain)", () => {
  it("arrival dates: from to to inclusive, at most 62, every checkout a date", () => {
    expect(calendarDates(d("2027-01-30"), d("2027-02-02"), 1)).toEqual(Result.succeed(["2027-01-30", "2027-01-31", "2027-02-01", "2027-02-02"]))
    expect(codeOf(calendarDates(d("2027-01-02"), d("2027-01-01"), 1))).toBe("invalid_dates")
    expect(Result.getOrThrow(calendarDates(d("2027-01-01"), d("2027-03-03"), 1))).toHaveLength(62)
    expect(codeOf(calendarDates(d("2027-01-01"), d("2027-03-04"), 1))).toBe("range_too_long")
    expect(codeOf(calendarDates(d("9999-12-30"), d("9999-12-30"), 1))).toBe("ok")
    expect(codeOf(calendarDates(d("9999-12-30"), d("9999-12-30"), 2))).toBe("invalid_dates")
  })

  it("rooms: every type the guests fit, in the hotel's order, or the one asked; refused as a quote would be", () => {
    const ids = (query: Parameters<typeof calendarRooms>[1]) => Result.map(calendarRooms(demoHotel, query), (lines) => lines.map((l) => l.room_type_id))
    expect(ids({ adults: 2, children_ages: [1] })).toEqual(Result.succeed(["double", "twin", "deluxe"]))
    expect(ids({ adults: 1, children_ages: [], room_type_id: "deluxe" as RoomTypeId })).toEqual(Result.succeed(["deluxe"]))
    expect(codeOf(ids({ adults: 2, children_ages: [8] }))).toBe("occupancy_exceeded")
    expect(codeOf(ids({ adults: 2, children_ages: [8], rate_code: "GOLD" as RateCode }))).toBe("unknown_rate_code")
    expect(codeOf(ids({ adults: 1, children_ages: [], room_type_id: "suite" as RoomTypeId }))).toBe("unknown_room_type")
  })

  it("nights are read from the first bookable check-in to the last checkout, that date included (closed to departure), and not at all when none is bookable", () => {
    const stays = calendarStays(demoHotel, TODAY, Result.getOrThrow(calendarDates(d("2026-11-20"), d("2026-11-25"), 3)), 3)
    expect(stays.map((s) => Result.isFailure(s.validated) ? s.validated.failure : "ok")).toEqual(["past", "past", "ok", "ok", "ok", "ok"])
    expect(nightsToRead(stays)).toEqual(Option.some({ from: "2026-11-22", until: "2026-11-29" }))
    const past = calendarStays(demoHotel, TODAY, [d("2026-11-01")], 1)
    expect(nightsToRead(past)).toEqual(Option.none())
  })

  it("a plan that may not be booked yet is the reason, even where the rooms are sold out too", () => {
    const rooms = Result.getOrThrow(calendarRooms(demoHotel, { adults: 2, children_ages: [], rate_code: "NRF" as RateCode }))
    const stays = calendarStays(demoHotel, TODAY, [d("2026-11-23"), d("2026-11-30")], 1)
    const full = (roomTypeId: RoomTypeId) => demoHotel.room_types.find((r) => r.id === roomTypeId)!.inventory
    const days = priceCalendar({ hotel: demoHotel, stays, rooms, nights: bookedOnly(full), promoCode: null })
    expect(days.map((day) => day.reason)).toEqual(["no_eligible_rate", "sold_out"])
  })
})
