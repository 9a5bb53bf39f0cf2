import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { HttpClientRequest } from "effect/http"
import { Tokens } from "../../src/Services/Tokens.js"
import { makeTestClock } from "../support/clock.js"
import { complete, completeWith, pendingBooking, post } from "../support/flow.js"
import { request, TestApp } from "../support/TestApp.js"

const clock = makeTestClock("2026-11-22T10:00:00Z")

/** A JSON body sent as text, so that it can carry escapes JSON.stringify would not write as given. */
const postRaw = (url: string, json: string, headers: Record<string, string> = {}) =>
  request(HttpClientRequest.post(url).pipe(HttpClientRequest.bodyText(json, "application/json"), HttpClientRequest.setHeaders(headers)))

const expectRefused = (response: { status: number; body: any }, field: string) => {
  expect(response.status).toBe(400)
  expect(response.body.error.code).toBe("invalid_request")
  expect(response.body.error.message).toContain(`${field}: must not contain a NUL character`)
}

const stay = { checkin: "2026-12-10", checkout: "2026-12-11", rooms: [{ room_type_id: "double", adults: 1 }] }

layer(TestApp().pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("text PostgreSQL cannot store", (it) => {
  it.effect("a NUL or an unpaired surrogate in a quote's session_id is a 400 naming the field", () =>
    Effect.gen(function*() {
      const base = JSON.stringify(stay).slice(1, -1)
      expectRefused(yield* postRaw("/v1/quotes", `{"session_id":"a\\u0000b",${base}}`), "session_id")
      expectRefused(yield* postRaw("/v1/quotes", `{"session_id":"\\ud800",${base}}`), "session_id")
      expectRefused(yield* postRaw("/v1/quotes", `{"session_id":"x\\udc00y",${base}}`), "session_id")
      // a surrogate pair is an ordinary character
      const emoji = yield* postRaw("/v1/quotes", `{"session_id":"\\ud83d\\ude00",${base}}`)
      expect([emoji.status, emoji.body.session_id]).toEqual([200, "😀"])
    }))

  it.effect("guest details at completion and in a manage update", () =>
    Effect.gen(function*() {
      const pending = yield* pendingBooking("2026-12-12", "2026-12-13", [{ room_type_id: "twin", adults: 1 }])
      expectRefused(yield* completeWith(pending.token, pending.total / 100, { first_name: "Ana\u0000" }), "first_name")
      expectRefused(yield* completeWith(pending.token, pending.total / 100, { special_requests: "late \ud800" }), "special_requests")
      const done = yield* complete(pending.token, pending.total)
      const token = Option.getOrThrow(yield* (yield* Tokens).reveal(done.reservation_id, "manage"))
      expectRefused(
        yield* post("/v1/reservation-manage", { action: "update_guest", special_requests: "\udfff" }, { "x-reservation-token": token }),
        "special_requests"
      )
    }))
})
