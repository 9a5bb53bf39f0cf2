import { Schema } from "effect"

/** Stable `error.code` values of a 400 answer. */
export const ValidationCode = Schema.Literal(
  "invalid_request",
  "invalid_dates",
  "stay_too_long",
  "booking_window_exceeded",
  "occupancy_exceeded",
  "children_ages_mismatch",
  "unknown_room_type",
  "unknown_rate_code"
)
export type ValidationCode = typeof ValidationCode.Type

/** The request is well-formed JSON but breaks a rule; the message names the field. */
export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  code: ValidationCode,
  message: Schema.String
}) {}

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  message: Schema.String
}) {}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  message: Schema.String
}) {}

/** A dependency (the database) does not answer. */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", {
  message: Schema.String
}) {}

/** An unexpected fault; its message never carries internals. */
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", {
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
