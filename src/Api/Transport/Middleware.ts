import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Cause, type Context, Effect, Metric, Option, Schema } from "effect"
import { HttpMethod, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { InvalidMessage, invalidRequest, listIssues, NotFound, RateLimited, ServiceUnavailable, ValidationError } from "../../Domain/Errors.js"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import * as Metrics from "../../Layers/Platform/Metrics.js"
import { DatabaseOutage } from "../../Services/DatabaseOutage.js"
import { ARI_PATH, MAX_ARI_BODY_BYTES } from "../Contract/Channel.js"
import {
  describeIssues,
  errorResponse,
  pathIssues
} from "../Contract/Errors.js"
import { MCP_PATH } from "../Contract/Discovery.js"
import { everyErrorBody } from "../Contract/ErrorBodies.js"
import { isPreflight, preflight } from "./Cors.js"
import { type BodyLimits, withBoundedBody } from "./RequestBody.js"
import { InternalError, PayloadTooLarge } from "./TransportErrors.js"

/** Request bodies are small JSON documents; the framework would otherwise read them whole, however large. */
export const MAX_BODY_BYTES = 64 * 1024

/** Deeper than any body the API takes (three levels at most). */
export const MAX_JSON_DEPTH = 16

/** An answer of the HTTP application; the transport's steps take it and give one back. */
export type App<E = never, R = never> = Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>

const notJson = invalidRequest("the request body is not valid JSON")

/** A body of another media type than JSON (`refuseMediaType`). */
const notJsonMediaType = invalidRequest("the request body is not JSON: send it with Content-Type: application/json")

export const noResource = (request: HttpServerRequest.HttpServerRequest) =>
  new NotFound({ message: `no resource at ${request.method} ${request.url}` })

/**
 * The answer to every error the transport itself raises or meets (an unknown path, a body too
 * large, a request that does not decode, a database that does not answer, a fault of ours), and
 * a refusal of a route outside the API's contracts (`/internal/metrics`), as the `Error` body with
 * its status.
 */
const answerOf = errorResponse(everyErrorBody)

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
    return Effect.succeed(
      error instanceof ServiceUnavailable || error instanceof RateLimited
        ? HttpServerResponse.setHeader(response.value, "retry-after", String(error.retry_after_seconds))
        : response.value
    )
  })

/** A request the framework's schemas refuse: its path, query, headers or body. A response that does not encode is no such thing. */
const isRequestSchemaError = (defect: unknown): defect is HttpApiError.HttpApiSchemaError =>
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
const callersFault = (defect: unknown): Option.Option<ValidationError | PayloadTooLarge> => {
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
 * The answer to a defect: the caller's fault as a 400 or 413; a failure of the database under the
 * request (refused, gone, past its deadline) as 503 with `Retry-After` (DatabaseOutage); a
 * response that does not encode, and any other defect, as our fault.
 */
const answerDefect = (outage: Context.Service.Shape<typeof DatabaseOutage>, defect: unknown): App =>
  Option.match(callersFault(defect), {
    onSome: answer,
    onNone: () =>
      HttpApiError.HttpApiSchemaError.is(defect)
        ? unexpectedFault("a response does not encode", Cause.fail(describeIssues(defect.cause.issue) ?? defect.cause.message))
        : Effect.flatMap(outage.unavailable(defect), (unavailable) =>
          Option.isSome(unavailable) ? answer(unavailable.value) : unexpectedFault("unexpected fault", Cause.die(defect)))
  })

/**
 * A failure of the application: an unknown route (or a CORS preflight, which takes its place), a
 * body a route read itself and could not, else the error's own answer.
 */
const answerFailure = (request: HttpServerRequest.HttpServerRequest, path: string, error: unknown): App => {
  if (HttpServerError.isHttpServerError(error) && error.reason._tag === "RouteNotFound") {
    return isPreflight(request.method, path) ? Effect.succeed(preflight) : answer(noResource(request))
  }
  return answer(Option.getOrElse(callersFault(error), () => error))
}

/**
 * The failures of an answer as `Error` bodies: its failure (`answerFailure`), else its defect
 * (`answerDefect`); an interruption (the client gone) stays one.
 */
const answerCause = (outage: Context.Service.Shape<typeof DatabaseOutage>, request: HttpServerRequest.HttpServerRequest, path: string) =>
(cause: Cause.Cause<unknown>): App => {
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure !== undefined) return answerFailure(request, path, failure.error)
  const defect = cause.reasons.find(Cause.isDieReason)
  return defect !== undefined
    ? answerDefect(outage, defect.defect)
    : Effect.failCause(Cause.fromReasons(cause.reasons.filter(Cause.isInterruptReason)))
}

/**
 * A route's answer, with `Retry-After` when it is a 429 or a 503 `Error` body, the seconds of its
 * `details.retry_after_seconds`; a 409 counted in `hotel.conflicts` by its error code. An
 * endpoint's error is encoded by the framework within its route, where no step of the transport
 * sees it as an error.
 */
const withRetryAfter = (response: HttpServerResponse.HttpServerResponse): App => {
  if (response.status === 409) {
    const code = errorCodeOf(response)
    return Effect.as(conflictCodes.has(code ?? "") ? Metric.update(Metrics.conflicts({ reason: code! }), 1) : Effect.void, response)
  }
  if ((response.status === 429 || response.status === 503) && response.headers["retry-after"] === undefined) {
    const seconds = retryAfterOf(response)
    if (seconds !== undefined) return Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(seconds)))
  }
  return Effect.succeed(response)
}

/**
 * The framework takes an endpoint's body as JSON only, and answers any other media type 415 before
 * reading it; the API has always read it first (413 past the limit), then said 400. A multipart
 * body is refused unread, as ever: its parts are no JSON, however large.
 */
const refuseMediaType = (request: HttpServerRequest.HttpServerRequest): App =>
  /^\s*multipart\//i.test(request.headers["content-type"] ?? "")
    ? answer(notJson)
    : Effect.matchEffect(request.arrayBuffer, {
      onFailure: (error) => answer(Option.getOrElse(callersFault(error), () => notJsonMediaType)),
      onSuccess: () => answer(notJsonMediaType)
    })

const RetryAfterBody = Schema.Struct({ error: Schema.Struct({ details: Schema.Struct({ retry_after_seconds: Schema.Int }) }) })
const decodeRetryAfter = Schema.decodeUnknownOption(Schema.fromJsonString(RetryAfterBody))
const CodeBody = Schema.Struct({ error: Schema.Struct({ code: Schema.String }) })
const decodeCode = Schema.decodeUnknownOption(Schema.fromJsonString(CodeBody))
const utf8 = new TextDecoder()
/** Only the codes the API answers 409 with are reasons: a label takes its values from a closed set. */
const conflictCodes: ReadonlySet<string> = new Set(Metrics.CONFLICT_REASONS)

const bodyText = (response: HttpServerResponse.HttpServerResponse): string | undefined => {
  const body = response.body
  return body._tag === "Uint8Array" ? body.text ?? utf8.decode(body.body) : undefined
}

/** The `details.retry_after_seconds` of an `Error` body, if the response is one that says it. */
const retryAfterOf = (response: HttpServerResponse.HttpServerResponse): number | undefined => {
  const text = bodyText(response)
  return text === undefined ? undefined : Option.getOrUndefined(Option.map(decodeRetryAfter(text), (b) => b.error.details.retry_after_seconds))
}

/** The `error.code` of an `Error` body. */
const errorCodeOf = (response: HttpServerResponse.HttpServerResponse): string | undefined => {
  const text = bodyText(response)
  return text === undefined ? undefined : Option.getOrUndefined(Option.map(decodeCode(text), (b) => b.error.code))
}

const bodyLimits = (maxBytes: number, textDepth: boolean): BodyLimits => ({
  maxBytes,
  tooLarge: new PayloadTooLarge({ message: `the request body is larger than ${maxBytes} bytes` }),
  maxDepth: MAX_JSON_DEPTH,
  tooDeep: invalidRequest(`the request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`),
  textDepth
})
const usualBody = bodyLimits(MAX_BODY_BYTES, true)
const channelMessage = bodyLimits(MAX_ARI_BODY_BYTES, true)
/** The MCP protocol parses its messages itself, then reads them with `json`, which refuses the deep ones. */
const mcpMessage = bodyLimits(MAX_BODY_BYTES, false)

/**
 * The transport's answer to every request: bodies bounded (a declared oversize body is refused
 * before it is read, an undeclared one cut off at the limit), and every failure as an `Error`
 * body: the framework's own (an unknown route, an unreadable or invalid body) as the domain's
 * errors, a CORS preflight answered, and any other fault, a response that does not encode
 * included, logged and answered as an internal error. It never fails. A channel message may be
 * larger than any other body, and only while the channel interface is served: otherwise its path
 * is unknown like any other.
 */
export const makeErrorsAsBodies = Effect.gen(function*() {
  const { channelToken } = yield* AppConfig
  const outage = yield* DatabaseOutage
  const limitsOf = (path: string, method: string): BodyLimits =>
    path === MCP_PATH ? mcpMessage : Option.isSome(channelToken) && method === "POST" && path === ARI_PATH ? channelMessage : usualBody
  return <E, R>(app: App<E, R>, request: HttpServerRequest.HttpServerRequest, path: string): App<never, R> => {
    if (!HttpMethod.hasBody(request.method)) {
      return Effect.matchCauseEffect(app, { onFailure: answerCause(outage, request, path), onSuccess: withRetryAfter })
    }
    const limits = limitsOf(path, request.method)
    if (Number(NodeHttpServerRequest.toIncomingMessage(request).headers["content-length"] ?? 0) > limits.maxBytes) {
      return answer(limits.tooLarge)
    }
    const bounded = withBoundedBody(limits)(request)
    const answered = Effect.matchCauseEffect(app, {
      onFailure: answerCause(outage, request, path),
      onSuccess: (response) => response.status === 415 ? refuseMediaType(bounded) : withRetryAfter(response)
    })
    return Effect.provideService(answered, HttpServerRequest.HttpServerRequest, bounded)
  }
})

/**
 * On the channel interface, a request that breaks its schema names every bad field by its path
 * (`details.issues`, `updates[3].min_stay`), as the channel's own bounds do: the hotel's system
 * is told which update to fix. A response that does not encode stays our fault. Wraps each route
 * of the channel API (`HttpRouter.middleware(issuesByPath)`); the transport answers the failure.
 */
export const issuesByPath = <E, R>(app: App<E, R>): App<E | InvalidMessage, R> =>
  Effect.catchDefect(app, (defect) => {
    if (!isRequestSchemaError(defect)) return Effect.die(defect)
    const issues = pathIssues(defect.cause.issue)
    return Effect.fail(new InvalidMessage({ message: listIssues(issues), issues }))
  })
