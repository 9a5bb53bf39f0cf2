import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMethod from "@effect/platform/HttpMethod"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Multipart from "@effect/platform/Multipart"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Cause, Effect, Layer, Option } from "effect"
import { InvalidMessage, listIssues, NotFound, ServiceUnavailable, ValidationError } from "../../Domain/Errors.js"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import { DatabaseOutage } from "../../Services/DatabaseOutage.js"
import { ARI_PATH, MAX_ARI_BODY_BYTES } from "../Contract/Channel.js"
import { isPreflight, preflight } from "./Cors.js"
import { describeIssues, pathIssues } from "../Contract/Errors.js"
import { type BodyLimits, withBoundedBody } from "./RequestBody.js"
import { withResponseHeader } from "./ResponseHeaders.js"
import { isRoute, pathOf } from "./RequestObservation.js"
import { InternalError, PayloadTooLarge } from "./TransportErrors.js"

/** Request bodies are small JSON documents; the framework would otherwise read 50 MB whole. */
export const MAX_BODY_BYTES = 64 * 1024

/** Deeper than any body the API takes (three levels at most). */
export const MAX_JSON_DEPTH = 16

const notJson = new ValidationError({ code: "invalid_request", message: "the request body is not valid JSON" })

const noResource = (request: HttpServerRequest.HttpServerRequest) =>
  new NotFound({ message: `no resource at ${request.method} ${request.url}` })

/**
 * A path is served only as its route spells it. The router alone would also answer `/V1/hotel`,
 * `//v1/hotel`, `/v1/hotel/` and `/v1/%68otel`, spellings that a rule keyed on the path (the rate
 * limit's costs, a proxy's rule) would not know. (An absolute-form target is made its path first,
 * in Server.ts.) `path` is the request's without its query (`pathOf`), worked out once by the caller.
 */
export const onlyRouteSpelling = (
  app: HttpApp.Default,
  request: HttpServerRequest.HttpServerRequest,
  path: string
): HttpApp.Default => (isRoute(path) ? app : Effect.fail(noResource(request))) as HttpApp.Default

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
        return noResource(error.request)
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
export const isUnencodableResponse = (error: unknown): error is HttpApiError.HttpApiDecodeError =>
  error instanceof HttpApiError.HttpApiDecodeError && error.message.startsWith("(<declaration schema> <-> ")

/** Our fault, not the caller's: logged, and answered as an internal error that shows no internals. */
const unexpectedFault = (what: string, cause: Cause.Cause<unknown>) =>
  Effect.logError(what, cause).pipe(
    Effect.zipRight(Effect.fail(new InternalError({ message: "An unexpected error occurred. It has been logged." })))
  )

/**
 * A failure of the database under the request (refused, gone, past its deadline) is answered 503
 * with `Retry-After` (DatabaseOutage); any other defect is our fault.
 */
const answerDefect = (outage: DatabaseOutage, defect: unknown) =>
  Effect.gen(function*() {
    const answer = yield* outage.unavailable(defect)
    return yield* Option.isSome(answer) ? Effect.fail(answer.value) : unexpectedFault("unexpected fault", Cause.die(defect))
  })

const bodyLimits = (maxBytes: number): BodyLimits => ({
  maxBytes,
  tooLarge: new PayloadTooLarge({ message: `the request body is larger than ${maxBytes} bytes` }),
  maxDepth: MAX_JSON_DEPTH,
  tooDeep: new ValidationError({
    code: "invalid_request",
    message: `the request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`
  })
})
const usualBody = bodyLimits(MAX_BODY_BYTES)
const channelMessage = bodyLimits(MAX_ARI_BODY_BYTES)

/** A declared oversize body is refused before it is read; an undeclared one is cut off at the limit. */
const boundBody = (limitsOf: (request: HttpServerRequest.HttpServerRequest) => BodyLimits) => (app: HttpApp.Default<unknown>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const limits = limitsOf(request)
    return Number(NodeHttpServerRequest.toIncomingMessage(request).headers["content-length"] ?? 0) > limits.maxBytes
      ? Effect.fail(limits.tooLarge)
      : HttpMethod.hasBody(request.method)
      ? Effect.provideService(app, HttpServerRequest.HttpServerRequest, withBoundedBody(limits)(request))
      : app
  })

/**
 * Bounded bodies, and every failure as an `Error` body: the framework's own (an unknown route, an
 * unreadable or invalid body) as the domain's errors, a CORS preflight answered, and any other
 * fault, a response that does not encode included, logged and answered as an internal error.
 * A channel message may be larger than any other body, and only while the channel interface is
 * served: otherwise its path is unknown like any other.
 */
export const ErrorsAsBodiesLive = Layer.unwrapEffect(Effect.gen(function*() {
  const { channelToken } = yield* AppConfig
  const outage = yield* DatabaseOutage
  const limitsOf = Option.isNone(channelToken)
    ? () => usualBody
    : (request: HttpServerRequest.HttpServerRequest) =>
      request.method === "POST" && pathOf(request.url) === ARI_PATH ? channelMessage : usualBody
  return HttpApiBuilder.middleware((app: HttpApp.Default) =>
    boundBody(limitsOf)(app as HttpApp.Default<unknown>).pipe(
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
        return error !== defect ? Effect.fail(error) : answerDefect(outage, defect)
      }),
      Effect.tapError((e) => e instanceof ServiceUnavailable ? withResponseHeader("retry-after", String(e.retry_after_seconds)) : Effect.void)
    ) as HttpApp.Default
  )
}))

/**
 * On the channel interface, a request that breaks its schema names every bad field by its path
 * (`details.issues`, `updates[3].min_stay`), as the channel's own bounds do: the hotel's system
 * is told which update to fix. A response that does not encode stays our fault.
 */
export const issuesByPath = (app: HttpApp.Default): HttpApp.Default =>
  Effect.catchIf(
    app as HttpApp.Default<unknown>,
    (error): error is HttpApiError.HttpApiDecodeError =>
      error instanceof HttpApiError.HttpApiDecodeError && !isUnencodableResponse(error),
    (error) => {
      const issues = pathIssues(error.issues)
      return Effect.fail(new InvalidMessage({ message: listIssues(issues), issues }))
    }
  ) as HttpApp.Default
