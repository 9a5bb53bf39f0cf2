import { Schema } from "effect"
import * as Metrics from "../../Layers/Platform/Metrics.js"
import {
  AlreadyCancelledBody,
  AvailabilityChangedBody,
  CancellationNotAllowedBody,
  ChangeNotAllowedBody,
  GroupBookingRequiredBody,
  GroupStayChangeBody,
  IdempotencyInProgressBody,
  IdempotencyKeyReusedBody,
  InvalidMessageBody,
  InvalidPromoCodeBody,
  InvalidTokenBody,
  MessageIdReusedBody,
  NotFoundBody,
  PriceChangedBody,
  QuoteExpiredBody,
  QuoteNotReservableBody,
  RateLimitedBody,
  ReservationNotPendingBody,
  ServiceUnavailableBody,
  ValidationErrorBody
} from "./Errors.js"
import {
  ForbiddenBody,
  ForbiddenOriginBody,
  HeadersTooLargeBody,
  InternalErrorBody,
  MissingBearerBody,
  PayloadTooLargeBody,
  RequestTimeoutBody
} from "../Transport/TransportErrors.js"

/**
 * The `Error` body of every error the API answers, each once: the one list an error met outside a
 * handler (the transport) or failed with by an MCP tool is encoded from. Which errors an endpoint
 * may answer, in the document, is said by the endpoint and by `RequestErrors` (Api.ts); bodies that
 * differ only in their document's words (a 64 KiB or a 1 MiB limit) encode alike, so one stands here.
 */
export const everyErrorBody = [
  ValidationErrorBody,
  InvalidPromoCodeBody,
  InvalidMessageBody,
  MessageIdReusedBody,
  NotFoundBody,
  InvalidTokenBody,
  MissingBearerBody,
  ForbiddenBody,
  ForbiddenOriginBody,
  QuoteExpiredBody,
  QuoteNotReservableBody,
  GroupBookingRequiredBody,
  GroupStayChangeBody,
  IdempotencyKeyReusedBody,
  IdempotencyInProgressBody,
  AvailabilityChangedBody,
  PriceChangedBody,
  ReservationNotPendingBody,
  CancellationNotAllowedBody,
  ChangeNotAllowedBody,
  AlreadyCancelledBody,
  RequestTimeoutBody,
  PayloadTooLargeBody,
  HeadersTooLargeBody,
  RateLimitedBody,
  ServiceUnavailableBody,
  InternalErrorBody
] as const

/** The answers whose status is 409, each with its error code (`errorBody`). */
const conflicts = everyErrorBody.flatMap((body) => {
  const annotations = Schema.resolveAnnotations(body)
  return annotations?.httpApiStatus === 409
    ? [{ is: Schema.is(Schema.toType(body)), code: annotations.errorCode as (error: unknown) => string }]
    : []
})

/** Only the codes the API answers 409 with are reasons: a label takes its values from a closed set. */
const conflictReasons: ReadonlySet<string> = new Set(Metrics.CONFLICT_REASONS)

/** The error code of `error` when it is answered 409 and counted as a conflict (`hotel.conflicts`). */
export const conflictCodeOf = (error: unknown): string | undefined => {
  const code = conflicts.find(({ is }) => is(error))?.code(error)
  return code !== undefined && conflictReasons.has(code) ? code : undefined
}
