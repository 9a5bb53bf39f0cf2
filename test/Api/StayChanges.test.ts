import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { ReservationId } from "../../src/Domain/Ids.js"
import { OutboxInMemory } from "../../src/Layers/Persistence/OutboxRepo.js"
import { makeTestClock } from "../support/clock.js"
import { completedBooking, eur, manageAct, post, roomRequests, stayOf } from "../support/flow.js"
import { TestApp } from "../support/TestApp.js"

// Today is Sunday 2026-11-22 in hotel time.
const clock = makeTestClock("2026-11-22T10:00:00Z")


const act = (token: string, body: unknown) => post("/v1/reservation-manage", body, { "x-reservation-token": token })

const jobsOf = (id: ReservationId) =>
  Effect.map(Effect.flatMap(OutboxInMemory, (outbox) => outbox.jobs), (jobs) => jobs.filter((j) => j.reservation_id === id).map((j) => j.kind))

const twoAdults = [{ room_type_id: "double", adults: 2 }]

layer(TestApp().pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("stay changes over HTTP", (it) => {
  it.effect("quote_change answers the changed stay and the difference in major units; change_stay answers the manage view", () =>
    Effect.gen(function*() {
      const r = yield* completedBooking("2027-01-11", "2027-01-14", twoAdults)
      // the quote as the wire carries it: its keys, and amounts in major units
      const quoted = yield* act(r.manageToken, { action: "quote_change", checkin: "2027-01-11", checkout: "2027-01-13", rooms: twoAdults })
      expect(quoted.status).toBe(200)
      expect(Object.keys(quoted.body).sort()).toEqual(
        ["currency", "difference", "new_total", "package", "previous_total", "price", "rooms", "stay"]
      )
      expect(quoted.body).toMatchObject({
        stay: { checkin: "2027-01-11", checkout: "2027-01-13", nights: 2, check_in_time: "14:00", check_out_time: "12:00" },
        rooms: [{ room_index: 0, room_type_id: "double", room_name: "Double Room", quantity: 1, adults: 2, children_ages: [] }],
        package: { rate_code: "FLEX", refundable: true },
        previous_total: r.total / 100,
        currency: "EUR"
      })
      // one night fewer costs less: a negative difference, exact to the cent
      expect(quoted.body.new_total).toBe(quoted.body.price.total)
      expect(quoted.body.difference).toBeLessThan(0)
      expect(eur(quoted.body.difference)).toBe(eur(quoted.body.new_total) - r.total)

      const changed = yield* manageAct(r.manageToken, {
        action: "change_stay",
        ...stayOf("2027-01-11", "2027-01-13"),
        rooms: roomRequests(twoAdults),
        expected_total: eur(quoted.body.new_total)
      })
      expect(changed).toMatchObject({
        reservation_number: r.number,
        status: "GUEST_COMPLETED",
        stay: { checkin: "2027-01-11", checkout: "2027-01-13", nights: 2 },
        price: { total: eur(quoted.body.new_total) },
        editable_fields: expect.any(Array)
      })
      expect(changed.allowed_actions).toContain("change_stay")
      // the PMS push still waiting carries the new stay
      expect(yield* jobsOf(r.id)).toEqual(["confirmation_email", "pms_push", "stay_change_email"])
    }))

  it.effect("the 409s carry what to do next in error.details", () =>
    Effect.gen(function*() {
      const r = yield* completedBooking("2027-01-18", "2027-01-19", twoAdults)
      const stale = yield* act(r.manageToken, { action: "change_stay", checkin: "2027-01-18", checkout: "2027-01-20", rooms: twoAdults, expected_total: 1 })
      expect(stale.status).toBe(409)
      expect(stale.body.error).toMatchObject({
        code: "price_changed",
        details: { previous_total: 1, new_total: expect.any(Number), currency: "EUR", rooms: [{ room_index: 0, room_type_id: "double", reason: "price_changed" }] }
      })

      yield* completedBooking("2027-01-19", "2027-01-20", [{ room_type_id: "deluxe", adults: 2, quantity: 5 }])
      const soldOut = yield* act(r.manageToken, {
        action: "quote_change",
        checkin: "2027-01-18",
        checkout: "2027-01-20",
        rooms: [{ room_type_id: "deluxe", adults: 2 }]
      })
      expect(soldOut.status).toBe(409)
      expect(soldOut.body.error).toMatchObject({
        code: "availability_changed",
        details: { previous_total: null, new_total: null, currency: "EUR", rooms: [{ room_index: 0, room_type_id: "deluxe", reason: "sold_out" }] }
      })

      const nrf = yield* completedBooking("2027-01-21", "2027-01-22", twoAdults, "NRF")
      const refused = yield* act(nrf.manageToken, { action: "quote_change", checkin: "2027-01-22", checkout: "2027-01-23", rooms: twoAdults })
      expect(refused.status).toBe(409)
      expect(refused.body.error).toMatchObject({ code: "change_not_allowed", details: { reason: "non_refundable" } })
      expect(refused.body.error.message).toContain("contact the hotel")
    }))

  it.effect("only the manage link changes a stay: the guest link is refused and changes nothing", () =>
    Effect.gen(function*() {
      const r = yield* completedBooking("2027-01-25", "2027-01-26", twoAdults)
      const body = { action: "change_stay", checkin: "2027-01-26", checkout: "2027-01-27", rooms: twoAdults, expected_total: r.total / 100 }
      for (const token of [r.guestToken, "x".repeat(43)]) {
        const refused = yield* act(token, body)
        expect([refused.status, refused.body.error.code]).toEqual([401, "invalid_token"])
      }
      expect(yield* jobsOf(r.id)).toEqual(["confirmation_email", "pms_push"])
    }))

  it.effect("numbers and arrays past their bounds are 400 invalid_request, never a 500", () =>
    Effect.gen(function*() {
      const r = yield* completedBooking("2027-02-01", "2027-02-02", twoAdults)
      const change = (overrides: Record<string, unknown>) =>
        act(r.manageToken, { action: "change_stay", checkin: "2027-02-01", checkout: "2027-02-02", rooms: twoAdults, expected_total: r.total / 100, ...overrides })
      const room = (extra: Record<string, unknown>) => ({ rooms: [{ room_type_id: "double", adults: 2, ...extra }] })
      for (
        const overrides of [
          room({ quantity: 2 ** 31 }),
          room({ quantity: 11 }),
          room({ quantity: 0 }),
          room({ adults: 2 ** 53 }),
          room({ children_ages: Array.from({ length: 1000 }, () => 1) }),
          room({ room_type_id: "d".repeat(10_000) }),
          { expected_total: 2 ** 53 },
          { expected_total: -1 },
          { expected_total: "12.00" },
          { rooms: [] },
          { rooms: Array.from({ length: 21 }, () => twoAdults[0]) },
          { checkin: "2027-02-30" },
          { checkout: "x".repeat(5000) }
        ]
      ) {
        const response = yield* change(overrides)
        expect([response.status, response.body.error.code], JSON.stringify(overrides).slice(0, 80)).toEqual([400, "invalid_request"])
        // quote_change takes the same stay and rooms (and has no expected_total)
        if (!("expected_total" in overrides)) {
          const quoted = yield* act(r.manageToken, { action: "quote_change", checkin: "2027-02-01", checkout: "2027-02-02", rooms: twoAdults, ...overrides })
          expect(quoted.status).toBe(400)
        }
      }
      // an array beyond the body limit is refused before it is read
      const huge = yield* change({ rooms: Array.from({ length: 5000 }, () => twoAdults[0]) })
      expect(huge.status).toBe(413)
      expect(yield* jobsOf(r.id)).toEqual(["confirmation_email", "pms_push"])
    }))
})
