import type { Option } from "effect"
import { type Refusal, termsRefusal } from "./CancellationPolicy.js"
import type { ReservationRecord } from "./Reservation.js"

/**
 * Who may change a stay and until when (docs/decisions.md#stay-changes): the holder of the manage link of a completed
 * reservation, on a refundable rate, until the free-cancellation deadline of the current stay (a
 * change is a cancellation and a new booking in one step, so it keeps the cancellation's terms).
 * How a change is priced and applied is StayChange's.
 */

/** Why the stay cannot be changed at `now`, and what the guest can do instead. */
export const changeRefusal = (r: Pick<ReservationRecord, "offer" | "status" | "number">, now: number): Option.Option<Refusal> =>
  termsRefusal(r, now, {
    subject: (number) => `the stay of reservation ${number} cannot be changed`,
    notCompleted: (status) => `it is ${status}; book a new stay with POST /v1/quotes`,
    nonRefundable: (rateCode) => `the ${rateCode} rate is non-refundable; contact the hotel to change it`,
    deadlinePassed: (deadline) => `changes were possible until ${deadline} (hotel time); contact the hotel to change it`
  })
