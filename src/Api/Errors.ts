import { Schema } from "effect"
import { InternalError, NotFound, PayloadTooLarge, ServiceUnavailable, ValidationCode, ValidationError } from "../Domain/Errors.js"

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
