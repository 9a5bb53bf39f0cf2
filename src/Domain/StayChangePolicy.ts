import { Option } from "effect"
import { freeCancellationLapse, type Refusal } from "./CancellationPolicy.js"
import type { RefusalReason, ReservationRecord } from "./Reservation.js"

/**
 * Who may change a stay and until when (DESIGN §10.3): the holder of the manage link of a completed
 * reservation, on a refundable rate, until the free-cancellation deadline of the current stay (a
 * change is a cancellation and a new booking in one step, so it keeps the cancellation's terms).
 * How a change is priced and applied is StayChange's.
 */

/** Why the stay cannot be changed at `now`, and what the guest can do instead. */
export const changeRefusal = (r: Pick<ReservationRecord, "offer" | "status" | "number">, now: number): Option.Option<Refusal> => {
  const refused = (reason: RefusalReason, why: string): Refusal => ({
    reason,
    message: `the stay of reservation ${r.number ?? ""} cannot be changed: ${why}`
  })
  if (r.status !== "GUEST_COMPLETED") {
    return Option.some(refused("not_completed", `it is ${r.status}; book a new stay with POST /v1/quotes`))
  }
  return Option.map(freeCancellationLapse(r, now), (lapse) =>
    lapse === "non_refundable"
      ? refused(lapse, `the ${r.offer.rate_code} rate is non-refundable; contact the hotel to change it`)
      : refused(lapse, `changes were possible until ${r.offer.free_cancellation_until} (hotel time); contact the hotel to change it`))
}
