import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { ReservationRepo } from "../../src/Layers/Persistence/ReservationRepo.js"
import { makeTestClock } from "../support/clock.js"
import { complete, completedBooking, completeWith, manageAct, manageWith, pendingBooking, post } from "../support/flow.js"
import { pdfText } from "../support/pdfText.js"
import { TestApp } from "../support/TestApp.js"

const clock = makeTestClock("2026-11-22T10:00:00Z")

const expectRefused = (response: { status: number; body: any }, field: string, rule: RegExp) => {
  expect(response.status).toBe(400)
  expect(response.body.error.code).toBe("invalid_request")
  expect(response.body.error.message).toMatch(new RegExp(`${field}: ${rule.source}`))
}

const ONE_LINE = /must be one line/
const PHONE = /must be a phone number/
const LINES = /may hold line breaks/

/** Text that would print as lines of the hotel's own, or reorder what a reader sees (docs/decisions.md#guest-text). */
const DISGUISED = [
  "Dupont\nTotal paid: EUR 0.00 (PAID IN FULL)",
  "Dupont\r\nRoom: upgraded",
  "Dupont\rPAID",
  "Dupont\u202eLLUF NI DIAP",
  "Dupont\u0085PAID",
  "Dupont\u2028PAID",
  "Dupont\u2029PAID",
  "Dupont\u2066PAID\u2069",
  "Dupont\u061cPAID",
  "Dupont\u200fPAID",
  "Dupont\tPAID",
  "Dupont\u007fPAID"
]

/** Raw: the refusals are the wire's 400 bodies. */
const manage = (token: string, changes: Record<string, unknown>) =>
  post("/v1/reservation-manage", { action: "update_guest", ...changes }, { "x-reservation-token": token })

layer(TestApp().pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("guest text cannot impersonate the hotel", (it) => {
  it.effect("at completion, names and email are one line, phone and country too: 400 naming the field", () =>
    Effect.gen(function*() {
      const pending = yield* pendingBooking("2026-12-12", "2026-12-13", [{ room_type_id: "twin", adults: 1 }])
      const refusedWith = (changes: Record<string, unknown>) => completeWith(pending.token, pending.total / 100, changes)
      for (const name of DISGUISED) {
        expectRefused(yield* refusedWith({ last_name: name }), "last_name", ONE_LINE)
        expectRefused(yield* refusedWith({ first_name: name }), "first_name", ONE_LINE)
      }
      expectRefused(yield* refusedWith({ email: "ana\u202e@example.com" }), "email", ONE_LINE)
      expectRefused(yield* refusedWith({ phone: "+33\t6 12 34 56 78" }), "phone", PHONE)
      expectRefused(yield* refusedWith({ phone: "+33 6 12 34 56 78\n" }), "phone", PHONE)
      expectRefused(yield* refusedWith({ country: "F\n" }), "country", /must be an ISO 3166-1 alpha-2 code/)
      for (const words of ["late\u202e arrival", "late\u2028arrival", "late\rarrival", "late\tarrival", "late\u0085arrival"]) {
        expectRefused(yield* refusedWith({ special_requests: words }), "special_requests", LINES)
      }
      // letters of any script, and line breaks in special requests, are what guests write
      yield* complete(pending.token, pending.total, {
        first_name: "Анна-Мария",
        last_name: "O'Brien d’Arc",
        special_requests: "Quiet room, please.\nHigh floor.\r\nCot for a baby."
      })
    }))

  it.effect("update_guest takes the same rule: line breaks in special requests, nothing else", () =>
    Effect.gen(function*() {
      const r = yield* completedBooking("2026-12-14", "2026-12-15", [{ room_type_id: "twin", adults: 1 }])
      expectRefused(yield* manage(r.manageToken, { phone: "+33\t6 12 34 56 78" }), "phone", PHONE)
      for (const words of ["High floor\u202e", "High\u2066floor\u2069", "High\u0085floor", "High\u2029floor"]) {
        expectRefused(yield* manage(r.manageToken, { special_requests: words }), "special_requests", LINES)
      }
      const updated = yield* manageAct(r.manageToken, { action: "update_guest", special_requests: "High floor\r\nFeather-free pillows\nLate dinner" })
      expect(updated.guest?.special_requests).toBe("High floor\r\nFeather-free pillows\nLate dinner")
    }))

  it.effect("a reservation stored before the rule still shows, its name on one line", () =>
    Effect.gen(function*() {
      const r = yield* completedBooking("2026-12-16", "2026-12-17", [{ room_type_id: "twin", adults: 1 }])
      const repo = yield* ReservationRepo
      const stored = Option.getOrThrow(yield* repo.find(r.id))
      yield* repo.updateGuest(r.id, {
        ...stored.guest!,
        last_name: "Dupont\nPAID IN FULL\u202e",
        special_requests: "Quiet\u2028room\nRoom: upgraded\u0085to suite"
      })
      const manage = yield* manageWith(r.manageToken)
      expect((yield* manage.view()).guest?.last_name).toBe("Dupont\nPAID IN FULL\u202e")
      const pdf = yield* manage.document()
      const text = yield* Effect.promise(() => pdfText(pdf))
      expect(text).toMatch(/Guest \S+ Dupont PAID IN FULL\n/)
      // the caption under the label shares the baseline of the framed second line
      expect(text).toContain("Special requests Quiet room\nYour request, in your words: Room: upgraded to suite\n")
    }))
})
