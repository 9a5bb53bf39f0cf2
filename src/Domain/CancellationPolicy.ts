import { Option } from "effect"
import type { HotelDefinition } from "./Hotel.js"
import { addDays, formatInstant, type LocalDate, localInstant } from "./LocalDate.js"
import type { RefusalReason, ReservationRecord } from "./Reservation.js"

/**
 * Free cancellation (docs/decisions.md#reservations): a refundable rate cancels free of charge until the hotel's
 * `cancellation.free_until_time`, `free_until_days_before` days before check-in, in hotel time; a
 * non-refundable rate never does. Every other place asks here: pricing stamps the deadline on each
 * offer, the manage link cancels (and changes the stay, StayChangePolicy) on these terms, and the
 * manage view says why not in `refused_actions`.
 */

/** The deadline of a stay arriving on `checkin`: an ISO date-time with the hotel's offset, as offers carry it. */
export const freeCancellationUntil = (hotel: Pick<HotelDefinition, "cancellation" | "timezone">, checkin: LocalDate): string => {
  const { cancellation, timezone } = hotel
  return formatInstant(localInstant(addDays(checkin, -cancellation.free_until_days_before), cancellation.free_until_time, timezone), timezone)
}

/** The terms a reservation was sold on: its offer's refundability and deadline. */
type Terms = Pick<ReservationRecord, "offer">

/**
 * Why the free-cancellation terms of the current stay no longer hold at `now` (epoch ms), if they do
 * not: at the deadline itself they already do not.
 */
export const freeCancellationLapse = (r: Terms, now: number): Option.Option<"non_refundable" | "deadline_passed"> => {
  const deadline = r.offer.free_cancellation_until
  if (!r.offer.refundable || deadline === null) return Option.some("non_refundable")
  return now >= Date.parse(deadline) ? Option.some("deadline_passed") : Option.none()
}

/** An action refused, with its code and its message (the API's, in English). */
export interface Refusal {
  readonly reason: RefusalReason
  readonly message: string
}

/** What a refusal on the free-cancellation terms says: what is refused, then why, in each case. */
export interface TermsSentences {
  /** what is refused, for the reservation of this number: "reservation R cannot be cancelled" */
  readonly subject: (number: string) => string
  readonly notCompleted: (status: string) => string
  readonly nonRefundable: (rateCode: string) => string
  readonly deadlinePassed: (deadline: string | null) => string
}

/**
 * Why an action held to the free-cancellation terms (cancelling, changing the stay) is refused at
 * `now`, if it is: the reservation is not completed, or the terms no longer hold.
 */
export const termsRefusal = (
  r: Pick<ReservationRecord, "offer" | "status" | "number">,
  now: number,
  sentences: TermsSentences
): Option.Option<Refusal> => {
  const refused = (reason: RefusalReason, why: string): Refusal => ({
    reason,
    message: `${sentences.subject(r.number ?? "")}: ${why}`
  })
  if (r.status !== "GUEST_COMPLETED") return Option.some(refused("not_completed", sentences.notCompleted(r.status)))
  return Option.map(freeCancellationLapse(r, now), (lapse) =>
    lapse === "non_refundable"
      ? refused(lapse, sentences.nonRefundable(r.offer.rate_code))
      : refused(lapse, sentences.deadlinePassed(r.offer.free_cancellation_until)))
}

/** Why the reservation cannot be cancelled at `now`, if it cannot. */
export const cancellationRefusal = (r: Pick<ReservationRecord, "offer" | "status" | "number">, now: number): Option.Option<Refusal> =>
  termsRefusal(r, now, {
    subject: (number) => `reservation ${number} cannot be cancelled`,
    notCompleted: (status) => `it is ${status}; contact the hotel`,
    nonRefundable: (rateCode) => `the ${rateCode} rate is non-refundable: it cannot be cancelled free of charge; contact the hotel`,
    deadlinePassed: (deadline) => `free cancellation was possible until ${deadline} (hotel time); contact the hotel`
  })
