import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import { makeTestClock } from "../support/clock.js"
import { completedBooking, manageWith, post } from "../support/flow.js"
import { TestApp } from "../support/TestApp.js"

// Today is Sunday 2026-11-22 in hotel time.
const clock = makeTestClock("2026-11-22T10:00:00Z")
const d = (s: string) => s as LocalDate

const twoAdults = [{ room_type_id: "double", adults: 2 }]

layer(TestApp().pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("why the manage link refuses an action", (it) => {
  it.effect("refused_actions says why cancel and change_stay are missing from allowed_actions, with the 409's reason", () =>
    Effect.gen(function*() {
      const flex = yield* completedBooking("2026-12-10", "2026-12-11", twoAdults)
      const open = yield* (yield* manageWith(flex.manageToken)).view()
      expect(open.allowed_actions).toContain("cancel")
      expect(open.refused_actions).toEqual([])

      const nrf = yield* completedBooking("2026-12-14", "2026-12-15", twoAdults, "NRF")
      const nrfClient = yield* manageWith(nrf.manageToken)
      expect((yield* nrfClient.view()).refused_actions).toEqual([
        { action: "cancel", reason: "non_refundable", message: expect.stringContaining("the NRF rate is non-refundable") },
        { action: "change_stay", reason: "non_refundable", message: expect.stringContaining("the NRF rate is non-refundable") }
      ])
      const refused = yield* nrfClient.act({ payload: { action: "cancel" } }).pipe(Effect.flip)
      expect(refused).toMatchObject({ _tag: "CancellationNotAllowed", reason: "non_refundable", refundable: false })

      // 14:00:01 in Nice on 2026-11-23: the deadline of a stay arriving on the 25th has passed
      const late = yield* completedBooking("2026-11-25", "2026-11-26", twoAdults)
      clock.set("2026-11-23T13:00:01Z")
      const lateView = yield* (yield* manageWith(late.manageToken)).view()
      const lateCancel = yield* post("/v1/reservation-manage", { action: "cancel" }, { "x-reservation-token": late.manageToken })
      clock.set("2026-11-22T10:00:00Z")
      expect(lateView.allowed_actions).toEqual(["update_guest", "resend_confirmation", "download_document"])
      expect(lateView.refused_actions.map(({ action, reason }) => ({ action, reason }))).toEqual([
        { action: "cancel", reason: "deadline_passed" },
        { action: "change_stay", reason: "deadline_passed" }
      ])
      expect(lateCancel.body.error).toMatchObject({ code: "cancellation_not_allowed", details: { reason: "deadline_passed" } })
      // the view's message is the refusal's
      expect(lateView.refused_actions[0]!.message).toBe(lateCancel.body.error.message)

      const cancelled = yield* (yield* manageWith(flex.manageToken)).act({ payload: { action: "cancel" } })
      expect(cancelled).toMatchObject({ status: "CANCELLED", allowed_actions: [] })
      expect("refused_actions" in cancelled && cancelled.refused_actions.map((r) => r.reason)).toEqual(["not_completed", "not_completed"])
    }))

  it.effect("a change to more rooms than one reservation may hold is a group booking: details.reason group_booking and the hotel's contact", () =>
    Effect.gen(function*() {
      const r = yield* completedBooking("2027-01-11", "2027-01-12", twoAdults)
      const rooms = [{ room_type_id: "double" as RoomTypeId, quantity: 7, adults: 2, children_ages: [] }]
      for (const action of ["quote_change", "change_stay"]) {
        const group = yield* post(
          "/v1/reservation-manage",
          { action, checkin: d("2027-01-11"), checkout: d("2027-01-12"), rooms, ...(action === "change_stay" ? { expected_total: r.total / 100 } : {}) },
          { "x-reservation-token": r.manageToken }
        )
        expect(group.status).toBe(400)
        expect(group.body.error).toEqual({
          code: "invalid_request",
          message: expect.stringMatching(/^rooms: 7 rooms are more than the 6 one reservation may hold/),
          details: { reason: "group_booking", max_rooms: 6, requested_rooms: 7, contact: { email: expect.any(String), phone: expect.any(String) } }
        })
      }
    }))
})
