import { Cause, type Context, Effect, Metric, Option } from "effect"
import { HttpEffect, HttpServerError, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { invalidRequest, NotFound, RateLimited, ServiceUnavailable, ValidationError } from "../../Domain/Errors.js"
import * as Metrics from "../../Layers/Platform/Metrics.js"
import type { DatabaseOutage } from "../../Services/DatabaseOutage.js"
import { conflictCodeOf, everyErrorBody } from "../Contract/ErrorBodies.js"
import { describeIssues, errorResponse } from "../Contract/Errors.js"
import { isPreflight, preflight } from "./Cors.js"
import { InternalError, PayloadTooLarge } from "./TransportErrors.js"

/*
 * Every failure of a request as an `Error` body with its status. An endpoint's own errors are
 * encoded by the framework within its route (`RequestErrors`, `ChannelRequestErrors`); the rest
 * is answered here, from the cause the application failed with (`answerCause`).
 */

/** An answer of the HTTP application; the transport's steps take it and give one back. */
export type App<E = never, R = never> = Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>

export const notJson = invalidRequest("the request body is not valid JSON")

export const noResource = (request: HttpServerRequest.HttpServerRequest) =>
  new NotFound({ message: `no resource at ${request.method} ${request.url}` })

const answerOf = errorResponse(everyErrorBody)

/** The seconds after which an error says to try again: `Retry-After`. */
const retryAfterOf = (error: unknown): number | undefined =>
  error instanceof ServiceUnavailable || error instanceof RateLimited ? error.retry_after_seconds : undefined

/** Our fault, not the caller's: logged, and answered as an internal error that shows no internals. */
const unexpectedFault = (what: string, cause: Cause.Cause<unknown>) =>
  Effect.logError(what, cause).pipe(
    Effect.andThen(answer(new InternalError({ message: "An unexpected error occurred. It has been logged." })))
  )

/**
 * The `Error` answer of `error`, with `Retry-After` when it says when to retry; any error that has
 * no body of ours is our fault.
 */
export const answer = (error: unknown): App =>
  Effect.flatMap(answerOf(error), (response) => {
    if (Option.isNone(response)) return unexpectedFault("unexpected error", Cause.fail(error))
    const retryAfter = retryAfterOf(error)
    return Effect.succeed(
      retryAfter === undefined ? response.value : HttpServerResponse.setHeader(response.value, "retry-after", String(retryAfter))
    )
  })

/**
 * What an endpoint's error adds to the answer the framework encodes for it: `Retry-After` on a
 * 429 or a 503, and a 409 counted in `hotel.conflicts` by its error code. The implementation of
 * the middleware that declares the errors every endpoint may answer.
 */
export const signalEndpointErrors = <A, E, R>(
  handler: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.tapError(handler, (error) => {
    const retryAfter = retryAfterOf(error)
    if (retryAfter !== undefined) {
      return HttpEffect.appendPreResponseHandler((_request, response) =>
        Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(retryAfter)))
      )
    }
    const conflict = conflictCodeOf(error)
    return conflict === undefined ? Effect.void : Metric.update(Metrics.conflicts({ reason: conflict }), 1)
  })

/** A request the framework's schemas refuse: its path, query, headers or body. A response that does not encode is no such thing. */
export const isRequestSchemaError = (defect: unknown): defect is HttpApiError.HttpApiSchemaError =>
  HttpApiError.HttpApiSchemaError.is(defect) && defect.kind !== "Body" && defect.kind !== "ResponseHeaders"

/** The framework's refusal of a body that is no JSON at all (it parses the text itself). */
const isInvalidJson = (error: HttpApiError.HttpApiSchemaError) =>
  error.kind === "Payload" && error.cause.issue._tag === "InvalidValue" &&
  error.cause.issue.annotations?.message === "Expected a valid JSON body"

/**
 * A defect the framework raises for the caller's request (or a failure a route raises for it), as
 * the domain's error: a body that cannot be read (too large, too deep, no JSON:
 * `RequestParseError`) or that breaks the endpoint's schema. None for anything else.
 */
export const callersFault = (defect: unknown): Option.Option<ValidationError | PayloadTooLarge> => {
  if (isRequestSchemaError(defect)) {
    return Option.some(
      isInvalidJson(defect)
        ? notJson
        : invalidRequest(describeIssues(defect.cause.issue) ?? defect.cause.message)
    )
  }
  if (HttpServerError.isHttpServerError(defect) && defect.reason._tag === "RequestParseError") {
    const { cause } = defect.reason
    return Option.some(cause instanceof PayloadTooLarge || cause instanceof ValidationError ? cause : notJson)
  }
  return Option.none()
}

/**
 * The answer to the cause a request failed with, read in this order:
 * - an interruption alone (the client gone) stays one: there is no one to answer;
 * - an unknown route is a `NotFound`, or the answer to a CORS preflight, which takes its place;
 * - the caller's fault the framework met (`callersFault`) is a 400 or a 413;
 * - a failure is its error's own answer;
 * - a response that does not encode is our fault;
 * - a failure of the database under the request (refused, gone, past its deadline) is a 503 with
 *   `Retry-After` (`DatabaseOutage`), and any other defect our fault.
 */
export const answerCause = (
  outage: Context.Service.Shape<typeof DatabaseOutage>,
  request: HttpServerRequest.HttpServerRequest,
  path: string
) =>
(cause: Cause.Cause<unknown>): App => {
  const failure = cause.reasons.find(Cause.isFailReason)
  const defect = cause.reasons.find(Cause.isDieReason)
  if (failure === undefined && defect === undefined) {
    return Effect.failCause(Cause.fromReasons(cause.reasons.filter(Cause.isInterruptReason)))
  }
  const reason = failure !== undefined ? failure.error : defect!.defect
  if (HttpServerError.isHttpServerError(reason) && reason.reason._tag === "RouteNotFound") {
    return isPreflight(request.method, path) ? Effect.succeed(preflight) : answer(noResource(request))
  }
  const callers = callersFault(reason)
  if (Option.isSome(callers)) return answer(callers.value)
  if (failure !== undefined) return answer(reason)
  if (HttpApiError.HttpApiSchemaError.is(reason)) {
    return unexpectedFault("a response does not encode", Cause.fail(describeIssues(reason.cause.issue) ?? reason.cause.message))
  }
  return Effect.flatMap(outage.unavailable(reason), (unavailable) =>
    Option.isSome(unavailable) ? answer(unavailable.value) : unexpectedFault("unexpected fault", Cause.die(reason)))
}
