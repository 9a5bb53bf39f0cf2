import { describe, expect, it } from "@effect/vitest"
import { manageView } from "../../src/Domain/Management.js"
import { demoHotel } from "../support/hotel.js"
import { sampleReservation } from "../support/reservation.js"

describe("manageView: what the manage link may do, and why not", () => {
  const flex = sampleReservation({ rateCode: "FLEX" })
  const deadline = Date.parse("2027-03-10T13:00:00Z")
  const refusals = (view: ReturnType<typeof manageView>) => view.refused_actions.map(({ action, reason }) => ({ action, reason }))

  it("before the deadline nothing is refused: cancel and change_stay are allowed", () => {
    const view = manageView(demoHotel, flex, deadline - 1)
    expect(view.allowed_actions).toEqual(["update_guest", "cancel", "change_stay", "resend_confirmation", "download_document"])
    expect(view.refused_actions).toEqual([])
  })

  it("from the deadline on, both are refused with deadline_passed and the API's messages", () => {
    const view = manageView(demoHotel, flex, deadline)
    expect(view.allowed_actions).toEqual(["update_guest", "resend_confirmation", "download_document"])
    expect(view.refused_actions).toEqual([
      {
        action: "cancel",
        reason: "deadline_passed",
        message: "reservation BR-7K3Q9X cannot be cancelled: free cancellation was possible until 2027-03-10T14:00:00+01:00 " +
          "(hotel time); contact the hotel"
      },
      {
        action: "change_stay",
        reason: "deadline_passed",
        message: "the stay of reservation BR-7K3Q9X cannot be changed: changes were possible until " +
          "2027-03-10T14:00:00+01:00 (hotel time); contact the hotel to change it"
      }
    ])
  })

  it("a non-refundable rate: both refused as non_refundable; a cancelled reservation: both as not_completed", () => {
    expect(refusals(manageView(demoHotel, sampleReservation({ rateCode: "NRF" }), 0))).toEqual([
      { action: "cancel", reason: "non_refundable" },
      { action: "change_stay", reason: "non_refundable" }
    ])
    const cancelled = manageView(demoHotel, { ...flex, status: "CANCELLED" }, 0)
    expect(cancelled.allowed_actions).toEqual([])
    expect(refusals(cancelled)).toEqual([{ action: "cancel", reason: "not_completed" }, { action: "change_stay", reason: "not_completed" }])
  })
})
