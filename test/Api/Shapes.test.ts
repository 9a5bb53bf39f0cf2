import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { HotelRepo } from "../../src/Layers/Persistence/HotelRepo.js"
import { makeTestClock } from "../support/clock.js"
import { completedBooking, completeWith, manageAct, pendingBooking, post } from "../support/flow.js"
import { request, TestApp } from "../support/TestApp.js"

// Today is Sunday 2026-11-22 in hotel time.
const clock = makeTestClock("2026-11-22T10:00:00Z")

/** A JSON body sent as text, so that it can carry a `__proto__` key (an object literal would set the prototype). */
const postRaw = (url: string, json: string, headers: Record<string, string> = {}) =>
  request(HttpClientRequest.post(url).pipe(HttpClientRequest.bodyText(json, "application/json"), HttpClientRequest.setHeaders(headers)))

const stay = { checkin: "2026-12-10", checkout: "2026-12-11" }
const room = { room_type_id: "double", adults: 1 }
const oneRoom = { ...stay, adults: 1, children: 0, room_type_id: "double" }
const rooms = { ...stay, rooms: [room] }

const expectUnknownKey = (answer: { status: number; body: any }, path: string) => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(400)
  expect(answer.body.error.code).toBe("invalid_request")
  expect(answer.body.error.message).toContain(`${path}: is unexpected`)
}

layer(TestApp().pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("bodies say exactly what the OpenAPI says", (it) => {
  it.effect("an unknown key of a quote, at the top or in a room, is 400 invalid_request naming it", () =>
    Effect.gen(function*() {
      expectUnknownKey(yield* post("/v1/quote", { ...oneRoom, promocode: "DIRECT12" }), "promocode")
      expectUnknownKey(yield* post("/v1/quotes", { ...rooms, guests: 2 }), "guests")
      expectUnknownKey(yield* post("/v1/quotes", { ...stay, rooms: [room, { ...room, extra_bed: true }] }), "rooms.1.extra_bed")
      for (const key of ["__proto__", "constructor", "prototype"]) {
        expectUnknownKey(yield* postRaw("/v1/quotes", `{"${key}":{"x":1},${JSON.stringify(rooms).slice(1)}`), key)
      }
      // the fields the document names are all taken
      expect((yield* post("/v1/quotes", { ...rooms, session_id: "s-1", promo_code: "DIRECT12" })).status).toBe(200)
    }))

  it.effect("an unknown key of an intent, a completion or a manage action is 400 invalid_request naming it", () =>
    Effect.gen(function*() {
      const pending = yield* pendingBooking("2026-12-12", "2026-12-13", [room])
      const intent = { quote_id: pending.quote.quote_id, package_code: pending.quote.package_offers[0]!.package_code }
      expectUnknownKey(yield* post("/v1/reservation-intents", { ...intent, guest_email: "a@b.example" }), "guest_email")
      expectUnknownKey(yield* completeWith(pending.token, pending.total / 100, { paid: true }), "paid")
      const done = yield* completedBooking("2026-12-14", "2026-12-15", [room])
      const manage = (body: unknown) => post("/v1/reservation-manage", body, { "x-reservation-token": done.manageToken })
      expectUnknownKey(yield* manage({ action: "cancel", reason: "x" }), "reason")
      expectUnknownKey(yield* manage({ action: "update_guest", phone: "+33 6 12 34 56 78", email: "x@y.example" }), "email")
      expectUnknownKey(
        yield* manage({ action: "quote_change", ...stay, rooms: [{ ...room, view: "sea" }] }),
        "rooms.0.view"
      )
      // the refused cancel cancelled nothing
      yield* manageAct(done.manageToken, { action: "cancel" })
    }))

  it.effect("an Error message quotes at most 100 characters of a bad value or an unknown key", () =>
    Effect.gen(function*() {
      const huge = "x".repeat(60_000)
      for (
        const answer of [
          yield* post("/v1/quotes", { ...stay, rooms: [{ ...room, room_type_id: huge }] }),
          yield* post("/v1/quotes", { ...rooms, session_id: huge.slice(0, 80), promo_code: huge }),
          yield* post("/v1/quote", { ...oneRoom, adults: huge }),
          yield* post("/v1/quotes", { ...rooms, [huge]: 1 }),
          yield* post("/v1/reservation-intents", { quote_id: "q_x", package_code: "FLEX", language: huge })
        ]
      ) {
        expect(answer.status).toBe(400)
        expect(answer.body.error.code).toBe("invalid_request")
        expect(answer.body.error.message).toContain("xxxxx")
        expect(answer.body.error.message.length).toBeLessThan(400)
      }
    }))
})

/** A tools/call request, as text: `arguments` and the params' other members given as JSON text. */
const toolCall = (id: number, name: string, args: string, params = "") =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{${params}"name":${JSON.stringify(name)},"arguments":${args}}}`

const argsText = JSON.stringify(rooms)

layer(TestApp().pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("MCP messages say what MCP says", (it) => {
  it.effect("a prototype's key at any depth of a tool's arguments or of params is -32602, before any schema sees it", () =>
    Effect.gen(function*() {
      const places = (key: string) => [
        [toolCall(1, "quote_stay", `{"${key}":{},${argsText.slice(1)}`), `params.arguments.${key}`],
        [toolCall(1, "quote_stay", `{"session_id":"s","rooms":[{"room_type_id":"double","adults":1,"${key}":1}]}`), `params.arguments.rooms[0].${key}`],
        [toolCall(1, "quote_stay", `{"a":{"b":[{"c":{"${key}":null}}]}}`), `params.arguments.a.b[0].c.${key}`],
        [toolCall(1, "quote_stay", argsText, `"${key}":{"polluted":true},`), `params.${key}`],
        [toolCall(1, "quote_stay", argsText, `"_meta":{"${key}":{}},`), `params._meta.${key}`],
        [`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"${key}":{}},"clientInfo":{"name":"a","version":"1"}}}`, `params.capabilities.${key}`]
      ] as const
      for (const key of ["__proto__", "constructor", "prototype"]) {
        for (const [message, path] of places(key)) {
          const { body, status } = yield* postRaw("/mcp", message)
          expect({ path, status, error: body.error }).toEqual({
            path,
            status: 200,
            error: { code: -32602, message: expect.stringContaining(`${path} is a key no message may carry`) }
          })
          expect(body.result).toBeUndefined()
        }
      }
      // the same call without it is served
      expect((yield* postRaw("/mcp", toolCall(2, "quote_stay", argsText))).body.result.isError).toBe(false)
    }))

  it.effect("an unknown argument of a tool is its invalid_request naming it, as the tool's inputSchema says", () =>
    Effect.gen(function*() {
      const calls: ReadonlyArray<[string, object, string]> = [
        ["quote_stay", { ...rooms, promocode: "DIRECT12" }, "promocode"],
        ["quote_stay", { ...stay, rooms: [{ ...room, extra_bed: true }] }, "rooms.0.extra_bed"],
        ["check_availability", { ...stay, guests: 2 }, "guests"],
        ["price_calendar", { from: stay.checkin, to: stay.checkout, child_ages: [3] }, "child_ages"],
        ["create_reservation_intent", { quote_id: "q_x", package_code: "FLEX", email: "a@b.example" }, "email"]
      ]
      for (const [name, args, path] of calls) {
        const { body } = yield* postRaw("/mcp", toolCall(7, name, JSON.stringify(args)))
        expect({ name, isError: body.result.isError, code: body.result.structuredContent.error.code }).toEqual({
          name,
          isError: true,
          code: "invalid_request"
        })
        expect(body.result.structuredContent.error.message).toContain(`${path}: is unexpected`)
      }
    }))

  it.effect("an unknown tool is -32602 with at most 64 characters of its name", () =>
    Effect.gen(function*() {
      const { body } = yield* postRaw("/mcp", toolCall(3, "y".repeat(10_000), "{}"))
      expect(body).toEqual({ jsonrpc: "2.0", id: 3, error: { code: -32602, message: `Unknown tool: ${"y".repeat(64)}…` } })
    }))

  it.effect("a 60 KB bad argument is quoted in at most 100 characters", () =>
    Effect.gen(function*() {
      const args = JSON.stringify({ ...rooms, rooms: [{ ...room, room_type_id: "z".repeat(60_000) }] })
      const { body } = yield* postRaw("/mcp", toolCall(4, "quote_stay", args))
      expect(body.result.structuredContent.error.code).toBe("invalid_request")
      expect(body.result.structuredContent.error.message).toContain("zzzzz")
      expect(JSON.stringify(body).length).toBeLessThan(1000)
    }))
})

layer(
  TestApp({
    hotelRepo: Layer.succeed(HotelRepo, {
      load: Effect.die(new Error("SELECT definition FROM hotel failed: password authentication failed")),
      needsImport: Effect.succeed(false),
      replace: () => Effect.void
    })
  }).pipe(Layer.provide(clock.layer)),
  { excludeTestServices: true }
)("a defect inside MCP", (it) => {
  it.effect("a tool or a resource that dies answers -32603 Internal error, and nothing of the defect", () =>
    Effect.gen(function*() {
      const answers = [
        yield* postRaw("/mcp", toolCall(5, "get_hotel", "{}")),
        yield* post("/mcp", { jsonrpc: "2.0", id: 6, method: "resources/read", params: { uri: "hotel://policies" } })
      ]
      expect(answers.map(({ body, status }) => ({ status, body }))).toEqual([
        { status: 200, body: { jsonrpc: "2.0", id: 5, error: { code: -32603, message: "Internal error" } } },
        { status: 200, body: { jsonrpc: "2.0", id: 6, error: { code: -32603, message: "Internal error" } } }
      ])
    }))
})

/** A GET as bytes, as sent: the test client decompresses nothing. */
const getBytes = (url: string, headers: Record<string, string>) =>
  Effect.gen(function*() {
    const response = yield* (yield* HttpClient.HttpClient).execute(HttpClientRequest.get(url).pipe(HttpClientRequest.setHeaders(headers)))
    return { status: response.status, headers: response.headers, bytes: Buffer.from(yield* response.arrayBuffer) }
  })

const decompress: Record<string, (bytes: Buffer) => Buffer> = { br: brotliDecompressSync, gzip: gunzipSync }

layer(TestApp().pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("heavy answers", (it) => {
  for (const [path, contentType] of [["/openapi.json", "application/json"], ["/docs/", "text/html"]] as const) {
    it.effect(`${path} is served br or gzip as accepted, with an ETag that answers 304, and Cache-Control`, () =>
      Effect.gen(function*() {
        const plain = yield* getBytes(path, {})
        expect(plain.status).toBe(200)
        expect(plain.headers["content-encoding"]).toBeUndefined()
        expect(plain.headers["content-type"]).toContain(contentType)
        const etag = plain.headers["etag"]!
        expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/)
        expect(plain.headers["cache-control"]).toMatch(/max-age=\d+/)
        expect(plain.headers["vary"]).toBe("Accept-Encoding")
        for (
          const [acceptEncoding, coding] of [
            ["br", "br"],
            ["gzip, deflate, br", "br"],
            ["gzip", "gzip"],
            ["br;q=0, gzip", "gzip"],
            ["*", "br"]
          ] as const
        ) {
          const answer = yield* getBytes(path, { "accept-encoding": acceptEncoding })
          expect({ acceptEncoding, encoding: answer.headers["content-encoding"] }).toEqual({ acceptEncoding, encoding: coding })
          expect(answer.headers["etag"]).toBe(etag)
          expect(answer.bytes.length).toBeLessThan(plain.bytes.length / 2)
          expect(decompress[coding]!(answer.bytes).equals(plain.bytes)).toBe(true)
        }
        for (const ifNoneMatch of [etag, `"other", ${etag}`, etag.slice(2)]) {
          const again = yield* getBytes(path, { "if-none-match": ifNoneMatch, "accept-encoding": "br" })
          expect({ ifNoneMatch, status: again.status, bytes: again.bytes.length }).toEqual({ ifNoneMatch, status: 304, bytes: 0 })
          expect(again.headers["etag"]).toBe(etag)
        }
        expect((yield* getBytes(path, { "if-none-match": `W/"stale"` })).status).toBe(200)
      }))
  }
})
