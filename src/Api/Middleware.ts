import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMethod from "@effect/platform/HttpMethod"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Multipart from "@effect/platform/Multipart"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Cause, Effect } from "effect"
import { NotFound, ValidationError } from "../Domain/Errors.js"
import { isPreflight, preflight } from "./Cors.js"
import { describeIssues } from "./Errors.js"
import { withBoundedBody } from "./RequestBody.js"
import { InternalError, PayloadTooLarge } from "./TransportErrors.js"

/** Request bodies are small JSON documents; the framework would otherwise read 50 MB whole. */
export const MAX_BODY_BYTES = 64 * 1024

/** Deeper than any body the API takes (three levels at most). */
export const MAX_JSON_DEPTH = 16

const notJson = new ValidationError({ code: "invalid_request", message: "the request body is not valid JSON" })

/** Every failure the framework raises becomes a domain error, so it is answered as an `Error` body. */
const toDomainError = (error: unknown): unknown => {
  if (error instanceof HttpApiError.HttpApiDecodeError) {
    return new ValidationError({ code: "invalid_request", message: describeIssues(error.issues) ?? error.message })
  }
  // a multipart body, refused unread (RequestBody)
  if (error instanceof Multipart.MultipartError) return notJson
  if (HttpServerError.isServerError(error)) {
    switch (error._tag) {
      case "RouteNotFound":
        return new NotFound({ message: `no resource at ${error.request.method} ${error.request.url}` })
      case "RequestError":
        return error.cause instanceof PayloadTooLarge || error.cause instanceof ValidationError ? error.cause : notJson
    }
  }
  return error
}

/**
 * The framework answers a response that does not encode as it answers a request that does not
 * decode: an `HttpApiDecodeError`. Told apart by the schema that failed: a response's is the
 * framework's transformation from its own HttpServerResponse declaration, named first.
 */
const isUnencodableResponse = (error: unknown): error is HttpApiError.HttpApiDecodeError =>
  error instanceof HttpApiError.HttpApiDecodeError && error.message.startsWith("(<declaration schema> <-> ")

/** Our fault, not the caller's: logged, and answered as an internal error that shows no internals. */
const unexpectedFault = (what: string, cause: Cause.Cause<unknown>) =>
  Effect.logError(what, cause).pipe(
    Effect.zipRight(Effect.fail(new InternalError({ message: "An unexpected error occurred. It has been logged." })))
  )

const bodyLimits = {
  maxBytes: MAX_BODY_BYTES,
  tooLarge: new PayloadTooLarge({ message: `the request body is larger than ${MAX_BODY_BYTES} bytes` }),
  maxDepth: MAX_JSON_DEPTH,
  tooDeep: new ValidationError({
    code: "invalid_request",
    message: `the request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`
  })
}

/** A declared oversize body is refused before it is read; an undeclared one is cut off at the limit. */
const boundBody = (app: HttpApp.Default<unknown>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Number(NodeHttpServerRequest.toIncomingMessage(request).headers["content-length"] ?? 0) > MAX_BODY_BYTES
      ? Effect.fail(bodyLimits.tooLarge)
      : HttpMethod.hasBody(request.method)
      ? Effect.provideService(app, HttpServerRequest.HttpServerRequest, withBoundedBody(bodyLimits)(request))
      : app)

/**
 * Bounded bodies, and every failure as an `Error` body: the framework's own (an unknown route, an
 * unreadable or invalid body) as the domain's errors, a CORS preflight answered, and any other
 * fault, a response that does not encode included, logged and answered as an internal error.
 */
export const ErrorsAsBodiesLive = HttpApiBuilder.middleware((app: HttpApp.Default) =>
  boundBody(app as HttpApp.Default<unknown>).pipe(
    Effect.catchAll((error) =>
      isPreflight(error)
        ? preflight
        : isUnencodableResponse(error)
        ? unexpectedFault("a response does not encode", Cause.fail(describeIssues(error.issues) ?? error.message))
        : Effect.fail(toDomainError(error))
    ),
    // the framework raises an unreadable body as a defect
    Effect.catchAllDefect((defect) => {
      const error = toDomainError(defect)
      return error !== defect ? Effect.fail(error) : unexpectedFault("unexpected fault", Cause.die(defect))
    })
  ) as HttpApp.Default
)
