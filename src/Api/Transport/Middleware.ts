import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Option } from "effect"
import { HttpMethod, HttpServerRequest } from "effect/http"
import { InvalidMessage, invalidRequest, listIssues } from "../../Domain/Errors.js"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import { DatabaseOutage } from "../../Services/DatabaseOutage.js"
import { ARI_PATH, MAX_ARI_BODY_BYTES } from "../Contract/Channel.js"
import { MCP_PATH } from "../Contract/Discovery.js"
import { pathIssues } from "../Contract/Errors.js"
import { answer, answerCause, type App, callersFault, isRequestSchemaError, notJson } from "./ErrorAnswers.js"
import { type BodyLimits, withBoundedBody } from "./RequestBody.js"
import { PayloadTooLarge } from "./TransportErrors.js"

/** Request bodies are small JSON documents; the framework would otherwise read them whole, however large. */
export const MAX_BODY_BYTES = 64 * 1024

/** Deeper than any body the API takes (three levels at most). */
export const MAX_JSON_DEPTH = 16

/** A body of another media type than JSON (`refuseMediaType`). */
const notJsonMediaType = invalidRequest("the request body is not JSON: send it with Content-Type: application/json")

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
      return Effect.catchCause(app, answerCause(outage, request, path))
    }
    const limits = limitsOf(path, request.method)
    if (Number(NodeHttpServerRequest.toIncomingMessage(request).headers["content-length"] ?? 0) > limits.maxBytes) {
      return answer(limits.tooLarge)
    }
    const bounded = withBoundedBody(limits)(request)
    const answered = Effect.matchCauseEffect(app, {
      onFailure: answerCause(outage, request, path),
      onSuccess: (response) => response.status === 415 ? refuseMediaType(bounded) : Effect.succeed(response)
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
