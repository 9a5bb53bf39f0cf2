import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { ReservationId } from "../../src/Domain/Ids.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import { OutboxInMemory } from "../../src/Layers/Persistence/OutboxRepo.js"
import { makeTestClock } from "../support/clock.js"
import { completedBooking, get, manageAct, manageWith, post } from "../support/flow.js"
import { apiClientWith } from "../support/TestApp.js"
import { TestApp } from "../support/TestApp.js"
import { freeRooms } from "../support/hotel.js"

// Today is Sunday 2026-11-22 in hotel time.
const clock = makeTestClock("2026-11-22T10:00:00Z")
const d = (s: string) => s as LocalDate


/** The manage endpoints as raw HTTP: for the error bodies, headers and bytes on the wire. */
const manage = (token: string) => ({
  view: get("/v1/reservation-manage", { "x-reservation-token": token }),
  act: (body: unknown) => post("/v1/reservation-manage", body, { "x-reservation-token": token }),
  document: get("/v1/reservation-document", { "x-reservation-token": token })
})

const jobsOf = (id: ReservationId) =>
  Effect.map(Effect.flatMap(OutboxInMemory, (outbox) => outbox.jobs), (jobs) => jobs.filter((j) => j.reservation_id === id).map((j) => j.kind))

const freeDoubles = (checkin: string, checkout: string) =>
  Effect.map(
    freeRooms(d(checkin), d(checkout)),
    (rows) => rows.find((r) => r.room_type_id === "double")!.free
  )

layer(TestApp().pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("managing a reservation over HTTP", (it) => {
  it.effect("the manage link shows the completed reservation and what the guest may do; completion queued its email and PMS sync", () =>
    Effect.gen(function*() {
      const r = yield* completedBooking("2026-12-10", "2026-12-13", [{ room_type_id: "double", adults: 2 }])
      const [view, response] = yield* (yield* manageWith(r.manageToken)).view({ responseMode: "decoded-and-response" })
      expect(response.headers["cache-control"]).toBe("no-store")
      expect(view).toMatchObject({
        reservation_id: r.id,
        reservation_number: r.number,
        status: "GUEST_COMPLETED",
        pms_status: "PENDING",
        guest: { first_name: "Ana", phone: "+34 600 123 456" },
        policies: { refundable: true, free_cancellation_until: "2026-12-08T14:00:00+01:00" },
        allowed_actions: ["update_guest", "cancel", "change_stay", "resend_confirmation", "download_document"]
      })
      expect(yield* jobsOf(r.id)).toEqual(["confirmation_email", "pms_push"])
    }))

  it.effect("editable_fields are the guest form's fields update_guest takes, as guest_fields gives them; none once cancelled", () =>
    Effect.gen(function*() {
      const r = yield* completedBooking("2026-12-14", "2026-12-16", [{ room_type_id: "double", adults: 2 }])
      const publicView = yield* (yield* apiClientWith(r.guestToken)).reservations.publicView()
      const view = yield* (yield* manageWith(r.manageToken)).view()
      const editable = ["phone", "arrival_time", "special_requests", "baby_cot", "early_check_in_request", "late_check_out_request"]
      expect(view.editable_fields.map((f) => f.name)).toEqual(editable)
      expect(view.editable_fields).toEqual(publicView.guest_fields.filter((f) => editable.includes(f.name)))
      expect(view.editable_fields.find((f) => f.name === "phone")).toMatchObject({
        type: "tel",
        required: true,
        max_length: 26
      })
      const cancelled = yield* manageAct(r.manageToken, { action: "cancel" })
      expect(cancelled.editable_fields).toEqual([])
    }))

  it.effect("only the manage link's token opens the manage endpoints, and it opens nothing else", () =>
    Effect.gen(function*() {
      const r = yield* completedBooking("2026-12-14", "2026-12-15", [{ room_type_id: "double", adults: 1 }])
      for (const call of [manage(r.guestToken).view, manage(r.guestToken).act({ action: "cancel" }), manage(r.guestToken).document]) {
        const response = yield* call
        expect(response.status).toBe(401)
        expect(response.body.error.code).toBe("invalid_token")
      }
      const missing = yield* get("/v1/reservation-manage")
      expect([missing.status, missing.body.error.code]).toEqual([401, "missing_token"])
      const unknown = yield* manage("x".repeat(43)).view
      expect([unknown.status, unknown.body.error.code]).toEqual([401, "invalid_token"])
      const publicView = yield* get("/v1/reservation-public", { "x-reservation-token": r.manageToken })
      expect([publicView.status, publicView.body.error.code]).toEqual([401, "invalid_token"])
      // nothing was cancelled by the refused calls
      expect((yield* (yield* manageWith(r.manageToken)).view()).status).toBe("GUEST_COMPLETED")
    }))

  it.effect("update_guest changes the allowed details, notifies by email and the PMS; other fields are refused", () =>
    Effect.gen(function*() {
      const r = yield* completedBooking("2026-12-16", "2026-12-17", [{ room_type_id: "twin", adults: 2 }])
      const updated = yield* manageAct(r.manageToken, {
        action: "update_guest",
        phone: "+33 6 11 22 33 44",
        arrival_time: "22:15",
        special_requests: "High floor",
        late_check_out_request: true
      })
      expect(updated.guest).toEqual({
        first_name: "Ana",
        last_name: "Lopez",
        email: "ana@example.com",
        phone: "+33 6 11 22 33 44",
        country: null,
        arrival_time: "22:15",
        special_requests: "High floor",
        baby_cot: false,
        early_check_in_request: false,
        late_check_out_request: true
      })
      const cleared = yield* manageAct(r.manageToken, { action: "update_guest", special_requests: null })
      expect(cleared.guest).toMatchObject({ special_requests: null, arrival_time: "22:15" })
      // an email each; the PMS push still waiting carries both updates (it sends the reservation as it is then)
      expect(yield* jobsOf(r.id)).toEqual(["confirmation_email", "pms_push", "guest_update_email", "guest_update_email"])

      // what update_guest refuses, as the wire says it
      const email = yield* manage(r.manageToken).act({ action: "update_guest", email: "other@example.com" })
      expect([email.status, email.body.error.code]).toEqual([400, "invalid_request"])
      expect(email.body.error.message).toContain("email")
      const nothing = yield* manage(r.manageToken).act({ action: "update_guest" })
      expect([nothing.status, nothing.body.error.message]).toEqual([400, expect.stringContaining("at least one field")])
      const phone = yield* manage(r.manageToken).act({ action: "update_guest", phone: "call me" })
      expect([phone.status, phone.body.error.message]).toEqual([400, expect.stringContaining("phone")])
      const unknownAction = yield* manage(r.manageToken).act({ action: "upgrade" })
      expect([unknownAction.status, unknownAction.body.error.code]).toEqual([400, "invalid_request"])
    }))

  it.effect("cancel frees the rooms in the same step; a second cancel is 409 already_cancelled and changes nothing", () =>
    Effect.gen(function*() {
      const r = yield* completedBooking("2026-12-18", "2026-12-20", [{ room_type_id: "double", adults: 2, quantity: 2 }])
      expect(yield* freeDoubles("2026-12-18", "2026-12-20")).toBe(10)
      const cancelled = yield* manageAct(r.manageToken, { action: "cancel" })
      expect(cancelled).toMatchObject({ status: "CANCELLED", pms_status: "PENDING", allowed_actions: [] })
      expect(yield* freeDoubles("2026-12-18", "2026-12-20")).toBe(12)
      expect(yield* jobsOf(r.id)).toEqual(["confirmation_email", "pms_push", "cancellation_email", "pms_cancel"])

      const again = yield* Effect.flip(manageAct(r.manageToken, { action: "cancel" }))
      expect(again._tag).toBe("AlreadyCancelled")
      expect(yield* freeDoubles("2026-12-18", "2026-12-20")).toBe(12)
      const update = yield* Effect.flip(manageAct(r.manageToken, { action: "update_guest", phone: "+33 6 00 00 00 01" }))
      expect(update._tag).toBe("AlreadyCancelled")
      // the refusal as the wire carries it
      const pdf = yield* manage(r.manageToken).document
      expect([pdf.status, pdf.body.error.code]).toEqual([409, "already_cancelled"])
      expect(yield* jobsOf(r.id)).toHaveLength(4)
      expect((yield* (yield* manageWith(r.manageToken)).view()).status).toBe("CANCELLED")
    }))

  it.effect("the guest link shows the booking but never the guest once completed, and once cancelled", () =>
    Effect.gen(function*() {
      const r = yield* completedBooking("2026-12-21", "2026-12-23", [{ room_type_id: "double", adults: 2 }])
      yield* manageAct(r.manageToken, { action: "update_guest", special_requests: "Quiet room, please" })
      // the guest link's answer as sent: no byte of the guest's details in it
      const guestLink = get("/v1/reservation-public", { "x-reservation-token": r.guestToken })
      const withoutGuest = (view: { status: number; text: string; body: Record<string, unknown> }) => {
        expect(view.status).toBe(200)
        expect(view.body.guest).toBeNull()
        for (const personal of ["Ana", "Lopez", "ana@example.com", "600 123 456", "Quiet room"]) expect(view.text).not.toContain(personal)
      }
      const completedView = yield* guestLink
      withoutGuest(completedView)
      expect(completedView.body).toMatchObject({
        status: "GUEST_COMPLETED",
        reservation_number: r.number,
        stay: { checkin: "2026-12-21", checkout: "2026-12-23", nights: 2 },
        rooms: [{ room_type_id: "double", adults: 2 }],
        price: { currency: "EUR" }
      })
      yield* manageAct(r.manageToken, { action: "cancel" })
      const cancelledView = yield* guestLink
      withoutGuest(cancelledView)
      expect(cancelledView.body).toMatchObject({ status: "CANCELLED", reservation_number: r.number })
    }))

  it.effect("a non-refundable rate, or a passed deadline, is 409 cancellation_not_allowed saying why and until when", () =>
    Effect.gen(function*() {
      const nrf = yield* completedBooking("2026-12-21", "2026-12-22", [{ room_type_id: "deluxe", adults: 2 }], "NRF")
      expect((yield* (yield* manageWith(nrf.manageToken)).view()).allowed_actions).not.toContain("cancel")
      const refused = yield* Effect.flip(manageAct(nrf.manageToken, { action: "cancel" }))
      expect(refused).toMatchObject({ _tag: "CancellationNotAllowed", reason: "non_refundable", refundable: false, free_cancellation_until: null })
      expect(refused.message).toContain("non-refundable")

      const flex = yield* completedBooking("2026-11-25", "2026-11-26", [{ room_type_id: "deluxe", adults: 2 }])
      clock.set("2026-11-23T13:00:01Z") // 14:00:01 in Nice, the day the free cancellation ended
      // the refusal as the wire carries it
      const late = yield* manage(flex.manageToken).act({ action: "cancel" })
      clock.set("2026-11-22T10:00:00Z")
      expect(late.status).toBe(409)
      expect(late.body.error).toMatchObject({
        code: "cancellation_not_allowed",
        details: { refundable: true, free_cancellation_until: "2026-11-23T14:00:00+01:00" }
      })
      expect(late.body.error.message).toContain("until 2026-11-23T14:00:00+01:00")
      expect((yield* (yield* manageWith(flex.manageToken)).view()).status).toBe("GUEST_COMPLETED")
    }))

  it.effect("resend_confirmation is limited to one every 5 minutes per reservation (429 with Retry-After)", () =>
    Effect.gen(function*() {
      const r = yield* completedBooking("2027-01-05", "2027-01-06", [{ room_type_id: "twin", adults: 1 }])
      const tooSoon = yield* manage(r.manageToken).act({ action: "resend_confirmation" })
      expect(tooSoon.status).toBe(429)
      expect(tooSoon.headers["retry-after"]).toBe("300")
      expect(tooSoon.body.error).toMatchObject({ code: "rate_limited", details: { retry_after_seconds: 300 } })
      clock.advance(5 * 60_000)
      yield* manageAct(r.manageToken, { action: "resend_confirmation" })
      expect(yield* jobsOf(r.id)).toEqual(["confirmation_email", "pms_push", "confirmation_email"])
    }))

  it.effect("update_guest is limited to 10 a reservation an hour (429 with Retry-After until the first leaves the hour)", () =>
    Effect.gen(function*() {
      const r = yield* completedBooking("2027-01-09", "2027-01-10", [{ room_type_id: "twin", adults: 1 }])
      for (let n = 0; n < 10; n++) {
        yield* manageAct(r.manageToken, { action: "update_guest", arrival_time: `1${n}:00` })
        clock.advance(60_000)
      }
      const refused = yield* manage(r.manageToken).act({ action: "update_guest", arrival_time: "20:00" })
      expect(refused.status).toBe(429)
      expect(refused.headers["retry-after"]).toBe(String(50 * 60))
      expect(refused.body.error).toMatchObject({ code: "rate_limited", details: { retry_after_seconds: 50 * 60 } })
      expect((yield* (yield* manageWith(r.manageToken)).view()).guest?.arrival_time).toBe("19:00")
      expect((yield* jobsOf(r.id)).filter((kind) => kind === "guest_update_email")).toHaveLength(10)
      clock.advance(50 * 60_000)
      yield* manageAct(r.manageToken, { action: "update_guest", arrival_time: "20:00" })
    }))

  it.effect("the confirmation PDF downloads with its file name", () =>
    Effect.gen(function*() {
      const r = yield* completedBooking("2027-01-07", "2027-01-08", [{ room_type_id: "twin", adults: 1 }])
      // its headers and bytes, as sent
      const pdf = yield* manage(r.manageToken).document
      expect(pdf.status).toBe(200)
      expect(pdf.headers["content-type"]).toBe("application/pdf")
      expect(pdf.headers["content-disposition"]).toBe(`attachment; filename="${r.number}.pdf"`)
      expect(pdf.headers["cache-control"]).toBe("no-store")
      expect(pdf.text.startsWith("%PDF-")).toBe(true)
    }))
})
