import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import { ReservationRepo } from "../../src/Layers/Persistence/ReservationRepo.js"
import { makeTestClock } from "../support/clock.js"
import { complete, completeWith, eur, get, guest, pendingBooking, post, quoteStay, tokenOf } from "../support/flow.js"
import { apiClient, apiClientWith, TestApp } from "../support/TestApp.js"
import { freeRooms } from "../support/hotel.js"

// Today is Sunday 2026-11-22 in hotel time.
const clock = makeTestClock("2026-11-22T10:00:00Z")
const d = (s: string) => s as LocalDate

layer(TestApp().pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("reservations over HTTP", (it) => {
  it.effect("quote → intent → public view → completion: GUEST_COMPLETED, PMS PENDING, a reservation number", () =>
    Effect.gen(function*() {
      const q = yield* quoteStay("2026-12-10", "2026-12-13", [{ room_type_id: "double", adults: 2, children_ages: [1] }])
      const offer = q.package_offers.find((o) => o.rate_code === "FLEX_BB")!
      const [intent, intentResponse] = yield* (yield* apiClient).reservations.createIntent({
        headers: {},
        payload: { quote_id: q.quote_id, package_code: offer.package_code, language: "fr" },
        responseMode: "decoded-and-response"
      })
      expect(intentResponse.headers["cache-control"]).toBe("no-store")
      expect(intent).toMatchObject({
        status: "PENDING_GUEST",
        language: "fr",
        payment_required: false,
        workflow: "v12",
        expires_at: "2026-11-23T11:00:00+01:00"
      })
      expect(intent.continue_url).toMatch(/^http:\/\/hotel\.test\/complete#token=[A-Za-z0-9_-]{43}$/)
      const token = tokenOf(intent.continue_url)
      const guestApi = yield* apiClientWith(token)

      const [view, viewResponse] = yield* guestApi.reservations.publicView({ responseMode: "decoded-and-response" })
      expect(viewResponse.headers["cache-control"]).toBe("no-store")
      expect(view).toMatchObject({
        reservation_id: intent.reservation_id,
        status: "PENDING_GUEST",
        reservation_number: null,
        language: "fr",
        stay: { checkin: "2026-12-10", checkout: "2026-12-13", nights: 3, check_in_time: "14:00", check_out_time: "12:00" },
        rooms: [{ room_index: 0, room_type_id: "double", room_name: "Chambre Double", quantity: 1, adults: 2, children_ages: [1] }],
        package: { rate_code: "FLEX_BB", name: "Flexible avec petit-déjeuner", breakfast_included: true, refundable: true },
        price: offer.price,
        policies: { refundable: true, free_cancellation_until: "2026-12-08T14:00:00+01:00", check_in_from: "14:00", check_out_by: "12:00" },
        allowed_actions: ["complete"],
        terms: { version: "2026-11" },
        payment_required: false
      })
      expect(view.terms.text).toContain("14h00")
      const fields = view.guest_fields
      expect(fields.filter((f) => f.required).map((f) => f.name)).toEqual(["first_name", "last_name", "email", "phone"])
      expect(fields.map((f) => f.name)).toEqual(expect.arrayContaining(["country", "arrival_time", "special_requests", "baby_cot", "early_check_in_request", "late_check_out_request"]))
      expect(fields.find((f) => f.name === "first_name")!.label).toBe("Prénom")

      const done = yield* complete(token, offer.price.total, { baby_cot: true, arrival_time: "16:30", country: "ES" })
      expect(done).toMatchObject({ status: "GUEST_COMPLETED", pms_status: "PENDING", price: offer.price })
      expect(done.reservation_number).toMatch(/^BR-[2-9A-HJKMNP-Z]{6}$/)
      expect(done.message).toContain("Réservation finalisée")

      // completing again never makes a second reservation; the answer, as sent, holds no token
      const again = yield* completeWith(token, offer.price.total / 100)
      expect(again.body.reservation_number).toBe(done.reservation_number)
      expect(JSON.stringify(again.body)).not.toMatch(/token/i)
      const stored = yield* (yield* ReservationRepo).find(intent.reservation_id)
      expect(stored._tag === "Some" && stored.value.guest).toEqual({
        first_name: "Ana",
        last_name: "Lopez",
        email: "ana@example.com",
        phone: "+34 600 123 456",
        country: "ES",
        arrival_time: "16:30",
        special_requests: null,
        baby_cot: true,
        early_check_in_request: false,
        late_check_out_request: false
      })
      // the room is held on every night of the stay
      const free = yield* freeRooms(d("2026-12-10"), d("2026-12-13"))
      expect(free.find((r) => r.room_type_id === "double")!.free).toBe(11)
      const view2 = yield* guestApi.reservations.publicView()
      expect(view2).toMatchObject({ status: "GUEST_COMPLETED", reservation_number: done.reservation_number, allowed_actions: [], guest: null })
    }))

  it.effect("an intent writes nothing to the inventory", () =>
    Effect.gen(function*() {
      yield* pendingBooking("2027-02-01", "2027-02-03", [{ room_type_id: "twin", adults: 1, quantity: 3 }])
      const free = yield* freeRooms(d("2027-02-01"), d("2027-02-03"))
      expect(free.find((r) => r.room_type_id === "twin")!.free).toBe(8)
    }))

  it.effect("the same Idempotency-Key and body replays the first answer; another body is 422", () =>
    Effect.gen(function*() {
      const q = yield* quoteStay("2026-12-15", "2026-12-16", [{ room_type_id: "twin", adults: 2 }])
      const body = { quote_id: q.quote_id, package_code: "FLEX" }
      const first = yield* post("/v1/reservation-intents", body, { "idempotency-key": "agent-7-attempt-1" })
      const replay = yield* post("/v1/reservation-intents", { package_code: "FLEX", quote_id: q.quote_id }, { "idempotency-key": "agent-7-attempt-1" })
      expect(first.status).toBe(200)
      expect(first.headers["idempotent-replayed"]).toBeUndefined()
      expect(replay.status).toBe(200)
      expect(replay.headers["idempotent-replayed"]).toBe("true")
      expect(replay.body).toEqual(first.body)
      const other = yield* post("/v1/reservation-intents", { ...body, package_code: "NRF" }, { "idempotency-key": "agent-7-attempt-1" })
      expect(other.status).toBe(422)
      expect(other.body.error.code).toBe("idempotency_key_reused")
      // without a key, each call is a new reservation
      const fresh = yield* post("/v1/reservation-intents", body)
      expect(fresh.body.reservation_id).not.toBe(first.body.reservation_id)
      const tooLong = yield* post("/v1/reservation-intents", body, { "idempotency-key": "k".repeat(161) })
      expect(tooLong.status).toBe(400)
    }))

  it.effect("an intent needs an unexpired quote that has the package", () =>
    Effect.gen(function*() {
      const q = yield* quoteStay("2027-03-01", "2027-03-02", [{ room_type_id: "double", adults: 1 }])
      const missing = yield* post("/v1/reservation-intents", { quote_id: q.quote_id, package_code: "HALF_BOARD" })
      expect(missing.status).toBe(409)
      expect(missing.body.error.code).toBe("quote_not_reservable")
      expect(missing.body.error.message).toContain("FLEX")
      const unknown = yield* post("/v1/reservation-intents", { quote_id: "q_unknown", package_code: "FLEX" })
      expect(unknown.status).toBe(404)
      expect(unknown.body.error.code).toBe("not_found")
      const language = yield* post("/v1/reservation-intents", { quote_id: q.quote_id, package_code: "FLEX", language: "de" })
      expect(language.status).toBe(400)
      clock.advance(900_000)
      const expired = yield* post("/v1/reservation-intents", { quote_id: q.quote_id, package_code: "FLEX" })
      expect(expired.status).toBe(409)
      expect(expired.body.error).toMatchObject({ code: "quote_expired", details: { quote_id: q.quote_id } })
      clock.set("2026-11-22T10:00:00Z")
    }))

  it.effect("an unavailable quote cannot be reserved", () =>
    Effect.gen(function*() {
      const q = yield* quoteStay("2027-03-05", "2027-03-06", [{ room_type_id: "deluxe", adults: 2, quantity: 6 }])
      expect(q.status).toBe("unavailable")
      const intent = yield* post("/v1/reservation-intents", { quote_id: q.quote_id, package_code: "FLEX" })
      expect(intent.status).toBe(409)
      expect(intent.body.error.code).toBe("quote_not_reservable")
    }))

  it.effect("the token endpoints answer 401 without a valid guest token", () =>
    Effect.gen(function*() {
      const missing = yield* get("/v1/reservation-public")
      expect(missing.status).toBe(401)
      expect(missing.body.error.code).toBe("missing_token")
      const invalid = yield* get("/v1/reservation-public", { "x-reservation-token": "not-a-token" })
      expect(invalid.status).toBe(401)
      expect(invalid.body.error.code).toBe("invalid_token")
      const completeMissing = yield* post("/v1/reservation-complete", { ...guest, expected_total: 1 })
      expect(completeMissing.body.error.code).toBe("missing_token")
      // no token is longer than 64 characters: refused before any lookup
      const long = yield* get("/v1/reservation-public", { "x-reservation-token": "x".repeat(65) })
      expect(long.status).toBe(401)
      expect(long.body.error).toEqual({ code: "invalid_token", message: "X-Reservation-Token is at most 64 characters" })
    }))

  it.effect("an expected_total beyond any price is 400 naming expected_total", () =>
    Effect.gen(function*() {
      const { token } = yield* pendingBooking("2027-03-20", "2027-03-22", [{ room_type_id: "double", adults: 2 }])
      const huge = yield* completeWith(token, 1_000_000_000)
      expect(huge.status).toBe(400)
      expect(huge.body.error.code).toBe("invalid_request")
      expect(huge.body.error.message).toContain("expected_total")
    }))

  it.effect("an expired guest link is 401 and the reservation becomes EXPIRED", () =>
    Effect.gen(function*() {
      const { intent, token, total } = yield* pendingBooking("2027-03-10", "2027-03-12", [{ room_type_id: "double", adults: 2 }])
      clock.advance(24 * 3_600_000)
      const view = yield* Effect.flip((yield* apiClientWith(token)).reservations.publicView())
      expect(view).toMatchObject({ _tag: "InvalidToken", message: expect.stringContaining("expired") })
      const late = yield* Effect.flip(complete(token, total))
      expect(late._tag).toBe("InvalidToken")
      const stored = yield* (yield* ReservationRepo).find(intent.reservation_id)
      expect(stored._tag === "Some" && stored.value.status).toBe("EXPIRED")
      clock.set("2026-11-22T10:00:00Z")
    }))

  it.effect("the guest link never outlives check-in", () =>
    Effect.gen(function*() {
      const { intent } = yield* pendingBooking("2026-11-23", "2026-11-24", [{ room_type_id: "double", adults: 1 }])
      expect(intent.expires_at).toBe("2026-11-23T11:00:00+01:00")
      clock.set("2026-11-23T03:00:00Z")
      const { intent: tomorrow } = yield* pendingBooking("2026-11-23", "2026-11-24", [{ room_type_id: "double", adults: 1 }])
      expect(tomorrow.expires_at).toBe("2026-11-23T14:00:00+01:00")
      clock.set("2026-11-22T10:00:00Z")
    }))

  const invalidCompletions: ReadonlyArray<[string, Record<string, unknown>, string]> = [
    ["terms not accepted", { accept_terms: false }, "accept_terms"],
    ["old terms", { terms_version: "2025-01" }, "terms_version"],
    ["no email", { email: undefined }, "email"],
    ["a bad email", { email: "ana-at-example" }, "email"],
    ["a bad phone", { phone: "call me" }, "phone"],
    ["an empty first name", { first_name: "" }, "first_name"],
    ["a bad country", { country: "Spain" }, "country"],
    ["a bad arrival time", { arrival_time: "25:00" }, "arrival_time"]
  ]
  for (const [name, change, field] of invalidCompletions) {
    it.effect(`completion with ${name} is 400 and changes nothing`, () =>
      Effect.gen(function*() {
        const { intent, token, total } = yield* pendingBooking("2027-04-01", "2027-04-02", [{ room_type_id: "twin", adults: 1 }])
        const response = yield* completeWith(token, total / 100, change)
        expect(response.status).toBe(400)
        expect(response.body.error.code).toBe("invalid_request")
        expect(response.body.error.message).toContain(field)
        const stored = yield* (yield* ReservationRepo).find(intent.reservation_id)
        expect(stored._tag === "Some" && stored.value.status).toBe("PENDING_GUEST")
      }))
  }

  it.effect("a night reaching 80 % occupancy changes the price: 409 price_changed, then success at the new total", () =>
    Effect.gen(function*() {
      // a Tuesday night, mid season: double 140, early booking -10 %, tax 2 x 2.88
      const stay = ["2027-05-04", "2027-05-05"] as const
      const mine = yield* pendingBooking(...stay, [{ room_type_id: "double", adults: 2 }])
      expect(mine.total).toBe(eur(131.76))
      // others complete 10 of the 12 doubles (83 %) before this guest does
      for (let i = 0; i < 5; i++) {
        const other = yield* pendingBooking(...stay, [{ room_type_id: "double", adults: 2, quantity: 2 }])
        yield* complete(other.token, other.total)
      }
      // the 409 as the wire carries it: amounts in major units
      const changed = yield* completeWith(mine.token, mine.total / 100)
      expect(changed.status).toBe(409)
      expect(changed.body.error).toMatchObject({
        code: "price_changed",
        details: {
          previous_total: 131.76,
          // 140 + 10 % demand = 154, -10 % = 138.60, + 5.76
          new_total: 144.36,
          currency: "EUR",
          rooms: [{ room_index: 0, room_type_id: "double", reason: "price_changed" }]
        }
      })
      const accepted = yield* complete(mine.token, eur(changed.body.error.details.new_total))
      expect(accepted.price.total).toBe(eur(144.36))
    }))

  it.effect("rooms taken by others since the intent: 409 availability_changed naming the room request", () =>
    Effect.gen(function*() {
      const stay = ["2027-06-01", "2027-06-02"] as const
      const mine = yield* pendingBooking(...stay, [{ room_type_id: "double", adults: 1 }, { room_type_id: "deluxe", adults: 2 }])
      const others = yield* pendingBooking(...stay, [{ room_type_id: "deluxe", adults: 2, quantity: 5 }])
      yield* complete(others.token, others.total)
      const response = yield* completeWith(mine.token, mine.total / 100)
      expect(response.status).toBe(409)
      expect(response.body.error).toMatchObject({
        code: "availability_changed",
        details: { rooms: [{ room_index: 1, room_type_id: "deluxe", reason: "sold_out" }], previous_total: null, new_total: null }
      })
      const free = yield* freeRooms(d(stay[0]), d(stay[1]))
      expect(free.find((r) => r.room_type_id === "double")!.free).toBe(12)
    }))
})
