import { Schema } from "effect"
import { GroupBooking, HotelContact } from "./BookingLimits.js"
import { Cents, Currency } from "./Money.js"
import { ChangedRoom, RefusalReason } from "./Reservation.js"

/** Stable `error.code` values of a 400 answer. */
export const ValidationCode = Schema.Literals([
  "invalid_request",
  "invalid_dates",
  "stay_too_long",
  "booking_window_exceeded",
  "occupancy_exceeded",
  "children_ages_mismatch",
  "unknown_room_type",
  "unknown_rate_code",
  "range_too_long"
])
export type ValidationCode = typeof ValidationCode.Type

/** The request is well-formed JSON but breaks a rule; the message names the field. */
export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  code: ValidationCode,
  message: Schema.String
}) {}

/** One constructor per code: `invalidDates("to: must not be before from")`. */
const withCode = (code: ValidationCode) => (message: string) => new ValidationError({ code, message })
export const invalidRequest = withCode("invalid_request")
export const invalidDates = withCode("invalid_dates")
export const stayTooLong = withCode("stay_too_long")
export const bookingWindowExceeded = withCode("booking_window_exceeded")
export const occupancyExceeded = withCode("occupancy_exceeded")
export const childrenAgesMismatch = withCode("children_ages_mismatch")
export const unknownRoomType = withCode("unknown_room_type")
export const unknownRateCode = withCode("unknown_rate_code")
export const rangeTooLong = withCode("range_too_long")

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  message: Schema.String
}) {}

/** A dependency (the database, the PDF drawing) does not answer: retry after `retry_after_seconds` (1 to 30). */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", {
  message: Schema.String,
  retry_after_seconds: Schema.Int
}) {}

/** The health check: the database does not answer within a second. */
export class DatabaseDown extends Schema.TaggedError<DatabaseDown>()("DatabaseDown", {
  message: Schema.String
}) {}

/** The quote's `expires_at` has passed: quote again. */
export class QuoteExpired extends Schema.TaggedError<QuoteExpired>()("QuoteExpired", {
  message: Schema.String,
  quote_id: Schema.String,
  expired_at: Schema.String
}) {}

/** The quote cannot be turned into a reservation (unavailable, or no such package in it). */
export class QuoteNotReservable extends Schema.TaggedError<QuoteNotReservable>()("QuoteNotReservable", {
  message: Schema.String,
  quote_id: Schema.String
}) {}

/** The quote asks for more rooms than one reservation may hold: only the hotel books it (`quote_not_reservable`, reason group_booking). */
export class GroupBookingRequired extends Schema.TaggedError<GroupBookingRequired>()("GroupBookingRequired", {
  message: Schema.String,
  quote_id: Schema.String,
  ...GroupBooking.fields
}) {}

/**
 * A stay change asks for more rooms than one reservation may hold: only the hotel books a group
 * (a 400 on `rooms`, with reason group_booking and the hotel's contact, as an intent's refusal gives them).
 */
export class GroupStayChange extends Schema.TaggedError<GroupStayChange>()("GroupStayChange", {
  message: Schema.String,
  ...GroupBooking.fields
}) {}

/** The token is unknown, of the wrong purpose, or expired. */
export class InvalidToken extends Schema.TaggedError<InvalidToken>()("InvalidToken", {
  message: Schema.String
}) {}

/** The `Idempotency-Key` was used with another request body. */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", {
  message: Schema.String
}) {}

/** The first request with this `Idempotency-Key` is still being processed. */
export class IdempotencyInProgress extends Schema.TaggedError<IdempotencyInProgress>()("IdempotencyInProgress", {
  message: Schema.String
}) {}

/** At completion, some rooms of the stay are no longer free (or their rate can no longer be booked). */
export class AvailabilityChanged extends Schema.TaggedError<AvailabilityChanged>()("AvailabilityChanged", {
  message: Schema.String,
  currency: Currency,
  rooms: Schema.Array(ChangedRoom)
}) {}

/** At completion, the live total differs from the one the guest saw: confirm again with `new_total`. */
export class PriceChanged extends Schema.TaggedError<PriceChanged>()("PriceChanged", {
  message: Schema.String,
  previous_total: Cents,
  new_total: Cents,
  currency: Currency,
  rooms: Schema.Array(ChangedRoom)
}) {}

/** The reservation is not in a state that allows this action (e.g. completing a cancelled one). */
export class ReservationNotPending extends Schema.TaggedError<ReservationNotPending>()("ReservationNotPending", {
  message: Schema.String,
  status: Schema.String
}) {}

/** The reservation cannot be cancelled (`reason`, CancellationPolicy's): its rate is non-refundable, or the free-cancellation deadline has passed. */
export class CancellationNotAllowed extends Schema.TaggedError<CancellationNotAllowed>()("CancellationNotAllowed", {
  message: Schema.String,
  reason: RefusalReason,
  refundable: Schema.Boolean,
  free_cancellation_until: Schema.NullOr(Schema.String)
}) {}

/** The reservation is already cancelled: nothing more can change. */
export class AlreadyCancelled extends Schema.TaggedError<AlreadyCancelled>()("AlreadyCancelled", {
  message: Schema.String
}) {}

/** Too many requests of this kind: try again after `retry_after_seconds`. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  message: Schema.String,
  retry_after_seconds: Schema.Int,
  /** Given when the hotel itself can take what the online limit refused (ROOM_NIGHTS_PER_ADDRESS_PER_DAY). */
  contact: Schema.optionalKey(HotelContact)
}) {}

/** The reservation's stay cannot be changed now (`details.reason`, StayChangePolicy's); the message says what to do instead. */
export class ChangeNotAllowed extends Schema.TaggedError<ChangeNotAllowed>()("ChangeNotAllowed", {
  message: Schema.String,
  reason: RefusalReason
}) {}

/** Why a promo code is refused: not a code of the hotel, switched off or outside its booking dates, or no use left. */
export const PromoCodeRefusal = Schema.Literals(["unknown", "not_active", "used_up"])
export type PromoCodeRefusal = typeof PromoCodeRefusal.Type

/** The request's `promo_code` cannot be used (a valid code that only does not fit the stay is no error). */
export class InvalidPromoCode extends Schema.TaggedError<InvalidPromoCode>()("InvalidPromoCode", {
  message: Schema.String,
  reason: PromoCodeRefusal
}) {}

/** One bad field of a channel message, by its path (`updates[3].min_stay`). */
export const MessageIssue = Schema.Struct({ path: Schema.String, message: Schema.String }).annotate({ identifier: "MessageIssue" })

/** The issues an error message names; `error.details.issues` has them all. */
const MAX_LISTED_ISSUES = 5

/** Bad fields as one line of text, each named by its path. */
export const listIssues = (issues: ReadonlyArray<typeof MessageIssue.Type>): string => {
  // a message of 1,000 bad updates would repeat itself for 50 KB: the first few, and where the rest are
  const shown = issues.slice(0, MAX_LISTED_ISSUES).map(({ message, path }) => `${path}: ${message}`).join("; ")
  return issues.length > MAX_LISTED_ISSUES ? `${shown}; and ${issues.length - MAX_LISTED_ISSUES} more in error.details.issues` : shown
}

/** A channel message breaks a bound (400 `invalid_request`, `error.details.issues`): nothing of it was applied. */
export class InvalidMessage extends Schema.TaggedError<InvalidMessage>()("InvalidMessage", {
  message: Schema.String,
  issues: Schema.Array(MessageIssue)
}) {}

/** A channel message's `message_id` was already used by a message with another body (422 `message_id_reused`). */
export class MessageIdReused extends Schema.TaggedError<MessageIdReused>()("MessageIdReused", {
  message: Schema.String,
  message_id: Schema.String
}) {}
