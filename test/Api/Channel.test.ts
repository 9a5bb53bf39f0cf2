import { describe, expect, it, layer } from "@effect/vitest"
import { Validator } from "@seriousme/openapi-schema-validator"
import { ConfigProvider, Effect, Layer, Option, Redacted } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { ChannelApi } from "../../src/Api/Contract/Channel.js"
import type { AriMessage } from "../../src/Domain/Channel/Message.js"
import { RoomTypeId } from "../../src/Domain/Ids.js"
import { addDays, type LocalDate } from "../../src/Domain/LocalDate.js"
import { DEFAULT_FEED_LIMIT } from "../../src/Domain/ReservationFeed.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { makeTestClock } from "../support/clock.js"
import { completedBooking, get, post } from "../support/flow.js"
import { request, TestApp } from "../support/TestApp.js"

/*
 * The channel interface at the HTTP edge (docs/decisions.md#channel-interface): who may call it, and every bound
 * of a message answered 400 with the bad field's path, changing nothing.
 */

const clock = makeTestClock("2026-11-22T10:00:00Z")
const TODAY = "2026-11-22" as LocalDate
const day = (days: number) => addDays(TODAY, days)
const TOKEN = "channel-token-of-the-hotel-0123456789"
const bearer = { authorization: `Bearer ${TOKEN}` }
const channelOn = { channelToken: Option.some(Redacted.make(TOKEN)) }
const PATHS = ["/internal/v1/ari", "/internal/v1/inventory", "/internal/v1/reservations", "/internal/openapi.json"]

const AS_OF = "2026-11-22T10:00:00+01:00"
const send = (message: unknown, headers: Record<string, string> = bearer) => post("/internal/v1/ari", message, headers)
const message = (id: string, updates: ReadonlyArray<unknown>, asOf = AS_OF) => ({ message_id: id, as_of: asOf, updates })
const view = (query: string) => get(`/internal/v1/inventory?${query}`, bearer)

/** The channel interface's typed client (`ChannelApi`), carrying the token as the hotel's systems do. */
const channelClient = HttpApiClient.make(ChannelApi, { transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(TOKEN)) })
const sendTyped = (payload: AriMessage) => Effect.flatMap(channelClient, (channel) => channel.channel.ari({ payload }))
/** The inventory view of one room type (or every one) from `from` to `to`, typed. */
const inventory = (from: LocalDate, to: LocalDate, roomType?: string) =>
  Effect.flatMap(channelClient, (channel) =>
    channel.channel.inventory({ query: { from, to, ...(roomType === undefined ? {} : { room_type_id: RoomTypeId.make(roomType) }) } }))
const typedMessage = (id: string, updates: AriMessage["updates"], asOf = AS_OF): AriMessage => ({ message_id: id, as_of: asOf, updates })
const deluxe = RoomTypeId.make("deluxe")

const withApp = (config: Partial<typeof AppConfig.Service>) =>
  TestApp({ config }).pipe(Layer.provide(clock.layer))

layer(withApp(channelOn), { excludeTestServices: true })("the channel interface, CHANNEL_TOKEN set", (it) => {
  it.effect("every call carries the token: missing 401 missing_token, wrong or huge 401 invalid_token, never cached", () =>
    Effect.gen(function*() {
      const inventory = `/internal/v1/inventory?from=${day(1)}&to=${day(1)}`
      for (const path of PATHS) {
        const missing = yield* request(HttpClientRequest.make(path.endsWith("ari") ? "POST" : "GET")(path))
        expect([path, missing.status, missing.body.error.code]).toEqual([path, 401, "missing_token"])
      }
      const cases: ReadonlyArray<readonly [Record<string, string>, number, string]> = [
        [{ authorization: "Bearer " }, 401, "missing_token"],
        [{ authorization: `Bearer ${TOKEN}x` }, 401, "invalid_token"],
        [{ authorization: `Bearer ${TOKEN.slice(0, -1)}` }, 401, "invalid_token"],
        [{ authorization: `Basic ${TOKEN}` }, 401, "invalid_token"],
        [{ authorization: `Bearer ${"x".repeat(10_000)}` }, 401, "invalid_token"],
        // over Node's 16 KiB of headers: refused before any application code, with an Error body
        [{ authorization: `Bearer ${"x".repeat(100_000)}` }, 431, "headers_too_large"]
      ]
      for (const [headers, status, code] of cases) {
        const answer = yield* get(inventory, headers)
        expect([answer.status, answer.body.error.code]).toEqual([status, code])
      }
      const served = yield* get(inventory, bearer)
      expect(served.status).toBe(200)
      expect(served.headers["cache-control"]).toBe("no-store")
      expect(served.headers["access-control-allow-origin"]).toBeUndefined()
    }))

  it.effect("serves its own OpenAPI document, behind the same token, with nothing of the public API", () =>
    Effect.gen(function*() {
      expect((yield* get("/internal/openapi.json")).status).toBe(401)
      const spec = (yield* get("/internal/openapi.json", bearer)).body
      expect(Object.keys(spec.paths).sort()).toEqual(["/internal/v1/ari", "/internal/v1/inventory", "/internal/v1/reservations"])
      expect(spec.servers).toEqual([{ url: "http://hotel.test", description: "This deployment" }])
      expect(spec.components.securitySchemes.channelToken).toMatchObject({ type: "http", scheme: "bearer" })
      expect(spec.paths["/internal/v1/ari"].post.responses["400"].content["application/json"].schema.$ref).toBe(
        "#/components/schemas/InvalidMessage"
      )
      expect(JSON.stringify(spec)).not.toContain("HttpApiDecodeError")
      const result = yield* Effect.promise(() => new Validator().validate(spec))
      expect(result.errors ?? []).toEqual([])
    }))

  it.effect("a message answers the cells applied and stale; the same message_id again answers the same and changes nothing", () =>
    Effect.gen(function*() {
      const first = typedMessage("ok-1", [{ room_type_id: deluxe, from: day(10), to: day(12), rooms_to_sell: 2, stop_sell: true }])
      expect(yield* sendTyped(first)).toEqual({ message_id: "ok-1", applied: 6, stale: 0 })
      // a newer figure, then the first message again under its id: the first answer, the newer figure kept
      expect(yield* sendTyped(typedMessage("ok-2", [{ room_type_id: deluxe, from: day(10), to: day(10), rooms_to_sell: 4 }], "2026-11-22T10:01:00+01:00")))
        .toEqual({ message_id: "ok-2", applied: 1, stale: 0 })
      expect(yield* sendTyped(first)).toEqual({ message_id: "ok-1", applied: 6, stale: 0 })
      // under a new id, the older figures are stale where the newer one was written
      expect(yield* sendTyped({ ...first, message_id: "ok-3" })).toEqual({ message_id: "ok-3", applied: 5, stale: 1 })
      const nights = (yield* inventory(day(10), day(12), "deluxe")).room_types[0]!.nights
      expect(nights.map((n) => [n.rooms_to_sell, n.stop_sell])).toEqual([[4, true], [2, true], [2, true]])
      expect(yield* sendTyped(typedMessage("heartbeat", []))).toEqual({ message_id: "heartbeat", applied: 0, stale: 0 })
    }))

  it.effect("every bound answers 400 invalid_request naming the field by its path, and changes nothing", () =>
    Effect.gen(function*() {
      const before = yield* inventory(day(-1), day(60))
      const good = { room_type_id: "double", from: day(20), to: day(21), stop_sell: true }
      /** Three good updates, then the bad one: its path is updates[3]. */
      const withBad = (bad: Record<string, unknown>) => message("bad", [good, good, good, { room_type_id: "twin", from: day(5), to: day(6), ...bad }])
      const cases: ReadonlyArray<readonly [string, unknown, string]> = [
        ["message_id empty", { ...message("", []) }, "message_id"],
        ["message_id of 65 characters", message("m".repeat(65), []), "message_id"],
        ["as_of malformed", message("bad", [], "2026-11-22 10:00"), "as_of"],
        ["as_of 6 minutes ahead", message("bad", [], "2026-11-22T10:06:00Z"), "as_of"],
        ["as_of in year 0", message("bad", [], "0000-01-01T00:00:00Z"), "as_of"],
        ["as_of before 2000", message("bad", [], "1999-12-31T23:59:59.999Z"), "as_of"],
        ["as_of on 30 February", message("bad", [], "2026-02-30T10:00:00Z"), "as_of"],
        ["as_of at hour 24", message("bad", [], "2026-11-21T24:00:00Z"), "as_of"],
        ["as_of with an offset of 15 hours", message("bad", [], "2026-11-22T10:00:00+15:00"), "as_of"],
        ["reservations_through not a cursor", { ...message("bad", []), reservations_through: "12a" }, "reservations_through"],
        ["reservations_through past 2^63", { ...message("bad", []), reservations_through: "9223372036854775808" }, "reservations_through"],
        ["reservations_through past the feed", { ...message("bad", [good]), reservations_through: "9223372036854775807" }, "reservations_through"],
        ["1,001 updates", message("bad", Array.from({ length: 1001 }, () => good)), "updates"],
        ["a range of 501 dates", withBad({ from: day(0), to: day(500) }), "updates[3].to"],
        ["to before from", withBad({ from: day(6), to: day(5) }), "updates[3].to"],
        ["from before yesterday", withBad({ from: day(-2) }), "updates[3].from"],
        ["to beyond the booking window", withBad({ from: day(499), to: day(501) }), "updates[3].to"],
        ["rooms_to_sell -1", withBad({ rooms_to_sell: -1 }), "updates[3].rooms_to_sell"],
        ["rooms_to_sell 2^31", withBad({ rooms_to_sell: 2 ** 31 }), "updates[3].rooms_to_sell"],
        ["rooms_to_sell 2^53", withBad({ rooms_to_sell: 2 ** 53 }), "updates[3].rooms_to_sell"],
        ["rooms_to_sell above the type's count", withBad({ rooms_to_sell: 9 }), "updates[3].rooms_to_sell"],
        ["rooms_to_sell above a type's count, every type", withBad({ room_type_id: undefined, rooms_to_sell: 6 }), "updates[3].rooms_to_sell"],
        ["min_stay 0", withBad({ min_stay: 0 }), "updates[3].min_stay"],
        ["min_stay 31", withBad({ min_stay: 31 }), "updates[3].min_stay"],
        ["max_stay below min_stay in one update", withBad({ min_stay: 4, max_stay: 3 }), "updates[3].min_stay"],
        [
          "max_stay below min_stay across two updates",
          message("bad", [good, good, { room_type_id: "twin", from: day(5), to: day(9), min_stay: 4 }, { room_type_id: "twin", from: day(7), to: day(7), max_stay: 3 }]),
          "updates[3].max_stay"
        ],
        ["base_rate 0", withBad({ base_rate: 0 }), "updates[3].base_rate"],
        ["base_rate 100000.01", withBad({ base_rate: 100000.01 }), "updates[3].base_rate"],
        ["base_rate 1.234", withBad({ base_rate: 1.234 }), "updates[3].base_rate"],
        ["base_rate a string", withBad({ base_rate: "120" }), "updates[3].base_rate"],
        ["unknown room type", withBad({ room_type_id: "suite" }), "updates[3].room_type_id"],
        ["unknown key in an update", withBad({ min_stay: 2, minimum_stay: 2 }), "updates[3].minimum_stay"],
        ["unknown key in the message", { ...message("bad", [good]), priority: "high" }, "priority"],
        ["updates not an array", message("bad", "all" as never), "updates"]
      ]
      for (const [name, body, path] of cases) {
        const answer = yield* send(body)
        expect([name, answer.status, answer.body.error.code], answer.text).toEqual([name, 400, "invalid_request"])
        expect(answer.body.error.details.issues.map((issue: { path: string }) => issue.path), name).toContain(path)
        expect(answer.body.error.message, name).toContain(path)
      }
      expect(yield* inventory(day(-1), day(60))).toEqual(before)
      // a refused message does not use up its id
      expect(yield* sendTyped(typedMessage("bad", [{ ...good, room_type_id: RoomTypeId.make(good.room_type_id) }]))).toEqual({
        message_id: "bad",
        applied: 2,
        stale: 0
      })
    }))

  it.effect("a message_id sent again with another body is 422 message_id_reused, naming it; the same body answers the first answer", () =>
    Effect.gen(function*() {
      const first = message("reused-1", [{ room_type_id: "twin", from: day(40), to: day(40), rooms_to_sell: 3 }])
      expect((yield* send(first)).body).toEqual({ message_id: "reused-1", applied: 1, stale: 0 })
      // the same message, its keys in another order: the same body
      const reordered = { updates: [{ rooms_to_sell: 3, to: day(40), from: day(40), room_type_id: "twin" }], as_of: AS_OF, message_id: "reused-1" }
      expect(yield* send(reordered)).toMatchObject({ status: 200, body: { message_id: "reused-1", applied: 1, stale: 0 } })
      const other = yield* send(message("reused-1", [{ room_type_id: "twin", from: day(40), to: day(40), rooms_to_sell: 1 }]))
      expect([other.status, other.body.error.code, other.body.error.details]).toEqual([422, "message_id_reused", { message_id: "reused-1" }])
      expect(other.body.error.message).toContain("reused-1")
      expect((yield* inventory(day(40), day(40), "twin")).room_types[0]!.nights[0]).toMatchObject({ rooms_to_sell: 3 })
    }))

  it.effect("a bad value is quoted, at most 100 characters of it", () =>
    Effect.gen(function*() {
      const answer = yield* send(message("long", [{ room_type_id: "r".repeat(5_000), from: day(1), to: day(1) }]))
      expect(answer.status).toBe(400)
      const [issue] = answer.body.error.details.issues
      expect(issue.path).toBe("updates[0].room_type_id")
      expect(issue.message).toContain(`actual "${"r".repeat(99)}`)
      expect(issue.message.length).toBeLessThan(200)
      const key = yield* send({ ...message("long", []), ["k".repeat(5_000)]: 1 })
      expect(key.body.error.details.issues[0].path.length).toBeLessThanOrEqual(101)
      expect(answer.text.length + key.text.length).toBeLessThan(2_000)
    }))

  it.effect("a message takes bodies up to 1 MiB, 1,000 updates in one; 2 MiB is 413; every other endpoint keeps 64 KiB", () =>
    Effect.gen(function*() {
      const full = message("full", Array.from({ length: 1000 }, (_, i) => ({
        room_type_id: "double",
        from: day(i % 400),
        to: day(i % 400),
        closed_to_arrival: false,
        closed_to_departure: false,
        base_rate: 150.25
      })))
      const body = JSON.stringify(full).replace(/"base_rate":150.25/g, `"base_rate":150.25${" ".repeat(300)}`)
      expect(body.length).toBeGreaterThan(320_000)
      const answer = yield* request(HttpClientRequest.post("/internal/v1/ari").pipe(HttpClientRequest.bodyText(body, "application/json"), HttpClientRequest.setHeaders(bearer)))
      expect([answer.status, answer.body]).toEqual([200, { message_id: "full", applied: 3000, stale: 0 }])
      const huge = yield* request(
        HttpClientRequest.post("/internal/v1/ari").pipe(HttpClientRequest.bodyText(" ".repeat(2 * 1024 * 1024), "application/json"), HttpClientRequest.setHeaders(bearer))
      )
      expect([huge.status, huge.body.error.code]).toEqual([413, "payload_too_large"])
      const quote = yield* request(HttpClientRequest.post("/v1/quotes").pipe(HttpClientRequest.bodyText(" ".repeat(100_000), "application/json")))
      expect(quote.status).toBe(413)
    }))

  it.effect("the inventory view answers at most 62 dates; the feed's limit is 1 to 500", () =>
    Effect.gen(function*() {
      const long = yield* view(`from=${day(1)}&to=${day(63)}`)
      expect([long.status, long.body.error.code]).toEqual([400, "range_too_long"])
      expect((yield* inventory(day(1), day(62))).room_types[0]!.nights).toHaveLength(62)
      const unknown = yield* view(`from=${day(1)}&to=${day(2)}&room_type_id=suite`)
      expect([unknown.status, unknown.body.error.code]).toEqual([400, "unknown_room_type"])
      const malformed = yield* view(`from=tomorrow&to=${day(2)}`)
      expect([malformed.status, malformed.body.error.code, malformed.body.error.details.issues[0].path]).toEqual([400, "invalid_request", "from"])
      // dates outside the channel's window, PostgreSQL's range included, are refused before any read
      for (const [from, to] of [["0000-01-01", "0000-01-01"], [day(-2), day(1)], [day(499), day(501)], ["9999-12-30", "9999-12-31"]]) {
        const answer = yield* view(`from=${from}&to=${to}`)
        expect([from, answer.status, answer.body.error.code]).toEqual([from, 400, "invalid_dates"])
      }
      expect((yield* inventory(day(-1), day(0))).room_types[0]!.nights).toHaveLength(2)
      for (const limit of ["0", "501", "ten"]) {
        const answer = yield* get(`/internal/v1/reservations?limit=${limit}`, bearer)
        expect([limit, answer.status, answer.body.error.code, answer.body.error.details.issues[0].path]).toEqual([limit, 400, "invalid_request", "limit"])
      }
      expect((yield* get("/internal/v1/reservations?limit=500", bearer)).status).toBe(200)
      const unknownPath = yield* get("/internal/v1/nothing", bearer)
      expect([unknownPath.status, unknownPath.body.error.code]).toEqual([404, "not_found"])
    }))

  it.effect("a completed reservation shows in the feed and in the inventory view's booked_here", () =>
    Effect.gen(function*() {
      const { number } = yield* completedBooking(day(30), day(32), [{ room_type_id: "twin", adults: 2 }])
      const channel = (yield* channelClient).channel
      const page = yield* channel.reservations({ query: { limit: DEFAULT_FEED_LIMIT } })
      expect(page.changes.map((c) => [c.change, c.reservation.reservation_number])).toEqual([["completed", number]])
      expect(page.next_cursor).toBe(page.changes[0]!.cursor)
      expect(yield* channel.reservations({ query: { after: page.next_cursor!, limit: DEFAULT_FEED_LIMIT } })).toEqual({ changes: [], next_cursor: page.next_cursor })
      const nights = (yield* inventory(day(30), day(32), "twin")).room_types[0]!.nights
      expect(nights.map((n) => [n.booked_here, n.free])).toEqual([[1, 7], [1, 7], [0, 8]])
    }))

  it.effect("no public document, llms.txt or the MCP tools mention the interface", () =>
    Effect.gen(function*() {
      for (const path of ["/", "/v1", "/.well-known/api-catalog", "/openapi.json", "/llms.txt"]) {
        const answer = yield* get(path)
        expect([path, answer.status]).toEqual([path, 200])
        expect(answer.text, path).not.toContain("/internal")
      }
      const tools = yield* post("/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }, { accept: "application/json, text/event-stream" })
      expect(tools.text).toContain("quote_stay")
      expect(tools.text).not.toContain("/internal")
    }))
})

layer(withApp({}), { excludeTestServices: true })("the channel interface, CHANNEL_TOKEN unset", (it) => {
  it.effect("every /internal path answers 404 not_found like any unknown path, the document too, token or not", () =>
    Effect.gen(function*() {
      for (const path of PATHS) {
        const answer = path.endsWith("ari") ? yield* send(message("m", [])) : yield* get(path, bearer)
        expect([path, answer.status, answer.body.error.code]).toEqual([path, 404, "not_found"])
      }
      // a body of a channel message's size is no larger here than anywhere else
      const big = yield* request(HttpClientRequest.post("/internal/v1/ari").pipe(HttpClientRequest.bodyText(" ".repeat(100_000), "application/json")))
      expect(big.status).toBe(413)
    }))
})

layer(withApp({ ...channelOn, channelAllowedAddresses: ["10.20.30.40"] }), { excludeTestServices: true })("CHANNEL_ALLOWED_ADDRESSES", (it) => {
  it.effect("a caller outside the list is 403 forbidden, even with the token", () =>
    Effect.gen(function*() {
      for (const headers of [bearer, {}]) {
        const answer = yield* get(`/internal/v1/inventory?from=${day(1)}&to=${day(1)}`, headers)
        expect([answer.status, answer.body.error.code]).toEqual([403, "forbidden"])
      }
    }))
})

layer(withApp({ ...channelOn, channelAllowedAddresses: ["127.0.0.1", "::1"] }), { excludeTestServices: true })("CHANNEL_ALLOWED_ADDRESSES listing the caller", (it) => {
  it.effect("a listed caller is served", () => inventory(day(1), day(1)))
})

layer(withApp({ ...channelOn, rateLimitPerMinute: 3 }), { excludeTestServices: true })("RATE_LIMIT_PER_MINUTE on the channel", (it) => {
  it.effect("wrong tokens count against the caller's address: guessing is slow", () =>
    Effect.gen(function*() {
      const wrong = { authorization: "Bearer guess-guess-guess-guess-guess-guess" }
      const answers = yield* Effect.forEach([1, 2, 3, 4], () => get(`/internal/v1/inventory?from=${day(1)}&to=${day(1)}`, wrong))
      expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 429])
      const right = yield* view(`from=${day(1)}&to=${day(1)}`)
      expect([right.status, right.body.error.code]).toEqual([429, "rate_limited"])
    }))
})

describe("CHANNEL_TOKEN and CHANNEL_ALLOWED_ADDRESSES", () => {
  const withEnv = (env: Record<string, string>) =>
    AppConfig.fromEnv.pipe(Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(env)))

  it.effect("a token under 32 characters or an allowlist entry that is no IP address stops the start, naming the variable", () =>
    Effect.gen(function*() {
      expect(String(yield* Effect.flip(withEnv({ CHANNEL_TOKEN: "t".repeat(31) })))).toContain("CHANNEL_TOKEN")
      expect(String(yield* Effect.flip(withEnv({ CHANNEL_ALLOWED_ADDRESSES: "10.0.0.1, pms.hotel.internal" })))).toContain(
        "CHANNEL_ALLOWED_ADDRESSES"
      )
    }))

  it.effect("unset or empty: the interface is off; set: a redacted secret and plain addresses", () =>
    Effect.gen(function*() {
      expect(Option.isNone((yield* withEnv({})).channelToken)).toBe(true)
      expect(Option.isNone((yield* withEnv({ CHANNEL_TOKEN: "" })).channelToken)).toBe(true)
      const config = yield* withEnv({ CHANNEL_TOKEN: "t".repeat(32), CHANNEL_ALLOWED_ADDRESSES: "10.0.0.1, ::FFFF:10.0.0.2" })
      expect(Redacted.value(Option.getOrThrow(config.channelToken))).toBe("t".repeat(32))
      expect(String(config.channelToken)).not.toContain("tttt")
      expect(config.channelAllowedAddresses).toEqual(["10.0.0.1", "10.0.0.2"])
    }))
})
