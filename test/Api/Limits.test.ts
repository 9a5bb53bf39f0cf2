import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { createHttpServer } from "../../src/Api/Server.js"
import { RateLimiter } from "../../src/Services/RateLimiter.js"
import { makeTestClock } from "../support/clock.js"
import { get, post } from "../support/flow.js"
import { request, TestApp } from "../support/TestApp.js"

const clock = makeTestClock("2026-11-22T10:00:20Z")
const options = (url: string) => request(HttpClientRequest.options(url).pipe(HttpClientRequest.setHeaders({ origin: "https://agent.example" })))

layer(TestApp({ config: { rateLimitPerMinute: Option.some(3) } }).pipe(Layer.provide(clock.layer)), { excludeTestServices: true })(
  "RATE_LIMIT_PER_MINUTE",
  (it) => {
    it.effect("counts requests per client and minute, says so in RateLimit headers, then answers 429 with Retry-After", () =>
      Effect.gen(function*() {
        const answers = yield* Effect.forEach([1, 2, 3, 4], () => get("/v1/hotel"))
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429])
        expect(answers.map((a) => a.headers["ratelimit"])).toEqual([
          `"per-client";r=2;t=40`,
          `"per-client";r=1;t=40`,
          `"per-client";r=0;t=40`,
          `"per-client";r=0;t=40`
        ])
        expect(answers[0]!.headers["ratelimit-policy"]).toBe(`"per-client";q=3;w=60`)
        const refused = answers[3]!
        expect(refused.headers["retry-after"]).toBe("40")
        expect(refused.body.error).toMatchObject({ code: "rate_limited", details: { retry_after_seconds: 40 } })
        // documents and pages are not counted
        expect((yield* get("/openapi.json")).status).toBe(200)
        clock.advance(40_000)
        expect((yield* get("/v1/hotel")).status).toBe(200)
      }))

    it.effect("the MCP endpoint counts as the API does: each POST /mcp is a request", () =>
      Effect.gen(function*() {
        clock.advance(60_000)
        const ping = post("/mcp", { jsonrpc: "2.0", id: 1, method: "ping", params: {} })
        const answers = yield* Effect.forEach([1, 2, 3, 4], () => ping)
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429])
        expect(answers[0]!.headers["ratelimit-policy"]).toBe(`"per-client";q=3;w=60`)
        expect(answers[3]!.body.error.code).toBe("rate_limited")
      }))
  }
)

layer(TestApp().pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("CORS and defaults", (it) => {
  it.effect("without RATE_LIMIT_PER_MINUTE nothing is limited or announced", () =>
    Effect.gen(function*() {
      const answers = yield* Effect.forEach(Array.from({ length: 20 }), () => get("/v1/room-types"))
      expect(answers.every((a) => a.status === 200 && a.headers["ratelimit"] === undefined)).toBe(true)
    }))

  it.effect("the public read and quote endpoints allow any origin, without credentials; the token endpoints do not", () =>
    Effect.gen(function*() {
      const hotel = yield* get("/v1/hotel?x=1")
      expect(hotel.headers["access-control-allow-origin"]).toBe("*")
      expect(hotel.headers["access-control-allow-credentials"]).toBeUndefined()
      const preflight = yield* options("/v1/quotes")
      expect(preflight.status).toBe(204)
      expect(preflight.headers).toMatchObject({
        "access-control-allow-origin": "*",
        "access-control-allow-methods": "GET, POST, OPTIONS",
        "access-control-allow-headers": "content-type, x-hotel-client, x-ai-agent, x-hotel-session"
      })
      const tokenEndpoint = yield* get("/v1/reservation-public", { "x-reservation-token": "x".repeat(43) })
      expect(tokenEndpoint.headers["access-control-allow-origin"]).toBeUndefined()
      const tokenPreflight = yield* options("/v1/reservation-complete")
      expect(tokenPreflight.status).toBe(404)
      expect(tokenPreflight.headers["access-control-allow-origin"]).toBeUndefined()
    }))
})

describe("RateLimiter", () => {
  it.effect("a request counts for every key; one key out of room refuses it, and a refused request counts for none", () =>
    Effect.gen(function*() {
      const { take } = yield* RateLimiter
      const allowed = (keys: ReadonlyArray<string>) => Effect.map(Option.getOrThrow(take)(keys), (d) => d.allowed)
      expect(yield* allowed(["address:a", "token:t"])).toBe(true)
      expect(yield* allowed(["address:a", "token:t"])).toBe(true)
      // the token is spent, from any address
      expect(yield* allowed(["address:b", "token:t"])).toBe(false)
      expect(yield* allowed(["address:b"])).toBe(true)
      expect(yield* allowed(["address:b"])).toBe(true)
      expect(yield* allowed(["address:b"])).toBe(false)
    }).pipe(Effect.provide(RateLimiter.perMinute(2))))

  it("the server's timeouts are set, not left to Node's defaults", () => {
    const server = createHttpServer()
    expect([server.headersTimeout, server.requestTimeout, server.keepAliveTimeout]).toEqual([15_000, 30_000, 65_000])
  })
})
