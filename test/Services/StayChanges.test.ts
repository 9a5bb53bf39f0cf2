import { NodeServices } from "@effect/platform-node"
import { expect, layer, type Vitest } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as path from "node:path"
import type { PromotionCode, RateCode, ReservationId } from "../../src/Domain/Ids.js"
import { addDays, type LocalDate } from "../../src/Domain/LocalDate.js"
import { Repositories, Services } from "../../src/Composition.js"
import { InventoryRepo } from "../../src/Layers/Persistence/InventoryRepo.js"
import { OutboxRepo } from "../../src/Layers/Persistence/OutboxRepo.js"
import { ReservationRepo } from "../../src/Layers/Persistence/ReservationRepo.js"
import { TokenRepo } from "../../src/Layers/Persistence/TokenRepo.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { AppSecret } from "../../src/Layers/Platform/AppSecret.js"
import { Quotes } from "../../src/Services/Quotes.js"
import { ReservationManagement } from "../../src/Services/ReservationManagement.js"
import { Reservations } from "../../src/Services/Reservations.js"
import { Tokens } from "../../src/Services/Tokens.js"
import { makeTestClock } from "../support/clock.js"
import { TestDatabase } from "../support/database.js"
import { demoHotel } from "../support/hotel.js"
import { type Ask, change, changeStay, client, completed, quoteChange, roomsOf } from "../support/serviceFlow.js"
import { ServicesInMemory } from "../support/TestApp.js"

// Today is Sunday 2026-11-22 in hotel time; the stays below are in January and February 2027.
const clock = makeTestClock("2026-11-22T10:00:00Z")
const d = (s: string) => s as LocalDate

const OnPostgres = Services.pipe(
  Layer.provideMerge(Repositories),
  Layer.provideMerge(TestDatabase),
  Layer.provide(Layer.mergeAll(AppConfig.InMemory({ hotelFile: path.resolve("data/hotel.json") }), NodeServices.layer, AppSecret.InMemory)),
  // the services run on the tests' fibers, which read the clock from the layer's context: merged, not only provided
  Layer.provideMerge(clock.layer)
)

/** Rooms of a type held on each night from `from` up to `until`. */
const booked = (type: string, from: string, until: string) =>
  Effect.gen(function*() {
    const rows = yield* (yield* InventoryRepo).nights(d(from), d(until))
    const nights: Array<number> = []
    for (let night = d(from); night < until; night = addDays(night, 1)) {
      nights.push(rows.find((r) => r.room_type_id === type && r.night === night)?.booked ?? 0)
    }
    return nights
  })

const jobsOf = (id: ReservationId) =>
  Effect.flatMap(OutboxRepo, (outbox) =>
    Effect.map(outbox.lastEnqueuedAt(id, "stay_change_email"), Option.isSome))

/** The failure the effect ends with (a test fails if it succeeds). */
const failureOf = <A, E extends { readonly _tag: string; readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.flip(effect), (e) => Effect.succeed<E>(e))

type Needs = ReservationManagement | Reservations | Quotes | Tokens | InventoryRepo | OutboxRepo | ReservationRepo | TokenRepo
const suite = (it: Vitest.MethodsNonLive<Needs>) => {
  it.effect("shifting a stay by a day gives back the first night and takes the next one; number and link stay", () =>
    Effect.gen(function*() {
      const r = yield* completed("2027-01-11", "2027-01-13", [{ room_type_id: "double", quantity: 2 }])
      expect(yield* booked("double", "2027-01-10", "2027-01-15")).toEqual([0, 2, 2, 0, 0])
      const before = Option.getOrThrow(yield* (yield* ReservationRepo).find(r.id))
      const quoted = yield* quoteChange(r.token, "2027-01-12", "2027-01-14", [{ room_type_id: "double", quantity: 2 }])
      expect(quoted).toMatchObject({
        stay: { checkin: "2027-01-12", checkout: "2027-01-14", nights: 2 },
        rooms: [{ room_index: 0, room_type_id: "double", quantity: 2, adults: 2, children_ages: [] }],
        package: { rate_code: "FLEX" },
        previous_total: r.total,
        currency: "EUR"
      })
      expect(quoted.difference).toBe(quoted.new_total - r.total)
      // a quote changes nothing
      expect(yield* booked("double", "2027-01-10", "2027-01-15")).toEqual([0, 2, 2, 0, 0])

      const view = yield* changeStay(r.token, "2027-01-12", "2027-01-14", [{ room_type_id: "double", quantity: 2 }], quoted.new_total)
      expect(view).toMatchObject({
        reservation_id: r.id,
        reservation_number: before.number,
        status: "GUEST_COMPLETED",
        stay: { checkin: "2027-01-12", checkout: "2027-01-14", nights: 2 },
        price: quoted.price,
        policies: { free_cancellation_until: "2027-01-10T14:00:00+01:00" }
      })
      expect(view.allowed_actions).toContain("change_stay")
      expect(yield* booked("double", "2027-01-10", "2027-01-15")).toEqual([0, 0, 2, 2, 0])
      // the same manage link, now working until 30 days after the new check-out (12:00 Paris time)
      const stored = Option.getOrThrow(yield* (yield* TokenRepo).latest(r.id, "manage"))
      expect(new Date(stored.expires_at).toISOString()).toBe("2027-02-13T11:00:00.000Z")
      expect((yield* (yield* ReservationManagement).view(r.token)).stay.checkin).toBe("2027-01-12")
      expect(yield* jobsOf(r.id)).toBe(true)
    }))

  it.effect("lengthening takes the added nights, shortening gives them back", () =>
    Effect.gen(function*() {
      const r = yield* completed("2027-01-18", "2027-01-20", [{ room_type_id: "twin" }])
      yield* change(r.token, "2027-01-17", "2027-01-22", [{ room_type_id: "twin" }])
      expect(yield* booked("twin", "2027-01-16", "2027-01-23")).toEqual([0, 1, 1, 1, 1, 1, 0])
      const shorter = yield* change(r.token, "2027-01-19", "2027-01-20", [{ room_type_id: "twin" }])
      expect(shorter.stay).toMatchObject({ checkin: "2027-01-19", checkout: "2027-01-20", nights: 1 })
      expect(yield* booked("twin", "2027-01-16", "2027-01-23")).toEqual([0, 0, 0, 1, 0, 0, 0])
    }))

  it.effect("changing room types, counts and occupancies; fewer rooms give the others back", () =>
    Effect.gen(function*() {
      const r = yield* completed("2027-01-25", "2027-01-27", [{ room_type_id: "double", quantity: 2 }, { room_type_id: "twin" }])
      const rooms = [{ room_type_id: "deluxe", adults: 2, children_ages: [1] }, { room_type_id: "double", adults: 1 }]
      const view = yield* change(r.token, "2027-01-25", "2027-01-27", rooms)
      expect(view.rooms).toMatchObject([
        { room_index: 0, room_type_id: "deluxe", quantity: 1, adults: 2, children_ages: [1] },
        { room_index: 1, room_type_id: "double", quantity: 1, adults: 1 }
      ])
      expect(yield* booked("double", "2027-01-25", "2027-01-27")).toEqual([1, 1])
      expect(yield* booked("twin", "2027-01-25", "2027-01-27")).toEqual([0, 0])
      expect(yield* booked("deluxe", "2027-01-25", "2027-01-27")).toEqual([1, 1])
      // one room fewer: part of the stay cancelled, the rest kept
      const fewer = yield* change(r.token, "2027-01-25", "2027-01-27", [rooms[0]!])
      expect(fewer.rooms).toHaveLength(1)
      expect(yield* booked("double", "2027-01-25", "2027-01-27")).toEqual([0, 0])
      expect(yield* booked("deluxe", "2027-01-25", "2027-01-27")).toEqual([1, 1])
      expect(fewer.price.total).toBeLessThan(view.price.total)
    }))

  it.effect("on a full hotel, a change overlapping its own nights succeeds: its own rooms count as free", () =>
    Effect.gen(function*() {
      // every deluxe room is this reservation's, on 1 and 2 February
      const r = yield* completed("2027-02-01", "2027-02-03", [{ room_type_id: "deluxe", quantity: 5 }])
      // and the night after is full but for those five
      yield* completed("2027-02-03", "2027-02-04", [{ room_type_id: "deluxe", quantity: 5 }])
      expect(yield* booked("deluxe", "2027-02-01", "2027-02-04")).toEqual([5, 5, 5])
      const shifted = yield* change(r.token, "2027-02-02", "2027-02-03", [{ room_type_id: "deluxe", quantity: 5 }])
      expect(shifted.stay.checkin).toBe("2027-02-02")
      expect(yield* booked("deluxe", "2027-02-01", "2027-02-04")).toEqual([0, 5, 5])
      // a full hotel's demand surcharge does not count the guest's own rooms: back to the first stay, at its price
      const back = yield* quoteChange(r.token, "2027-02-01", "2027-02-03", [{ room_type_id: "deluxe", quantity: 5 }])
      expect(back.new_total).toBe(r.total)
    }))

  it.effect("a change to sold-out nights is 409 availability_changed and changes nothing", () =>
    Effect.gen(function*() {
      const r = yield* completed("2027-02-08", "2027-02-10", [{ room_type_id: "deluxe", quantity: 2 }])
      yield* completed("2027-02-10", "2027-02-11", [{ room_type_id: "deluxe", quantity: 4 }])
      const before = Option.getOrThrow(yield* (yield* ReservationRepo).find(r.id))
      for (
        const error of yield* Effect.all([
          failureOf(quoteChange(r.token, "2027-02-09", "2027-02-11", [{ room_type_id: "deluxe", quantity: 2 }])),
          failureOf(changeStay(r.token, "2027-02-09", "2027-02-11", [{ room_type_id: "deluxe", quantity: 2 }], 100_000))
        ])
      ) {
        expect(error).toMatchObject({
          _tag: "AvailabilityChanged",
          rooms: [{ room_index: 0, room_type_id: "deluxe", reason: "sold_out" }]
        })
        expect(error.message).toMatch(/choose other dates or rooms/)
      }
      expect(yield* booked("deluxe", "2027-02-08", "2027-02-11")).toEqual([2, 2, 4])
      expect(Option.getOrThrow(yield* (yield* ReservationRepo).find(r.id))).toEqual(before)
      expect(yield* jobsOf(r.id)).toBe(false)
    }))

  it.effect("a stale expected_total is 409 price_changed with the new total; sent again with it, the change is made", () =>
    Effect.gen(function*() {
      const r = yield* completed("2027-02-15", "2027-02-17", [{ room_type_id: "twin" }])
      const quoted = yield* quoteChange(r.token, "2027-02-15", "2027-02-18", [{ room_type_id: "twin" }])
      const error = yield* failureOf(changeStay(r.token, "2027-02-15", "2027-02-18", [{ room_type_id: "twin" }], r.total))
      expect(error).toMatchObject({ _tag: "PriceChanged", previous_total: r.total, new_total: quoted.new_total, currency: "EUR" })
      expect(error.message).toMatch(/send change_stay again with expected_total/)
      expect(yield* booked("twin", "2027-02-15", "2027-02-18")).toEqual([1, 1, 0])
      const view = yield* changeStay(r.token, "2027-02-15", "2027-02-18", [{ room_type_id: "twin" }], quoted.new_total)
      expect(view.price.total).toBe(quoted.new_total)
      expect(yield* booked("twin", "2027-02-15", "2027-02-18")).toEqual([1, 1, 1])
    }))

  it.effect("the same change sent again answers the same view and takes nothing twice, nor tells anyone twice", () =>
    Effect.gen(function*() {
      const r = yield* completed("2027-02-22", "2027-02-24", [{ room_type_id: "double" }])
      const first = yield* change(r.token, "2027-02-23", "2027-02-25", [{ room_type_id: "double" }])
      const jobs = yield* (yield* OutboxRepo).lastEnqueuedAt(r.id, "stay_change_email")
      const again = yield* changeStay(r.token, "2027-02-23", "2027-02-25", [{ room_type_id: "double" }], first.price.total)
      expect(again).toEqual(first)
      expect(yield* booked("double", "2027-02-22", "2027-02-26")).toEqual([0, 1, 1, 0])
      expect(yield* (yield* OutboxRepo).lastEnqueuedAt(r.id, "stay_change_email")).toEqual(jobs)
    }))

  it.effect("quote_change of the current stay answers its paid total, as change_stay to it changes nothing", () =>
    Effect.gen(function*() {
      const r = yield* completed("2027-03-15", "2027-03-17", [{ room_type_id: "deluxe" }])
      // the other four deluxe rooms taken: priced live, these nights now carry the demand surcharge
      yield* completed("2027-03-15", "2027-03-17", [{ room_type_id: "deluxe", quantity: 4 }])
      const live = yield* quoteChange(r.token, "2027-03-14", "2027-03-17", [{ room_type_id: "deluxe" }])
      const before = yield* quoteChange(r.token, "2027-03-14", "2027-03-15", [{ room_type_id: "deluxe" }])
      expect(live.new_total - before.new_total).toBeGreaterThan(r.total)
      const quoted = yield* quoteChange(r.token, "2027-03-15", "2027-03-17", [{ room_type_id: "deluxe" }])
      expect([quoted.previous_total, quoted.new_total, quoted.difference]).toEqual([r.total, r.total, 0])
      const view = yield* changeStay(r.token, "2027-03-15", "2027-03-17", [{ room_type_id: "deluxe" }], quoted.new_total)
      expect(view.price.total).toBe(r.total)
      expect(yield* jobsOf(r.id)).toBe(false)
    }))

  it.effect("change_not_allowed: a non-refundable rate, after the current stay's deadline, a cancelled reservation", () =>
    Effect.gen(function*() {
      const nrf = yield* completed("2027-01-05", "2027-01-06", [{ room_type_id: "double" }], "NRF")
      const flex = yield* completed("2027-01-07", "2027-01-08", [{ room_type_id: "double" }])
      const cancelled = yield* completed("2027-01-09", "2027-01-10", [{ room_type_id: "double" }])
      yield* (yield* ReservationManagement).act(cancelled.token, { action: "cancel" }, "192.0.2.1")
      const refusal = (token: string, checkin: string, checkout: string) =>
        Effect.all([
          failureOf(quoteChange(token, checkin, checkout, [{ room_type_id: "double" }])),
          failureOf(changeStay(token, checkin, checkout, [{ room_type_id: "double" }], 100))
        ])
      for (const error of yield* refusal(nrf.token, "2027-01-06", "2027-01-07")) {
        expect(error).toMatchObject({ _tag: "ChangeNotAllowed", reason: "non_refundable" })
        expect(error.message).toMatch(/contact the hotel/)
      }
      expect((yield* (yield* ReservationManagement).view(nrf.token)).allowed_actions).not.toContain("change_stay")
      for (const error of yield* refusal(cancelled.token, "2027-03-20", "2027-03-21")) {
        expect(error).toMatchObject({ _tag: "ChangeNotAllowed", reason: "not_completed" })
      }
      expect(yield* booked("double", "2027-03-20", "2027-03-21")).toEqual([0])
      // the free-cancellation deadline of the current stay: 14:00 on 5 January
      clock.set("2027-01-05T13:00:00Z")
      try {
        for (const error of yield* refusal(flex.token, "2027-01-20", "2027-01-21")) {
          expect(error).toMatchObject({ _tag: "ChangeNotAllowed", reason: "deadline_passed" })
          expect(error.message).toMatch(/2027-01-05T14:00:00\+01:00/)
        }
        expect((yield* (yield* ReservationManagement).view(flex.token)).allowed_actions).not.toContain("change_stay")
      } finally {
        clock.set("2026-11-22T10:00:00Z")
      }
      expect(yield* booked("double", "2027-01-07", "2027-01-08")).toEqual([1])
    }))

  it.effect("the new stay and rooms are checked as a quote checks them; the plan stays the reservation's", () =>
    Effect.gen(function*() {
      const r = yield* completed("2027-02-01", "2027-02-02", [{ room_type_id: "twin" }])
      const codeOf = (asks: ReadonlyArray<Ask & { rate_code?: string }>, checkin = "2027-02-01", checkout = "2027-02-02") =>
        Effect.map(
          failureOf(Effect.flatMap(ReservationManagement, (m) =>
            m.quoteChange(r.token, {
              action: "quote_change",
              checkin: d(checkin),
              checkout: d(checkout),
              rooms: asks.map((a, i) => ({ ...roomsOf([a])[0]!, ...(a.rate_code ? { rate_code: asks[i]!.rate_code as never } : {}) }))
            }))),
          (e) => "code" in e ? e.code : e._tag
        )
      expect(yield* codeOf([{ room_type_id: "twin" }], "2027-02-02", "2027-02-01")).toBe("invalid_dates")
      expect(yield* codeOf([{ room_type_id: "twin" }], "2026-11-01", "2026-11-02")).toBe("invalid_dates")
      expect(yield* codeOf([{ room_type_id: "twin" }], "2027-02-01", "2027-03-05")).toBe("stay_too_long")
      expect(yield* codeOf([{ room_type_id: "suite" }])).toBe("unknown_room_type")
      expect(yield* codeOf([{ room_type_id: "twin", adults: 2, children_ages: [5] }])).toBe("occupancy_exceeded")
      expect(yield* codeOf([{ room_type_id: "twin", rate_code: "FLEX_BB" }])).toBe("invalid_request")
      expect(yield* codeOf([{ room_type_id: "twin", rate_code: "NOPE" }])).toBe("unknown_rate_code")
      // more rooms than one reservation may hold (6): a group, said with its own error (400 invalid_request, details.reason group_booking)
      expect(yield* codeOf([{ room_type_id: "double", quantity: 4 }, { room_type_id: "twin", quantity: 3 }])).toBe("GroupStayChange")
      // its own plan may be named
      const same = yield* Effect.flatMap(ReservationManagement, (m) =>
        m.quoteChange(r.token, {
          action: "quote_change",
          checkin: d("2027-02-01"),
          checkout: d("2027-02-02"),
          rooms: [{ ...roomsOf([{ room_type_id: "twin" }])[0]!, rate_code: "FLEX" as RateCode }]
        }))
      expect(same.difference).toBe(0)
    }))

  it.effect("the promo code the reservation used counts on the new stay, without a second use; a stay it does not fit gives it back", () =>
    Effect.gen(function*() {
      const r = yield* completed("2027-03-01", "2027-03-03", [{ room_type_id: "double" }], "FLEX", "direct12")
      const before = Option.getOrThrow(yield* (yield* ReservationRepo).find(r.id))
      expect([before.promo_code, before.offer.promotions]).toEqual(["DIRECT12", ["DIRECT12"]])
      // a night longer: priced as a new quote with the code would be
      const longer = yield* change(r.token, "2027-03-01", "2027-03-04", [{ room_type_id: "double" }])
      const fresh = yield* (yield* Quotes).quoteRooms({
        checkin: d("2027-03-08"),
        checkout: d("2027-03-11"),
        rooms: roomsOf([{ room_type_id: "double" }]),
        promo_code: "DIRECT12"
      }, client)
      expect(longer.package.promotions).toEqual(["DIRECT12"])
      expect(longer.price.promotion_discount).toBeGreaterThan(0)
      expect(longer.price.promotion_discount / longer.price.room_total).toBeCloseTo(0.12, 2)
      expect(fresh.package_offers.find((o) => o.rate_code === "FLEX")!.promotions).toEqual(["DIRECT12"])
      expect(Option.getOrThrow(yield* (yield* ReservationRepo).find(r.id)).promo_code).toBe("DIRECT12")
      // one night: the code (2 nights or more) does not fit; the automatic early-booking promotion does
      const shorter = yield* change(r.token, "2027-03-01", "2027-03-02", [{ room_type_id: "double" }])
      expect(shorter.package.promotions).toEqual(["EARLY_BOOKING"])
      expect(Option.getOrThrow(yield* (yield* ReservationRepo).find(r.id)).promo_code).toBeNull()
    }))
}

layer(ServicesInMemory().pipe(Layer.provideMerge(clock.layer)), { excludeTestServices: true })("stay changes in memory", suite)
layer(OnPostgres, { excludeTestServices: true, timeout: 60_000 })("stay changes on PostgreSQL", suite)

// A code of one use, taken by the reservation itself: a change does not count it as a second use.
const ONE_USE = { ...demoHotel.promo_codes[0]!, code: "ONCE20" as PromotionCode, discount_percent: 20, max_uses: 1 }
layer(ServicesInMemory({ hotel: { ...demoHotel, promo_codes: [ONE_USE] } }).pipe(Layer.provideMerge(clock.layer)), { excludeTestServices: true })(
  "stay changes with a code of one use",
  (it) => {
    it.effect("the reservation holding the code's only use keeps it on a change", () =>
      Effect.gen(function*() {
        const r = yield* completed("2027-03-01", "2027-03-03", [{ room_type_id: "twin" }], "FLEX", "ONCE20")
        // used up for anyone else now
        const other = yield* Effect.flip((yield* Quotes).quoteRooms({
          checkin: d("2027-03-10"),
          checkout: d("2027-03-12"),
          rooms: roomsOf([{ room_type_id: "twin" }]),
          promo_code: "ONCE20"
        }, client))
        expect(other).toMatchObject({ _tag: "InvalidPromoCode", reason: "used_up" })
        const quoted = yield* quoteChange(r.token, "2027-03-02", "2027-03-05", [{ room_type_id: "twin" }])
        expect(quoted.package.promotions).toEqual(["ONCE20"])
        const changed = yield* changeStay(r.token, "2027-03-02", "2027-03-05", [{ room_type_id: "twin" }], quoted.new_total)
        expect(changed.package.promotions).toEqual(["ONCE20"])
        expect(Option.getOrThrow(yield* (yield* ReservationRepo).find(r.id)).promo_code).toBe("ONCE20")
      }))
  }
)
