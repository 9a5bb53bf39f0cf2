import { Effect, Metric, Option } from "effect"
import type { HttpServerRequest } from "effect/http"
import { createHash } from "node:crypto"
import { RateLimited } from "../../Domain/Errors.js"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import * as Metrics from "../../Layers/Platform/Metrics.js"
import { type RateDecision, RateLimiter } from "../../Services/RateLimiter.js"
import { CalendarGroup } from "../Contract/Calendar.js"
import { CHANNEL_PREFIX } from "../Contract/Channel.js"
import { HotelGroup } from "../Contract/Hotel.js"
import { QuotesGroup } from "../Contract/Quotes.js"
import { clientAddress } from "./ClientAddress.js"
import { apiResponseOf } from "./ApiResponse.js"
import { answer, type App } from "./ErrorAnswers.js"
import { routeOf } from "./RequestObservation.js"

/**
 * The limit's headers on the answer, whatever it is: given to the Node response, whose head
 * they go into however it is written (`ApiResponse`), instead of a copy of the application's
 * response with them. A later take (`beyondRoute`) knows more: its headers replace the route's.
 */
const sayRateHeaders = (request: HttpServerRequest.HttpServerRequest, decision: RateDecision) =>
  apiResponseOf(request).addAnswerHeaders({
    "ratelimit-policy": `"per-client";q=${decision.limit};w=${decision.windowSeconds}`,
    "ratelimit": `"per-client";r=${decision.remaining};t=${decision.resetSeconds}`
  })

/** The token a request presents, if any: a reservation link's, or on the channel interface the hotel's bearer token. */
const presentedToken = (request: HttpServerRequest.HttpServerRequest): string | undefined =>
  request.headers["x-reservation-token"] ?? (request.url.startsWith(`${CHANNEL_PREFIX}/`) ? request.headers["authorization"] : undefined)

/**
 * What a request costs, in units of a plain read (`GET /v1/hotel`, 1): its route's CPU measured by
 * `npm run bench:routes` (docs/limits.md), rounded. Any other route, and a path that is none,
 * costs 1; the health check nothing, so a load balancer's probes never use a client's share.
 * Keyed by the endpoints as the API declares them, so a renamed route keeps its cost.
 */
const ROUTE_COSTS: Readonly<Record<string, number>> = Object.fromEntries(([
  [HotelGroup.endpoints.health, 0],
  [CalendarGroup.endpoints.calendar, 10],
  [QuotesGroup.endpoints.quoteSingleRoom, 2],
  [QuotesGroup.endpoints.quoteRooms, 2]
] as const).map(([endpoint, cost]) => [`${endpoint.method} ${endpoint.path}`, cost]))

/** A HEAD request is answered by its GET route, at the same cost; a path spelt otherwise than its route's costs 1. */
const costOf = (method: string, path: string): number => ROUTE_COSTS[`${method === "HEAD" ? "GET" : method} ${path}`] ?? 1

/** What an endpoint costs, as a request to it does: what an MCP tool costs is its REST twin's (`Mcp/Tools.ts`). */
export const endpointCost = (endpoint: { readonly method: string; readonly path: string }): number => costOf(endpoint.method, endpoint.path)

/**
 * `RATE_LIMIT_PER_MINUTE` cost units per client address on every request but the health check,
 * and per token as well where one is presented (a token shared across addresses is limited too).
 * A request is counted by its route, never by how its path is spelt (`path`, the request's
 * without its query): a path that is not a route's own spelling costs 1 and is a 404. A wrong
 * channel token counts against its address like any request: guessing is slow. `served` is the
 * request's answer, made only if the request is allowed.
 *
 * `route` counts every request when it arrives (Http.ts). `beyondRoute` counts what a request
 * costs more than its route, known only once its body is read: a `POST /mcp` calling a tool costs
 * the tool's REST twin (Mcp/Transport.ts), so one address cannot compute through `/mcp` what the
 * REST API would refuse it. Its refusal costs nothing more: the route's take has counted the request.
 */
export const makeRateLimit = Effect.gen(function*() {
  const { take } = yield* RateLimiter
  const { trustedProxies } = yield* AppConfig
  const addressOf = clientAddress(trustedProxies)
  /** `counted` units of a request to `path` costing `cost` in all, its refusal `refusalCost`. */
  const limited = <R>(
    served: App<never, R>,
    request: HttpServerRequest.HttpServerRequest,
    path: string,
    cost: number,
    counted: number,
    refusalCost: number
  ): App<never, R> => {
    // without a limit, nothing counted
    if (Option.isNone(take) || counted <= 0) return served
    const token = presentedToken(request)
    const keys = [
      `address:${addressOf(request)}`,
      ...(token === undefined ? [] : [`token:${createHash("sha256").update(token).digest("base64url")}`])
    ]
    return Effect.flatMap(take.value(keys, counted, refusalCost), (decision) => {
      sayRateHeaders(request, decision)
      return decision.allowed
        ? served
        : Effect.andThen(
          Metric.update(Metrics.requestsRefused({ reason: "rate_limited", "http.route": routeOf(path) }), 1),
          answer(
            new RateLimited({
              message: `more than ${decision.limit} cost units a minute from this client (this request costs ${cost}): retry in ${decision.resetSeconds} s`,
              retry_after_seconds: decision.resetSeconds
            })
          )
        )
    })
  }
  return {
    route: <R>(served: App<never, R>, request: HttpServerRequest.HttpServerRequest, path: string): App<never, R> => {
      const cost = costOf(request.method, path)
      return limited(served, request, path, cost, cost, 1)
    },
    /** A request to `path` that costs `cost` in all, its route's cost already counted. */
    beyondRoute: <R>(served: App<never, R>, request: HttpServerRequest.HttpServerRequest, path: string, cost: number): App<never, R> =>
      limited(served, request, path, cost, cost - costOf(request.method, path), 0)
  }
})
