import { Schema } from "effect"
import { errorBody } from "../Contract/Errors.js"

/*
 * Errors of the HTTP edge itself: the request as it arrived, its headers, the calling page. No
 * service raises them; the domain's own failures are in `Domain/Errors.ts`.
 */

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  message: Schema.String
}) {}

/** The request line and headers together are over the server's limit (16 KiB), e.g. a huge query string. */
export class HeadersTooLarge extends Schema.TaggedError<HeadersTooLarge>()("HeadersTooLarge", {
  message: Schema.String
}) {}

/** The client did not send the whole request in time. */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()("RequestTimeout", {
  message: Schema.String
}) {}

/** An unexpected fault; its message never carries internals. */
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", {
  message: Schema.String
}) {}

/** No token header (`X-Reservation-Token`, or `Authorization: Bearer` on the channel interface). */
export class MissingToken extends Schema.TaggedError<MissingToken>()("MissingToken", {
  message: Schema.String
}) {}

/** A web page of an origin the service does not allow called an endpoint that browsers may call only from allowed origins. */
export class ForbiddenOrigin extends Schema.TaggedError<ForbiddenOrigin>()("ForbiddenOrigin", {
  message: Schema.String
}) {}

/** The caller's address is not one that may call this interface (`CHANNEL_ALLOWED_ADDRESSES`). */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  message: Schema.String
}) {}

const payloadTooLarge = (limit: string) =>
  errorBody(PayloadTooLarge, 413, `The request body is over ${limit}. error.code: payload_too_large`, () => "payload_too_large")
export const PayloadTooLargeBody = payloadTooLarge("64 KiB")
/** The one endpoint that takes more: a channel message of 1,000 updates. */
export const MessageTooLargeBody = payloadTooLarge("1 MiB")
export const HeadersTooLargeBody = errorBody(
  HeadersTooLarge,
  431,
  "The request line and headers are over 16 KiB (a query string counts). error.code: headers_too_large",
  () => "headers_too_large"
)
export const RequestTimeoutBody = errorBody(
  RequestTimeout,
  408,
  "The request was not received in time. error.code: request_timeout",
  () => "request_timeout"
)
export const InternalErrorBody = errorBody(
  InternalError,
  500,
  "Unexpected fault; no internals are shown. error.code: internal_error",
  () => "internal_error"
)
const missingToken = (header: string) =>
  errorBody(MissingToken, 401, `No ${header} header. error.code: missing_token`, () => "missing_token")
export const MissingTokenBody = missingToken("X-Reservation-Token")
export const MissingBearerBody = missingToken("Authorization: Bearer")
export const ForbiddenBody = errorBody(
  Forbidden,
  403,
  "This client address may not call this interface. error.code: forbidden",
  () => "forbidden"
)
export const ForbiddenOriginBody = errorBody(
  ForbiddenOrigin,
  403,
  "A web page of this origin may not call this endpoint. error.code: forbidden_origin",
  () => "forbidden_origin"
)
