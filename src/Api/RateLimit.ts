import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import { RateLimited } from "../Domain/Errors.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"
import { type RateDecision, RateLimiter } from "../Services/RateLimiter.js"
import { CHANNEL_PREFIX } from "./Channel.js"
import { clientAddress } from "./ClientAddress.js"

const rateHeaders = (decision: RateDecision) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeaders(response, {
      "ratelimit-policy": `"per-client";q=${decision.limit};w=${decision.windowSeconds}`,
      "ratelimit": `"per-client";r=${decision.remaining};t=${decision.resetSeconds}`,
      ...(decision.allowed ? {} : { "retry-after": String(decision.resetSeconds) })
    }))
  )

/** The token a request presents, if any: a reservation link's, or on the channel interface the hotel's bearer token. */
const presentedToken = (request: HttpServerRequest.HttpServerRequest): string | undefined =>
  request.headers["x-reservation-token"] ?? (request.url.startsWith(`${CHANNEL_PREFIX}/`) ? request.headers["authorization"] : undefined)

/**
 * `RATE_LIMIT_PER_MINUTE` requests per client address on every /v1 endpoint, /mcp and the channel
 * interface, and per token as well where one is presented (a token shared across addresses is
 * limited too). A wrong channel token counts against its address like any request: guessing is slow.
 */
export const RateLimitLive = Layer.unwrapEffect(Effect.map(Effect.all([RateLimiter, AppConfig]), ([{ take }, config]) => {
  const addressOf = clientAddress(config.trustedProxies)
  // without a limit, no step at all on the request path
  return Option.isNone(take) ? Layer.empty : HttpApiBuilder.middleware((app: HttpApp.Default) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    if (!/^\/(v1|mcp|internal)(\/|\?|$)/.test(request.url)) return app
    const token = presentedToken(request)
    const keys = [
      `address:${addressOf(request)}`,
      ...(token === undefined ? [] : [`token:${createHash("sha256").update(token).digest("base64url")}`])
    ]
    return Effect.flatMap(take.value(keys), (decision) =>
      Effect.zipRight(
        rateHeaders(decision),
        decision.allowed
          ? app
          : Effect.fail(new RateLimited({
            message: `more than ${decision.limit} requests a minute from this client: retry in ${decision.resetSeconds} s`,
            retry_after_seconds: decision.resetSeconds
          }))
      ))
  }) as HttpApp.Default)
}))
