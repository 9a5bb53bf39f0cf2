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
