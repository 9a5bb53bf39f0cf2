import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { HttpClient } from "effect/http"
import fc from "fast-check"
import { RateCode, RoomTypeId } from "../../src/Domain/Ids.js"
import { addDays, LocalDate } from "../../src/Domain/LocalDate.js"
import { InventoryRepo } from "../../src/Layers/Persistence/InventoryRepo.js"
import { makeTestClock } from "../support/clock.js"
import { eur, get, post } from "../support/flow.js"
import { changeRooms } from "../support/inventory.js"
import { demoHotel } from "../support/hotel.js"
import { apiClient, TestApp } from "../support/TestApp.js"

// Today is Sunday 2026-11-22 in hotel time; the hotel takes bookings up to 500 days ahead.
const clock = makeTestClock("2026-11-22T10:00:00Z")
const TODAY = "2026-11-22" as LocalDate
const ROOM_TYPES = demoHotel.room_types.map((r) => r.id)

interface Day {
  readonly checkin: string
  readonly checkout: string
  readonly available: boolean
  readonly lowest_total: number | null
  readonly room_type_id: string | null
  readonly package_code: string | null
  readonly rate_code: string | null
  readonly reason: string | null
}

/** Raw: the query string as a client writes it, for what the API refuses and the property against raw quotes. */
const calendar = (query: Record<string, string | number>) =>
  get(`/v1/calendar?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`)

interface CalendarAsk {
  readonly nights?: number
  readonly adults?: number
  readonly children_ages?: ReadonlyArray<number>
  readonly room_type_id?: string
  readonly rate_code?: string
  readonly promo_code?: string
}
/** The calendar through the typed client (lowest totals in cents). */
const calendarOf = (from: string, to: string, ask: CalendarAsk = {}) =>
  Effect.flatMap(apiClient, (api) =>
    api.calendar.calendar({
      query: {
        from: LocalDate.make(from),
        to: LocalDate.make(to),
        nights: ask.nights ?? 1,
        adults: ask.adults ?? 2,
        children_ages: ask.children_ages ?? [],
        ...(ask.room_type_id === undefined ? {} : { room_type_id: RoomTypeId.make(ask.room_type_id) }),
        ...(ask.rate_code === undefined ? {} : { rate_code: RateCode.make(ask.rate_code) }),
        ...(ask.promo_code === undefined ? {} : { promo_code: ask.promo_code })
      }
    }))

const day = (checkin: string, fields: Partial<Day>): Partial<Day> => ({ checkin, ...fields })

layer(TestApp({ booked: { deluxe: { "2026-12-11": 5 }, double: { "2026-12-11": 12 }, twin: { "2026-12-11": 8 } } }).pipe(
  Layer.provide(clock.layer)
), { excludeTestServices: true })("GET /v1/calendar", (it) => {
  it.effect("answers one day per arrival date with the lowest total of any room type, and the package that gives it", () =>
    Effect.gen(function*() {
      const body = yield* calendarOf("2026-12-09", "2026-12-12", { nights: 1 })
      expect(body).toMatchObject({ from: "2026-12-09", to: "2026-12-12", nights: 1, adults: 2, children_ages: [], currency: "EUR" })
      // Wednesday 2026-12-09, 17 days ahead: NRF (12 % off FLEX 110) 96.80 + tax 2 x 2.60 = 102
      expect(body.days).toEqual([
        {
          checkin: "2026-12-09",
          checkout: "2026-12-10",
          available: true,
          lowest_total: eur(102),
          room_type_id: "double",
          package_code: "NRF",
          rate_code: "NRF",
          reason: null
        },
        expect.objectContaining({ checkin: "2026-12-10", checkout: "2026-12-11", available: true, room_type_id: "double" }),
        // every room of every type is held that night
        {
          checkin: "2026-12-11",
          checkout: "2026-12-12",
          available: false,
          lowest_total: null,
          room_type_id: null,
          package_code: null,
          rate_code: null,
          reason: "sold_out"
        },
        expect.objectContaining({ checkin: "2026-12-12", available: true })
      ])
    }))

  it.effect("a stay that takes a sold-out night is sold out; children's ages and a room type narrow the offers", () =>
    Effect.gen(function*() {
      const body = yield* calendarOf("2026-12-08", "2026-12-12", { nights: 3, room_type_id: "twin", adults: 1, children_ages: [8] })
      expect(body.children_ages).toEqual([8])
      expect(body.days.map((d) => [d.checkin, d.checkout, d.reason, d.room_type_id])).toEqual([
        ["2026-12-08", "2026-12-11", null, "twin"],
        ["2026-12-09", "2026-12-12", "sold_out", null],
        ["2026-12-10", "2026-12-13", "sold_out", null],
        ["2026-12-11", "2026-12-14", "sold_out", null],
        ["2026-12-12", "2026-12-15", null, "twin"]
      ])
    }))

  it.effect("a promo code counts as in a quote: its package when it is worth most, none when the stay is too short for it", () =>
    Effect.gen(function*() {
      // DIRECT12: 12 % off from 2 nights, more than early booking's 10 % (45 days ahead or more)
      const body = yield* calendarOf("2027-01-06", "2027-01-07", { nights: 2, promo_code: "direct12" })
      expect(body.days.map((d) => d.package_code)).toEqual(["NRF.DIRECT12", "NRF.DIRECT12"])
      const without = yield* calendarOf("2027-01-06", "2027-01-07", { nights: 2 })
      expect(without.days.map((d) => d.package_code)).toEqual(["NRF.EARLY_BOOKING", "NRF.EARLY_BOOKING"])
      expect(body.days[0]!.lowest_total).toBeLessThan(without.days[0]!.lowest_total!)
      const oneNight = yield* calendarOf("2027-01-06", "2027-01-06", { promo_code: "DIRECT12" })
      expect(oneNight.days[0]!.package_code).toBe("NRF.EARLY_BOOKING")
    }))

  it.effect("past dates, dates beyond the booking window and a plan not yet eligible have no offer, each with its reason", () =>
    Effect.gen(function*() {
      const body = yield* calendarOf("2026-11-20", "2026-11-26", { rate_code: "NRF" })
      // NRF needs check-in 3 days ahead or more
      expect(body.days).toMatchObject([
        day("2026-11-20", { available: false, reason: "past", lowest_total: null }),
        day("2026-11-21", { reason: "past" }),
        day("2026-11-22", { reason: "no_eligible_rate", lowest_total: null }),
        day("2026-11-23", { reason: "no_eligible_rate" }),
        day("2026-11-24", { reason: "no_eligible_rate" }),
        day("2026-11-25", { available: true, rate_code: "NRF", reason: null }),
        day("2026-11-26", { available: true, rate_code: "NRF" })
      ])
      // 500 days ahead is the last arrival date taken
      const last = addDays(TODAY, 500)
      const edge = yield* calendarOf(last, addDays(last, 1))
      expect(edge.days).toMatchObject([
        day(last, { available: true }),
        day(addDays(last, 1), { available: false, reason: "beyond_booking_window" })
      ])
    }))

  it.effect("400: to before from, more than 62 dates, bounds of every parameter, unknown room type or plan, guests no room takes", () =>
    Effect.gen(function*() {
      const code = (query: Record<string, string | number>) => Effect.map(calendar(query), (r) => [r.status, r.body?.error?.code])
      const base = { from: "2027-01-01", to: "2027-01-31" }
      expect(yield* code({ from: "2027-01-02", to: "2027-01-01" })).toEqual([400, "invalid_dates"])
      expect(yield* code({ from: "2027-01-01", to: "2027-03-03" })).toEqual([200, undefined])
      expect(yield* code({ from: "2027-01-01", to: "2027-03-04" })).toEqual([400, "range_too_long"])
      expect(yield* code({ from: "0001-01-01", to: "9999-12-31" })).toEqual([400, "range_too_long"])
      expect(yield* code({ ...base, nights: 2 ** 31 })).toEqual([400, "invalid_request"])
      expect(yield* code({ ...base, nights: 31 })).toEqual([400, "invalid_request"])
      expect(yield* code({ ...base, nights: 0 })).toEqual([400, "invalid_request"])
      expect(yield* code({ ...base, adults: 3 })).toEqual([400, "invalid_request"])
      expect(yield* code({ ...base, children_ages: "18" })).toEqual([400, "invalid_request"])
      expect(yield* code({ ...base, children_ages: "1,2,3,4" })).toEqual([400, "invalid_request"])
      // empty is no children (a page joining an empty list sends it); an empty age between commas is not an age
      expect(yield* code({ ...base, children_ages: "" })).toEqual([200, undefined])
      expect((yield* calendar({ ...base, children_ages: "" })).body.children_ages).toEqual([])
      expect(yield* code({ ...base, children_ages: ",," })).toEqual([400, "invalid_request"])
      expect(yield* code({ ...base, children_ages: "1,,8" })).toEqual([400, "invalid_request"])
      expect(yield* code({ ...base, children_ages: "1," })).toEqual([400, "invalid_request"])
      expect(yield* code({ ...base, from: "2027-02-30" })).toEqual([400, "invalid_request"])
      expect(yield* code({ ...base, room_type_id: "suite" })).toEqual([400, "unknown_room_type"])
      expect(yield* code({ ...base, rate_code: "FREE" })).toEqual([400, "unknown_rate_code"])
      // two adults and an 8-year-old fit no room; a second infant fits no room either
      expect(yield* code({ ...base, children_ages: "8" })).toEqual([400, "occupancy_exceeded"])
      expect(yield* code({ ...base, children_ages: "0,1" })).toEqual([400, "occupancy_exceeded"])
      expect(yield* code({ ...base, children_ages: "1" })).toEqual([200, undefined])
      expect(yield* code({ ...base, promo_code: "NOPE" })).toEqual([400, "invalid_promo_code"])
      expect(yield* code({ ...base, promo_code: "N".repeat(40) })).toEqual([400, "invalid_promo_code"])
      expect(yield* code({ ...base, promo_code: "N".repeat(41) })).toEqual([400, "invalid_request"])
      expect(yield* code({ ...base, promo_code: "direct12" })).toEqual([200, undefined])
      expect(yield* code({ ...base, adults: 1, children_ages: "8", room_type_id: "twin" })).toEqual([200, undefined])
      expect(yield* code({ ...base, children_ages: "8", room_type_id: "twin" })).toEqual([400, "occupancy_exceeded"])
      expect(yield* code({ ...base, children_ages: "10,11,12" })).toEqual([400, "occupancy_exceeded"])
      expect(yield* code({ ...base, children_ages: "10,11,123" })).toEqual([400, "invalid_request"])
      // every checkout must be a date: none after 9999-12-31
      expect(yield* code({ from: "9999-12-01", to: "9999-12-01", nights: 30 })).toEqual([200, undefined])
      expect(yield* code({ from: "9999-12-01", to: "9999-12-02", nights: 30 })).toEqual([400, "invalid_dates"])
    }))
})

// Twins priced as doubles: every double offer ties with a twin one, and the double (first in room type order) wins.
const tiedHotel = {
  ...demoHotel,
  room_types: demoHotel.room_types.map((r) => r.id === "twin" ? { ...r, base_rates_cents: demoHotel.room_types[0]!.base_rates_cents } : r)
}

layer(TestApp({ hotel: tiedHotel }).pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("GET /v1/calendar against quotes", (it) => {
  it.effect("the lowest total is what POST /v1/quotes answers for that date, over occupancies, filters and bookings made in between", () =>
    Effect.gen(function*() {
      const context = yield* Effect.context<InventoryRepo | HttpClient.HttpClient>()
      const ask = fc.record({
        daysAhead: fc.integer({ min: -3, max: 505 }),
        span: fc.integer({ min: 0, max: 4 }),
        nights: fc.integer({ min: 1, max: 8 }),
        adults: fc.integer({ min: 1, max: 2 }),
        children_ages: fc.array(fc.integer({ min: 0, max: 17 }), { maxLength: 2 }),
        room_type_id: fc.option(fc.constantFrom(...ROOM_TYPES), { nil: undefined }),
        rate_code: fc.option(fc.constantFrom("FLEX", "FLEX_BB", "NRF"), { nil: undefined }),
        promo_code: fc.option(fc.constantFrom("DIRECT12", "direct12"), { nil: undefined }),
        // rooms taken before the calendar is asked, near its dates
        bookings: fc.array(
          fc.record({
            room_type_id: fc.constantFrom(...ROOM_TYPES),
            offset: fc.integer({ min: -2, max: 6 }),
            nights: fc.integer({ min: 1, max: 4 }),
            rooms: fc.integer({ min: 1, max: 6 })
          }),
          { maxLength: 3 }
        )
      })
      const check = (c: typeof ask extends fc.Arbitrary<infer A> ? A : never) =>
        Effect.gen(function*() {
          const from = addDays(TODAY, c.daysAhead)
          for (const b of c.bookings) {
            const checkin = addDays(from, b.offset)
            // more than is free is refused (a defect in memory): the property holds either way
            yield* Effect.exit(changeRooms({ roomTypeId: b.room_type_id as RoomTypeId, rooms: b.rooms, checkin, checkout: addDays(checkin, b.nights) }))
          }
          const query = {
            from,
            to: addDays(from, c.span),
            nights: c.nights,
            adults: c.adults,
            ...(c.children_ages.length > 0 ? { children_ages: c.children_ages.join(",") } : {}),
            ...(c.room_type_id === undefined ? {} : { room_type_id: c.room_type_id }),
            ...(c.rate_code === undefined ? {} : { rate_code: c.rate_code }),
            ...(c.promo_code === undefined ? {} : { promo_code: c.promo_code })
          }
          const answer = yield* calendar(query)
          const roomTypes = c.room_type_id === undefined ? ROOM_TYPES : [c.room_type_id]
          const quoteFor = (checkin: string, checkout: string, room_type_id: string) =>
            post("/v1/quotes", {
              checkin,
              checkout,
              rooms: [{ room_type_id, adults: c.adults, children_ages: c.children_ages, ...(c.rate_code ? { rate_code: c.rate_code } : {}) }],
              ...(c.promo_code === undefined ? {} : { promo_code: c.promo_code })
            })
          if (answer.status !== 200) {
            // refused as a quote for each room type is (on dates it may be booked): none takes these guests
            expect(answer.body.error.code).toBe("occupancy_exceeded")
            for (const id of roomTypes) {
              const quoted = yield* quoteFor(addDays(TODAY, 10), addDays(TODAY, 10 + c.nights), id)
              expect(quoted.body.error.code).toBe("occupancy_exceeded")
            }
            return
          }
          for (const d of answer.body.days as ReadonlyArray<Day>) {
            const quotes = []
            for (const id of roomTypes) quotes.push({ id, quoted: yield* quoteFor(d.checkin, d.checkout, id) })
            const priced = quotes.filter((q) => q.quoted.status === 200)
            const offers = priced.flatMap(({ id, quoted }) =>
              quoted.body.package_offers.map((o: { price: { total: number }; package_code: string; rate_code: string }) => ({
                room_type_id: id,
                lowest_total: o.price.total,
                package_code: o.package_code,
                rate_code: o.rate_code
              }))
            )
            const lowest = offers.reduce<typeof offers[number] | undefined>(
              (best, o) => best === undefined || o.lowest_total < best.lowest_total ? o : best,
              undefined
            )
            if (lowest !== undefined) {
              expect(d).toEqual({ checkin: d.checkin, checkout: d.checkout, available: true, reason: null, ...lowest })
            } else {
              expect(d).toMatchObject({ available: false, lowest_total: null, room_type_id: null, package_code: null, rate_code: null })
              const refused = quotes.find((q) => q.quoted.status === 400)?.quoted.body.error.code
              const unavailable = priced.flatMap((q) => q.quoted.body.unavailable_rooms.map((r: { reason: string }) => r.reason))
              const expected = { invalid_dates: "past", booking_window_exceeded: "beyond_booking_window" }[refused as string] ??
                (unavailable.includes("rate_not_eligible") ? "no_eligible_rate" : "sold_out")
              expect(d.reason).toBe(expected)
            }
          }
        })
      yield* Effect.promise(() =>
        fc.assert(fc.asyncProperty(ask, (c) => Effect.runPromiseWith(context)(check(c))), { numRuns: 120, seed: 20261122 })
      )
    }), 120_000)
})

layer(
  TestApp({ hotel: { ...demoHotel, booking: { ...demoHotel.booking, max_nights: 7 } } }).pipe(Layer.provide(clock.layer)),
  { excludeTestServices: true }
)("GET /v1/calendar on a hotel of 7 nights at most", (it) => {
  it.effect("a stay longer than the hotel takes is stay_too_long on every date", () =>
    Effect.gen(function*() {
      const body = yield* calendarOf("2027-01-10", "2027-01-11", { nights: 8 })
      expect(body.days.map((d) => d.reason)).toEqual(["stay_too_long", "stay_too_long"])
      const seven = yield* calendarOf("2027-01-10", "2027-01-10", { nights: 7 })
      expect(seven.days[0]).toMatchObject({ available: true, package_code: "NRF.LONG_STAY" })
    }))
})
