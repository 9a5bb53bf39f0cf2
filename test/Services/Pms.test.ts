import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import type { Cents } from "../../src/Domain/Money.js"
import { PmsOutcome, PmsReservation, pmsReservation } from "../../src/Domain/Pms.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { Pms, PmsError } from "../../src/Services/Pms.js"
import { demoHotel } from "../support/hotel.js"
import { inMemoryPms, PmsInMemory } from "../support/outsideSystems.js"
import { pmsStub } from "../support/pms.js"
import { completedReservation } from "../support/reservation.js"

/** The demo reservation made with the hotel's promo code, made at 10:15 and changed at 10:19:42 hotel time. */
const payload = pmsReservation(
  demoHotel,
  { ...completedReservation("fr"), promo_code: { code: "DIRECT12", name: "Code de réservation directe" } },
  { line_totals: [31200 as Cents, 17128 as Cents], created_at: "2026-11-22T09:15:00.000Z" },
  new Date("2026-11-22T09:19:42.000Z")
)

const live = (url: string, token?: string) =>
  Pms.layer.pipe(Layer.provide(AppConfig.InMemory({ pmsUrl: Option.some(url), pmsToken: Option.map(Option.fromNullishOr(token), Redacted.make) })))
const push = Effect.flatMap(Pms, (pms) => pms.push(payload, "job-7", Option.some(42n)))
const cancel = Effect.flatMap(Pms, (pms) => pms.cancel("BR-7K3Q9X", "job-8", Option.some(43n)))

describe("Pms over HTTP", () => {
  it.live("pushes the reservation as JSON with PUT {PMS_URL}/reservations/{number}, and keeps the PMS's reference", () =>
    Effect.gen(function*() {
      const stub = yield* pmsStub({ status: 200, body: JSON.stringify({ reference: "PMS-991", received: true }) })
      expect(yield* push.pipe(Effect.provide(live(stub.url)))).toEqual(PmsOutcome.Synced({ reference: "PMS-991" }))
      expect(stub.requests).toHaveLength(1)
      const [request] = stub.requests
      expect(request!.method).toBe("PUT")
      expect(request!.url).toBe("/pms/reservations/BR-7K3Q9X")
      expect(request!.headers["content-type"]).toBe("application/json")
      expect(request!.headers["idempotency-key"]).toBe("BR-7K3Q9X-job-7")
      // the position of the change it carries in the reservation feed: a push-fed system may echo it as reservations_through
      expect(request!.headers["feed-cursor"]).toBe("42")
      const body = JSON.parse(request!.body)
      expect(body).toEqual(yield* Schema.encodeEffect(PmsReservation)(payload))
      expect(body).toMatchObject({
        reservation_number: "BR-7K3Q9X",
        reservation_id: "r_bMs8aVQCIqWPbAYx6TM5",
        status: "GUEST_COMPLETED",
        hotel_id: "belle-rive-nice",
        language: "fr",
        stay: { checkin: "2027-03-12", checkout: "2027-03-15", nights: 3 },
        // each room request's price line, in the currency's major units
        rooms: [
          { room_index: 0, room_type_id: "double", quantity: 1, adults: 2, children_ages: [1], total: 312 },
          { room_index: 1, room_type_id: "twin", quantity: 1, adults: 1, children_ages: [], total: 171.28 }
        ],
        guest: { first_name: "Jeanne", last_name: "Dupont", email: "jeanne.dupont@example.org", baby_cot: true },
        package: { package_code: "FLEX_BB", rate_code: "FLEX_BB", refundable: true, free_cancellation_until: "2027-03-10T14:00:00+01:00" },
        promo_code: "DIRECT12",
        price: { room_total: 466, promotion_discount: 0, tourist_tax: 17.28, total: 483.28, currency: "EUR" },
        created_at: "2026-11-22T10:15:00+01:00",
        updated_at: "2026-11-22T10:19:42+01:00"
      })
    }))

  it.live.each([
    { status: 500, body: "{\"error\":\"database down\"}", retryable: true },
    { status: 503, body: undefined, retryable: true },
    { status: 429, body: undefined, retryable: true },
    { status: 400, body: "{\"error\":\"guest.phone is invalid\"}", retryable: false },
    { status: 409, body: undefined, retryable: false },
    { status: 200, body: "{\"ok\":true}", retryable: false }
  ])("a PUT answered $status is a PmsError, retryable: $retryable", ({ body, retryable, status }) =>
    Effect.gen(function*() {
      const stub = yield* pmsStub(body === undefined ? { status } : { status, body })
      const error = yield* push.pipe(Effect.provide(live(stub.url)), Effect.flip)
      expect(error).toBeInstanceOf(PmsError)
      expect({ retryable: error.retryable, status: error.status }).toEqual({ retryable, status })
      if (status === 400) expect(error.message).toContain("guest.phone is invalid")
    }))

  it.live("with PMS_TOKEN, every call carries it as a bearer token; without, no Authorization header", () =>
    Effect.gen(function*() {
      const stub = yield* pmsStub({ status: 200, body: JSON.stringify({ reference: "PMS-991" }) })
      yield* Effect.zip(push, cancel).pipe(Effect.provide(live(stub.url, "pms-token-42")))
      yield* push.pipe(Effect.provide(live(stub.url)))
      expect(stub.requests.map((r) => [r.method, r.headers.authorization])).toEqual([
        ["PUT", "Bearer pms-token-42"],
        ["DELETE", "Bearer pms-token-42"],
        ["PUT", undefined]
      ])
    }))

  it.live.each([301, 302, 303, 307, 308])(
    "a PMS answering %i is a failed attempt, retried later; the redirect is never followed, so the guest's data stays home",
    (status) =>
      Effect.gen(function*() {
        const elsewhere = yield* pmsStub({ status: 200, body: JSON.stringify({ reference: "ELSEWHERE-1" }) })
        const stub = yield* pmsStub({ status, headers: { location: `${elsewhere.url}/reservations/BR-7K3Q9X` } })
        const pushed = yield* push.pipe(Effect.provide(live(stub.url, "pms-token-42")), Effect.flip)
        expect(pushed).toMatchObject({ _tag: "PmsError", retryable: true, status })
        expect(pushed.message).toContain(`answered ${status}`)
        const cancelled = yield* cancel.pipe(Effect.provide(live(stub.url, "pms-token-42")), Effect.flip)
        expect(cancelled).toMatchObject({ _tag: "PmsError", retryable: true, status })
        expect(stub.requests.map((r) => r.method)).toEqual(["PUT", "DELETE"])
        expect(elsewhere.requests).toEqual([])
      })
  )

  it.live("a PMS that does not listen is a retryable PmsError", () =>
    Effect.gen(function*() {
      const stub = yield* pmsStub({ status: 200 })
      stub.close()
      yield* Effect.sleep("50 millis")
      const error = yield* push.pipe(Effect.provide(live(stub.url)), Effect.flip)
      expect(error).toMatchObject({ _tag: "PmsError", retryable: true })
      expect(error.status).toBeUndefined()
    }))

  it.live.each([
    { status: 200, body: "{\"reference\":\"PMS-991\"}", reference: Option.some("PMS-991") },
    { status: 204, body: undefined, reference: Option.none() },
    { status: 404, body: "{\"error\":\"no such reservation\"}", reference: Option.none() }
  ])("a cancellation is a DELETE of the same resource; answered $status, it is done", ({ body, reference, status }) =>
    Effect.gen(function*() {
      const stub = yield* pmsStub(body === undefined ? { status } : { status, body })
      expect(yield* cancel.pipe(Effect.provide(live(stub.url)))).toEqual(PmsOutcome.Cancelled({ reference }))
      expect(stub.requests.map((r) => [r.method, r.url, r.headers["idempotency-key"], r.headers["feed-cursor"]])).toEqual([
        ["DELETE", "/pms/reservations/BR-7K3Q9X", "BR-7K3Q9X-job-8", "43"]
      ])
    }))

  it.live("a DELETE answered 500 is retryable", () =>
    Effect.gen(function*() {
      const stub = yield* pmsStub({ status: 500 })
      expect(yield* cancel.pipe(Effect.provide(live(stub.url)), Effect.flip)).toMatchObject({ retryable: true, status: 500 })
    }))
})

describe("Pms without PMS_URL", () => {
  it.effect("answers Disabled, so the reservation stays pms_status PENDING", () =>
    Effect.gen(function*() {
      expect(yield* push).toEqual(PmsOutcome.Disabled())
      expect(yield* cancel).toEqual(PmsOutcome.Disabled())
    }).pipe(Effect.provide(Pms.layer.pipe(Layer.provide(AppConfig.InMemory({ pmsUrl: Option.none() }))))))
})

describe("inMemoryPms", () => {
  it.effect("records the calls, and fails the next ones when told to", () =>
    Effect.gen(function*() {
      const pms = yield* PmsInMemory
      yield* pms.failNext(2, new PmsError({ message: "PMS down", retryable: true }))
      expect((yield* push.pipe(Effect.flip)).retryable).toBe(true)
      expect((yield* cancel.pipe(Effect.flip)).retryable).toBe(true)
      expect(yield* push).toEqual(PmsOutcome.Synced({ reference: "PMS-BR-7K3Q9X" }))
      expect(yield* cancel).toEqual(PmsOutcome.Cancelled({ reference: Option.some("PMS-BR-7K3Q9X") }))
      expect(yield* pms.calls).toEqual([
        { _tag: "Push", reservation: payload, changeId: "job-7", feedCursor: Option.some(42n) },
        { _tag: "Cancel", number: "BR-7K3Q9X", changeId: "job-8", feedCursor: Option.some(43n) }
      ])
    }).pipe(Effect.provide(inMemoryPms)))
})
