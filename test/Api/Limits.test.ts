import { describe, expect, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option } from "effect"
import { HttpClientRequest } from "effect/http"
import { Agent, type IncomingHttpHeaders, request as httpRequest } from "node:http"
import { createHttpServer } from "../../src/Api/Transport/Server.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { type RequestEntry, RequestLog } from "../../src/Layers/Platform/Logging.js"
import { RateLimiter } from "../../src/Services/RateLimiter.js"
import { makeTestClock } from "../support/clock.js"
import { eventually } from "../support/eventually.js"
import { get, post } from "../support/flow.js"
import { postModern } from "../support/mcpModern.js"
import { baseUrl, request, TestApp } from "../support/TestApp.js"

const clock = makeTestClock("2026-11-22T10:00:20Z")
const options = (url: string) => request(HttpClientRequest.options(url).pipe(HttpClientRequest.setHeaders({ origin: "https://agent.example" })))

layer(TestApp({ config: { rateLimitPerMinute: 3 } }).pipe(Layer.provide(clock.layer)), { excludeTestServices: true })(
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
        // documents count as any route; the health check never, and says nothing of the limit
        expect((yield* get("/openapi.json")).status).toBe(429)
        const health = yield* get("/v1/health")
        expect([health.status, health.headers["ratelimit"]]).toEqual([200, undefined])
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

/** A request sent as written, target included (`//v1/hotel`, `http://h/v1/hotel`), which the test client would make a URL of first. */
const raw = (method: string, target: string, body?: unknown) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.callback<{ status: number; headers: IncomingHttpHeaders; body: any }>((resume) => {
      const { hostname, port } = new URL(base)
      const outgoing = httpRequest({ hostname, port, method, path: target, headers: { "content-type": "application/json" } }, (answer) => {
        let text = ""
        answer.setEncoding("utf8").on("data", (chunk) => text += chunk).on("end", () =>
          resume(Effect.succeed({ status: answer.statusCode!, headers: answer.headers, body: text === "" ? undefined : JSON.parse(text) })))
      })
      outgoing.on("error", (error) => resume(Effect.die(error)))
      outgoing.end(body === undefined ? undefined : JSON.stringify(body))
    }))

const ping = { jsonrpc: "2.0", id: 1, method: "ping", params: {} }
const calendar = "/v1/calendar?from=2026-12-01&to=2026-12-31&nights=1&adults=2"
const calendarArgs = { from: "2026-12-01", to: "2026-12-31", nights: 1, adults: 2 }
const toolCall = (name: string, args: Record<string, unknown>) => ({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } })
const logged: Array<RequestEntry> = []
const linesOf = (route: string, status: number) => logged.filter((line) => line.route === route && line.status === status).length

layer(
  TestApp({ config: { rateLimitPerMinute: 100 } }).pipe(
    Layer.provide(clock.layer),
    Layer.provide(Layer.succeed(RequestLog, (entry) => void logged.push(entry)))
  ),
  { excludeTestServices: true }
)("RATE_LIMIT_PER_MINUTE counts the route, by its cost", (it) => {
  it.effect("a path spelt otherwise than its route is 404 not_found, with the hardening headers and a log line, and costs 1", () =>
    Effect.gen(function*() {
      clock.set("2026-11-22T11:00:00Z")
      const spellings = [
        ["GET", "/V1/hotel"],
        ["GET", "//v1/hotel"],
        ["GET", "/v1/hotel/"],
        ["GET", "/v1/%68otel"],
        ["GET", "/V1/reservation-manage"],
        ["POST", "/MCP"],
        ["POST", "//mcp"]
      ] as const
      for (const [method, target] of spellings) {
        const answer = yield* raw(method, target, method === "POST" ? ping : undefined)
        expect([target, answer.status, answer.body?.error?.code], target).toEqual([target, 404, "not_found"])
        expect(answer.headers["x-content-type-options"], target).toBe("nosniff")
        expect(answer.headers["ratelimit"], target).toBeDefined()
      }
      // 7 used, 93 left: 93 reads, then none by any spelling
      yield* Effect.forEach(Array.from({ length: 93 }), () => get("/v1/hotel"))
      // a line is written once its response has closed, after the client may have read it
      yield* eventually(Effect.sync(() => linesOf("unmatched", 404) === spellings.length))
      for (const [method, target] of [...spellings, ["GET", "/v1/hotel"], ["POST", "/mcp"]] as const) {
        expect([target, (yield* raw(method, target, method === "POST" ? ping : undefined)).status]).toEqual([target, 429])
      }
    }))

  it.effect("an absolute-form target is served and counted as its path", () =>
    Effect.gen(function*() {
      clock.set("2026-11-22T11:01:00Z")
      const answers = yield* Effect.forEach(Array.from({ length: 101 }), () => raw("GET", "http://h/v1/hotel"))
      expect(answers[0]!.status).toBe(200)
      expect(answers[0]!.body.name).toBeDefined()
      expect(answers[0]!.headers["ratelimit"]).toBe(`"per-client";r=99;t=60`)
      expect(answers.slice(0, 100).every((a) => a.status === 200)).toBe(true)
      expect([answers[100]!.status, answers[100]!.body.error.code]).toEqual([429, "rate_limited"])
      // logged as its path, after the 93 reads of the test before
      yield* eventually(Effect.sync(() => linesOf("/v1/hotel", 200) === 93 + 100))
      const mcp = yield* raw("POST", "HTTP://h:80/mcp", ping)
      expect(mcp.status).toBe(429)
    }))

  it.effect("10 calendars use what 100 reads use; a multi-room quote costs 2", () =>
    Effect.gen(function*() {
      clock.set("2026-11-22T11:02:00Z")
      const calendars = yield* Effect.forEach(Array.from({ length: 10 }), () => get(calendar))
      expect(calendars.map((a) => a.status)).toEqual(Array(10).fill(200))
      expect(calendars[9]!.headers["ratelimit"]).toBe(`"per-client";r=0;t=60`)
      const read = yield* get("/v1/hotel")
      expect([read.status, read.body.error.code]).toEqual([429, "rate_limited"])

      clock.set("2026-11-22T11:03:00Z")
      yield* Effect.forEach(Array.from({ length: 91 }), () => get("/v1/room-types"))
      // 9 left: not a calendar (10), which costs 1 refused; then 8 left, 4 quotes of 2 rooms
      const refused = yield* get(calendar)
      expect([refused.status, refused.body.error.code]).toEqual([429, "rate_limited"])
      expect(refused.body.error.message).toContain("costs 10")
      const rooms = [{ room_type_id: "double", adults: 2 }, { room_type_id: "twin", adults: 1 }]
      const quotes = yield* Effect.forEach(Array.from({ length: 5 }), () => post("/v1/quotes", { checkin: "2026-12-10", checkout: "2026-12-12", rooms }))
      expect(quotes.map((a) => a.status)).toEqual([200, 200, 200, 200, 429])
    }))

  it.effect("an MCP tool costs what its REST twin costs: price_calendar a calendar, quote_stay a quote", () =>
    Effect.gen(function*() {
      const statuses = (answers: ReadonlyArray<{ status: number }>) => answers.map((a) => a.status)
      const limits = (answers: ReadonlyArray<{ headers: Record<string, string | undefined> }>) => answers.map((a) => a.headers["ratelimit"])
      clock.set("2026-11-22T11:05:00Z")
      const rest = yield* Effect.forEach(Array.from({ length: 11 }), () => get(calendar))
      clock.set("2026-11-22T11:06:00Z")
      const mcp = yield* Effect.forEach(Array.from({ length: 11 }), () => post("/mcp", toolCall("price_calendar", calendarArgs)))
      // the 11th is refused through either, and each leaves the same units
      expect(statuses(mcp)).toEqual([...Array(10).fill(200), 429])
      expect(statuses(mcp)).toEqual(statuses(rest))
      expect(limits(mcp)).toEqual(limits(rest))
      expect(mcp[9]!.body.result.isError).toBe(false)
      expect(mcp[9]!.body.result.structuredContent.days).toHaveLength(31)
      const refused = mcp[10]!
      expect([refused.body.error.code, refused.headers["retry-after"]]).toEqual(["rate_limited", "60"])

      clock.set("2026-11-22T11:07:00Z")
      yield* Effect.forEach(Array.from({ length: 91 }), () => post("/mcp", ping))
      // 9 left: not a calendar, whose refusal costs 1 as over REST; then 8 left, 4 quotes of 2 rooms
      const tooDear = yield* post("/mcp", toolCall("price_calendar", calendarArgs))
      expect([tooDear.status, tooDear.body.error.code, tooDear.headers["retry-after"]]).toEqual([429, "rate_limited", "60"])
      expect(tooDear.body.error.message).toContain("costs 10")
      expect(tooDear.headers["ratelimit"]).toBe(`"per-client";r=8;t=60`)
      const rooms = [{ room_type_id: "double", adults: 2 }, { room_type_id: "twin", adults: 1 }]
      const quotes = yield* Effect.forEach(
        Array.from({ length: 5 }),
        () => post("/mcp", toolCall("quote_stay", { checkin: "2026-12-10", checkout: "2026-12-12", rooms }))
      )
      expect(statuses(quotes)).toEqual([200, 200, 200, 200, 429])
      expect(quotes[3]!.body.result.isError).toBe(false)

      // the same through MCP 2026-07-28, which has no session
      clock.set("2026-11-22T11:08:00Z")
      const modern = yield* Effect.forEach(Array.from({ length: 11 }), () => postModern("tools/call", { name: "price_calendar", arguments: calendarArgs }))
      expect(statuses(modern)).toEqual(statuses(rest))
      expect(limits(modern)).toEqual(limits(rest))
      expect(modern[9]!.body.result.structuredContent.days).toHaveLength(31)
      expect(modern[10]!.body.error.code).toBe("rate_limited")
    }))

  it.effect("GET /v1/health costs nothing", () =>
    Effect.gen(function*() {
      clock.set("2026-11-22T11:04:00Z")
      const health = yield* Effect.forEach(Array.from({ length: 150 }), () => get("/v1/health"))
      expect(health.every((a) => a.status === 200)).toBe(true)
      expect((yield* get("/v1/hotel")).headers["ratelimit"]).toBe(`"per-client";r=99;t=60`)
    }))
})

describe("RATE_LIMIT_PER_MINUTE by default", () => {
  const withEnv = (env: Record<string, string>) =>
    AppConfig.fromEnv.pipe(Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(env)))

  it.effect("is 600 units a minute when unset, and 0 turns it off", () =>
    Effect.gen(function*() {
      expect((yield* withEnv({})).rateLimitPerMinute).toBe(600)
      expect((yield* withEnv({ RATE_LIMIT_PER_MINUTE: "0" })).rateLimitPerMinute).toBe(0)
      expect(String(yield* Effect.flip(withEnv({ RATE_LIMIT_PER_MINUTE: "-1" })))).toContain("RATE_LIMIT_PER_MINUTE")
      const limiterOf = (config: Layer.Layer<AppConfig>) => Effect.map(RateLimiter, ({ take }) => Option.isSome(take)).pipe(Effect.provide(RateLimiter.layer.pipe(Layer.provide(config))))
      expect(yield* limiterOf(AppConfig.InMemory())).toBe(true)
      expect(yield* limiterOf(AppConfig.InMemory({ rateLimitPerMinute: 0 }))).toBe(false)
    }))
})

layer(TestApp().pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("CORS and defaults", (it) => {
  it.effect("with RATE_LIMIT_PER_MINUTE 0 nothing is limited or announced, and paths are still served only as spelt", () =>
    Effect.gen(function*() {
      const answers = yield* Effect.forEach(Array.from({ length: 20 }), () => get("/v1/room-types"))
      expect(answers.every((a) => a.status === 200 && a.headers["ratelimit"] === undefined)).toBe(true)
      expect((yield* raw("GET", "/V1/room-types")).status).toBe(404)
      expect((yield* raw("GET", "http://h/v1/room-types")).status).toBe(200)
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

/**
 * GET /v1/hotel once for each of `forwardedFor` in turn (`X-Forwarded-For`, none for `undefined`),
 * all on one keep-alive connection, as a proxy or a browser sends them: each answer's status, its
 * `RateLimit` header and the client port it came to.
 */
const onOneConnection = (forwardedFor: ReadonlyArray<string | undefined>) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.acquireUseRelease(
      Effect.sync(() => new Agent({ keepAlive: true, maxSockets: 1 })),
      (agent) =>
        Effect.forEach(forwardedFor, (address) =>
          Effect.callback<{ status: number; ratelimit: string | undefined; port: number | undefined }>((resume) => {
            const { hostname, port } = new URL(base)
            const headers = address === undefined ? {} : { "x-forwarded-for": address }
            httpRequest({ hostname, port, path: "/v1/hotel", agent, headers }, (answer) => {
              const answered = { status: answer.statusCode!, ratelimit: answer.headers["ratelimit"] as string | undefined, port: answer.socket.localPort }
              answer.resume().on("end", () => resume(Effect.succeed(answered)))
            }).on("error", (error) => resume(Effect.die(error))).end()
          })),
      (agent) => Effect.sync(() => agent.destroy())
    ))

layer(TestApp({ config: { rateLimitPerMinute: 3, trustedProxies: ["127.0.0.1", "::1"] } }).pipe(Layer.provide(clock.layer)), { excludeTestServices: true })(
  "RATE_LIMIT_PER_MINUTE behind the hotel's own proxy (TRUSTED_PROXIES)",
  (it) => {
    it.effect("counts each guest of one proxy connection by X-Forwarded-For, request by request", () =>
      Effect.gen(function*() {
        const answers = yield* onOneConnection(["198.51.100.1", "198.51.100.1", "198.51.100.1", "198.51.100.2", "198.51.100.1", undefined])
        expect(new Set(answers.map((a) => a.port)).size).toBe(1)
        // what is left of each client's 3 units (the clock is the file's, wherever its minute stands)
        expect(answers.map((a) => [a.status, /;r=(\d+);/.exec(a.ratelimit ?? "")?.[1]])).toEqual([
          [200, "2"],
          [200, "1"],
          [200, "0"],
          [200, "2"],
          [429, "0"],
          // the proxy's own request, counted as its address
          [200, "2"]
        ])
      }))
  }
)

layer(TestApp({ config: { rateLimitPerMinute: 3 } }).pipe(Layer.provide(clock.layer)), { excludeTestServices: true })(
  "RATE_LIMIT_PER_MINUTE with no trusted proxy",
  (it) => {
    it.effect("counts a connection's requests as its peer's, whatever X-Forwarded-For each says", () =>
      Effect.gen(function*() {
        const answers = yield* onOneConnection(["198.51.100.1", "198.51.100.2", undefined, "198.51.100.3"])
        expect(new Set(answers.map((a) => a.port)).size).toBe(1)
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429])
      }))
  }
)

describe("RateLimiter", () => {
  it.effect("a request counts for every key; one key out of room refuses it, and a refused request costs 1", () =>
    Effect.gen(function*() {
      const { take } = yield* RateLimiter
      const allowed = (keys: ReadonlyArray<string>) => Effect.map(Option.getOrThrow(take)(keys, 1), (d) => d.allowed)
      expect(yield* allowed(["address:a", "token:t"])).toBe(true)
      expect(yield* allowed(["address:a", "token:t"])).toBe(true)
      // the token is spent, from any address; the refusal costs address b 1
      expect(yield* allowed(["address:b", "token:t"])).toBe(false)
      expect(yield* allowed(["address:b"])).toBe(true)
      expect(yield* allowed(["address:b"])).toBe(false)
    }).pipe(Effect.provide(RateLimiter.perMinute(2))))

  it.effect("a request is allowed only if its whole cost fits", () =>
    Effect.gen(function*() {
      const take = Option.getOrThrow((yield* RateLimiter).take)
      expect(yield* take(["address:a"], 5)).toMatchObject({ allowed: true, remaining: 5 })
      expect(yield* take(["address:a"], 10)).toMatchObject({ allowed: false, remaining: 4 })
      expect(yield* take(["address:a"], 4)).toMatchObject({ allowed: true, remaining: 0 })
      expect(yield* take(["address:a"], 1)).toMatchObject({ allowed: false, remaining: 0 })
    }).pipe(Effect.provide(RateLimiter.perMinute(10))))

  it("the server's timeouts are set, not left to Node's defaults", () => {
    const server = createHttpServer().node
    expect([server.headersTimeout, server.requestTimeout, server.keepAliveTimeout]).toEqual([15_000, 30_000, 65_000])
  })
})
