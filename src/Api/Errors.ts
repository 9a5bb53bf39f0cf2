import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"
import {
  AlreadyCancelled,
  AvailabilityChanged,
  CancellationNotAllowed,
  ForbiddenOrigin,
  GroupBookingRequired,
  HeadersTooLarge,
  IdempotencyInProgress,
  IdempotencyKeyReused,
  InternalError,
  InvalidToken,
  MissingToken,
  NotFound,
  PayloadTooLarge,
  PriceChanged,
  QuoteExpired,
  QuoteNotReservable,
  RateLimited,
  RequestTimeout,
  ReservationNotPending,
  ServiceUnavailable,
  ValidationCode,
  ValidationError
} from "../Domain/Errors.js"
import { ChangeDetails } from "../Domain/Reservation.js"

/** The one error shape of every non-2xx answer (spec: Error). */
export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: Schema.String.annotations({ description: "Stable machine-readable code", examples: ["invalid_dates"] }),
    message: Schema.String.annotations({ description: "What went wrong, naming the field" }),
    details: Schema.optional(Schema.Unknown.annotations({
      jsonSchema: { type: "object", description: "What a client needs to act on the error (e.g. the new total of a 409 price_changed)" }
    }))
  })
}).annotations({
  identifier: "Error",
  examples: [{ error: { code: "invalid_dates", message: "checkout must be after checkin" } }]
})
export type ErrorBody = typeof ErrorBody.Type

/**
 * The message of a request that breaks its schema: one per field, the first issue found for it
 * (later ones repeat it for other union members); undefined when no issue names anything.
 */
export const describeIssues = (
  issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>
): string | undefined => {
  const byField = new Map<string, string>()
  for (const issue of issues) {
    const field = issue.path.length > 0 ? issue.path.join(".") : "request"
    if (!byField.has(field)) byField.set(field, `${field}: ${issue.message}`)
  }
  return byField.size === 0 ? undefined : [...byField.values()].join("; ")
}

interface ErrorClass<E extends { readonly message: string }> {
  new(props: any, disableValidation?: boolean): E
}

/**
 * A domain error on the wire: encoded as the `Error` body with `code`, decoded back to the
 * domain class (for typed clients).
 */
export const errorBody = <E extends { readonly message: string }>(
  ErrorClass: ErrorClass<E> & Schema.Schema<E, any, never>,
  description: string,
  code: (error: E) => string,
  details?: (error: E) => unknown
) =>
  Schema.transform(ErrorBody, Schema.typeSchema(ErrorClass), {
    strict: false,
    decode: ({ error }) => new ErrorClass({ ...(error.details as object | undefined), code: error.code, message: error.message }, true),
    encode: (error) => {
      const extra = details?.(error)
      return { error: { code: code(error), message: error.message, ...(extra === undefined ? {} : { details: extra }) } }
    }
  }).annotations({ identifier: "Error", description })

export const ValidationErrorBody = errorBody(
  ValidationError,
  `Invalid request. error.code: ${ValidationCode.literals.join(", ")}`,
  (e) => e.code
)
export const NotFoundBody = errorBody(NotFound, "No such resource. error.code: not_found", () => "not_found")
export const PayloadTooLargeBody = errorBody(
  PayloadTooLarge,
  "The request body is over 64 KiB. error.code: payload_too_large",
  () => "payload_too_large"
)
export const HeadersTooLargeBody = errorBody(
  HeadersTooLarge,
  "The request line and headers are over 16 KiB (a query string counts). error.code: headers_too_large",
  () => "headers_too_large"
)
export const RequestTimeoutBody = errorBody(
  RequestTimeout,
  "The request was not received in time. error.code: request_timeout",
  () => "request_timeout"
)
export const InternalErrorBody = errorBody(
  InternalError,
  "Unexpected fault; no internals are shown. error.code: internal_error",
  () => "internal_error"
)
export const ServiceUnavailableBody = errorBody(
  ServiceUnavailable,
  "A dependency does not answer; retry later. error.code: unavailable",
  () => "unavailable"
)

export const MissingTokenBody = errorBody(
  MissingToken,
  "No X-Reservation-Token header. error.code: missing_token",
  () => "missing_token"
).annotations(HttpApiSchema.annotations({ status: 401 }))
export const InvalidTokenBody = errorBody(
  InvalidToken,
  "The token is unknown, expired or not for this resource. error.code: invalid_token",
  () => "invalid_token"
).annotations(HttpApiSchema.annotations({ status: 401 }))

export const QuoteExpiredBody = errorBody(
  QuoteExpired,
  "The quote's expires_at has passed: quote again. error.code: quote_expired",
  () => "quote_expired",
  (e) => ({ quote_id: e.quote_id, expired_at: e.expired_at })
)
export const QuoteNotReservableBody = errorBody(
  QuoteNotReservable,
  "The quote cannot be reserved (no such package, or no longer available). error.code: quote_not_reservable",
  () => "quote_not_reservable",
  (e) => ({ quote_id: e.quote_id })
)
export const GroupBookingRequiredBody = errorBody(
  GroupBookingRequired,
  "The quote asks for more rooms than one reservation may hold (the quote said so: reservable false): details give " +
    "reason group_booking, max_rooms, requested_rooms and the hotel's contact, who books groups. error.code: quote_not_reservable",
  () => "quote_not_reservable",
  (e) => ({ quote_id: e.quote_id, reason: e.reason, max_rooms: e.max_rooms, requested_rooms: e.requested_rooms, contact: e.contact })
)
export const IdempotencyKeyReusedBody = errorBody(
  IdempotencyKeyReused,
  "The Idempotency-Key was used with another body. error.code: idempotency_key_reused",
  () => "idempotency_key_reused"
)
export const IdempotencyInProgressBody = errorBody(
  IdempotencyInProgress,
  "The first request with this Idempotency-Key is still running: retry shortly. error.code: idempotency_in_progress",
  () => "idempotency_in_progress"
)

const encodeChange = Schema.encodeSync(ChangeDetails)

export const AvailabilityChangedBody = errorBody(
  AvailabilityChanged,
  "Rooms are no longer available; details.rooms says which room request and why. error.code: availability_changed",
  () => "availability_changed",
  (e) => encodeChange({ previous_total: null, new_total: null, currency: e.currency, rooms: e.rooms })
)
export const PriceChangedBody = errorBody(
  PriceChanged,
  "The live total differs from expected_total; complete again with details.new_total to accept it. error.code: price_changed",
  () => "price_changed",
  (e) =>
    encodeChange({
      previous_total: e.previous_total,
      new_total: e.new_total,
      currency: e.currency,
      rooms: e.rooms
    })
)
export const ReservationNotPendingBody = errorBody(
  ReservationNotPending,
  "The reservation is no longer pending (expired or cancelled). error.code: reservation_not_pending",
  () => "reservation_not_pending",
  (e) => ({ status: e.status })
)

export const CancellationNotAllowedBody = errorBody(
  CancellationNotAllowed,
  "The rate is non-refundable or the free-cancellation deadline has passed; details say which and until when. " +
    "error.code: cancellation_not_allowed",
  () => "cancellation_not_allowed",
  (e) => ({ refundable: e.refundable, free_cancellation_until: e.free_cancellation_until })
)
export const AlreadyCancelledBody = errorBody(
  AlreadyCancelled,
  "The reservation is already cancelled; nothing was changed. error.code: already_cancelled",
  () => "already_cancelled"
)
export const RateLimitedBody = errorBody(
  RateLimited,
  "Too many requests of this kind: retry after the Retry-After header's seconds. error.code: rate_limited",
  () => "rate_limited",
  (e) => ({ retry_after_seconds: e.retry_after_seconds })
)
export const ForbiddenOriginBody = errorBody(
  ForbiddenOrigin,
  "A web page of this origin may not call this endpoint. error.code: forbidden_origin",
  () => "forbidden_origin"
)
