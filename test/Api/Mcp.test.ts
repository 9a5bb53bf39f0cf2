import { expect, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Layer, Option } from "effect"
import { agentRules, RULES } from "../../src/Api/Handlers/AgentRules.js"
import { BOOKING_FLOW } from "../../src/Api/Handlers/LlmsText.js"
import type { QuoteId, ReservationId } from "../../src/Domain/Ids.js"
import { QuoteRepo } from "../../src/Layers/Persistence/QuoteRepo.js"
import { ReservationRepo } from "../../src/Layers/Persistence/ReservationRepo.js"
import { makeTestClock } from "../support/clock.js"
import { completeWith, get, post, tokenOf } from "../support/flow.js"
import { demoHotel } from "../support/hotel.js"
import { baseUrl, TestApp } from "../support/TestApp.js"

// Today is Sunday 2026-11-22 in hotel time.
const clock = makeTestClock("2026-11-22T10:00:00Z")

const AGENT = { name: "belle-rive-test-agent", version: "1.2.3" }

/** The official MCP client, over Streamable HTTP, connected to the in-process server's /mcp. */
const connect = Effect.acquireRelease(
  Effect.flatMap(baseUrl, (base) =>
    Effect.promise(async () => {
      const client = new Client(AGENT)
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
      return client
    })),
  (client) => Effect.promise(() => client.close())
)

interface ToolAnswer {
  readonly isError: boolean
  readonly body: any
}

/** A tool call: its structured content, which its text content repeats. */
const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.promise(() => client.callTool({ name, arguments: args })).pipe(
    Effect.map((result): ToolAnswer => {
      const content = result.content as ReadonlyArray<{ type: string; text: string }>
      expect(content).toHaveLength(1)
      expect(JSON.parse(content[0]!.text)).toEqual(result.structuredContent)
      return { isError: result.isError === true, body: result.structuredContent }
    })
  )

const stay = {
  checkin: "2026-12-10",
  checkout: "2026-12-13",
  rooms: [{ room_type_id: "double", adults: 2, children_ages: [1] }, { room_type_id: "twin", adults: 2, quantity: 2 }]
}

const initialize = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: AGENT }
})

const ALLOWED_ORIGIN = "https://agent-console.example"

layer(TestApp({ config: { mcpAllowedOrigins: [ALLOWED_ORIGIN] } }).pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("MCP server at /mcp", (it) => {
  it.effect("the official client connects and lists the booking tools with their input schemas and rules", () =>
    Effect.gen(function*() {
      const client = yield* connect
      expect(client.getServerVersion()).toEqual({ name: "Hotel Booking API", version: "1.1.0" })
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((t) => t.name)).toEqual(BOOKING_FLOW.flatMap((step) => step.tool ?? []))
      const tool = (name: string) => tools.find((t) => t.name === name)!

      const quote = tool("quote_stay")
      expect(quote.inputSchema.required).toEqual(["checkin", "checkout", "rooms"])
      expect(Object.keys(quote.inputSchema.properties!)).toEqual(["session_id", "checkin", "checkout", "rooms", "promo_code", "language"])
      expect(quote.inputSchema.properties).toMatchObject({ checkin: { type: "string", format: "date" } })
      for (const rule of [RULES.prices, RULES.occupancy, RULES.infant, RULES.quoteExpiry]) expect(quote.description).toContain(rule)

      const intent = tool("create_reservation_intent")
      expect(intent.inputSchema.required).toEqual(["quote_id", "package_code"])
      expect(Object.keys(intent.inputSchema.properties!)).toEqual(["quote_id", "package_code", "language", "idempotency_key"])
      expect(intent.description).toContain("continue_url")
      expect(intent.description).toContain(RULES.initiationOnly)
      expect(intent.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false })

      const availability = tool("check_availability")
      expect(availability.inputSchema.required).toEqual(["checkin", "checkout"])
      expect(availability.inputSchema.properties).toMatchObject({ adults: { type: "integer" }, children: { type: "integer" } })
      expect(tool("get_hotel").annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, title: "Hotel facts and policies" })
      expect(tool("list_room_types").description).toContain(RULES.occupancy)

      // why a stay cannot be had, and that the hotel's own systems may change it, where an agent meets a reason
      for (const name of ["quote_stay", "check_availability", "price_calendar"]) {
        expect(tool(name).description, name).toContain(RULES.unavailable)
        expect(tool(name).description, name).toContain(RULES.hotelSystems)
      }
      expect(JSON.stringify(tools)).not.toContain("/internal")
    }))

  it.effect("price_calendar answers what GET /v1/calendar answers, children_ages an array, and refuses as it refuses", () =>
    Effect.gen(function*() {
      const client = yield* connect
      const { tools } = yield* Effect.promise(() => client.listTools())
      const tool = tools.find((t) => t.name === "price_calendar")!
      expect(tool.inputSchema.required).toEqual(["from", "to"])
      expect(tool.inputSchema.properties).toMatchObject({
        nights: { type: "integer", maximum: 30 },
        adults: { type: "integer", maximum: 2 },
        children_ages: { type: "array", maxItems: 3, items: { type: "integer", maximum: 17 } }
      })
      expect(tool.description).toContain(RULES.calendar)
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true })

      const answer = yield* call(client, "price_calendar", { from: "2026-12-20", to: "2027-01-05", nights: 2, adults: 1, children_ages: [1] })
      expect(answer.isError).toBe(false)
      expect(answer.body.days).toHaveLength(17)
      const rest = yield* get("/v1/calendar?from=2026-12-20&to=2027-01-05&nights=2&adults=1&children_ages=1")
      expect(answer.body).toEqual(rest.body)

      const tooLong = yield* call(client, "price_calendar", { from: "2027-01-01", to: "2027-03-04" })
      expect(tooLong).toMatchObject({ isError: true, body: { error: { code: "range_too_long" } } })
      const ages = yield* call(client, "price_calendar", { from: "2027-01-01", to: "2027-01-02", children_ages: "1,8" })
      expect(ages).toMatchObject({ isError: true, body: { error: { code: "invalid_request" } } })
      expect(ages.body.error.message).toMatch(/^children_ages: /)
      const crowded = yield* call(client, "price_calendar", { from: "2027-01-01", to: "2027-01-02", children_ages: [8] })
      expect(crowded).toMatchObject({ isError: true, body: { error: { code: "occupancy_exceeded" } } })
      const promo = yield* call(client, "price_calendar", { from: "2026-12-20", to: "2026-12-20", nights: 2, promo_code: "direct12" })
      expect(promo.body.days[0].package_code).toBe("NRF.DIRECT12")
      const unknown = yield* call(client, "price_calendar", { from: "2026-12-20", to: "2026-12-20", promo_code: "NOPE" })
      expect(unknown).toMatchObject({ isError: true, body: { error: { code: "invalid_promo_code", details: { reason: "unknown" } } } })
    }))

  it.effect("books end to end: availability → quote → intent; continue_url completes through the REST API", () =>
    Effect.gen(function*() {
      const client = yield* connect
      const hotel = yield* call(client, "get_hotel")
      expect(hotel.body).toMatchObject({ name: "Hôtel Belle Rive", check_in: "14:00", check_out: "12:00" })
      const rooms = yield* call(client, "list_room_types")
      expect(rooms.body.rooms.map((r: { id: string }) => r.id)).toEqual(["double", "twin", "deluxe"])

      const availability = yield* call(client, "check_availability", { checkin: stay.checkin, checkout: stay.checkout, adults: 2 })
      expect(availability.isError).toBe(false)
      expect(availability.body.room_types.find((r: { room_type_id: string }) => r.room_type_id === "double"))
        .toMatchObject({ available_rooms: 12, bookable: true })

      const quote = yield* call(client, "quote_stay", stay)
      expect(quote.isError).toBe(false)
      expect(quote.body).toMatchObject({ status: "available", expires_at: "2026-11-22T11:15:00+01:00", stay: { nights: 3 } })
      const offer = quote.body.package_offers.find((o: { rate_code: string }) => o.rate_code === "FLEX_BB")
      expect(offer.price.total).toBe(offer.price.room_total - offer.price.promotion_discount + offer.price.tourist_tax)

      const intent = yield* call(client, "create_reservation_intent", {
        quote_id: quote.body.quote_id,
        package_code: offer.package_code,
        language: "fr",
        idempotency_key: "mcp-booking-1"
      })
      expect(intent.isError).toBe(false)
      expect(intent.body).toMatchObject({ status: "PENDING_GUEST", language: "fr", payment_required: false, workflow: "v12" })
      expect(intent.body.message).toContain("continue_url")
      expect(intent.body.continue_url).toMatch(/^http:\/\/hotel\.test\/complete#token=[A-Za-z0-9_-]{43}$/)

      // a retry with the same key answers the same reservation and link
      const retry = yield* call(client, "create_reservation_intent", {
        quote_id: quote.body.quote_id,
        package_code: offer.package_code,
        language: "fr",
        idempotency_key: "mcp-booking-1"
      })
      expect(retry.body).toEqual(intent.body)

      // the guest opens continue_url: the page reads the reservation and completes it through REST
      const token = tokenOf(intent.body.continue_url)
      const view = yield* get("/v1/reservation-public", { "x-reservation-token": token })
      expect(view.body).toMatchObject({ reservation_id: intent.body.reservation_id, status: "PENDING_GUEST", price: offer.price })
      const done = yield* completeWith(token, offer.price.total)
      expect(done.status).toBe(200)
      expect(done.body).toMatchObject({ status: "GUEST_COMPLETED", pms_status: "PENDING", price: offer.price })

      // the MCP client's name and version are recorded as the X-AI-Agent of its quote and intent
      const stored = yield* (yield* QuoteRepo).find(quote.body.quote_id as QuoteId)
      expect(Option.map(stored, (q) => q.client)).toEqual(Option.some({ client: null, ai_agent: "belle-rive-test-agent/1.2.3", session: null }))
      const reservation = yield* (yield* ReservationRepo).find(intent.body.reservation_id as ReservationId)
      expect(Option.map(reservation, (r) => r.client.ai_agent)).toEqual(Option.some("belle-rive-test-agent/1.2.3"))
    }))

  it.effect("the MCP flow and the REST flow give the same totals for the same stay", () =>
    Effect.gen(function*() {
      const client = yield* connect
      const mcp = yield* call(client, "quote_stay", stay)
      const rest = yield* post("/v1/quotes", stay)
      expect(rest.status).toBe(200)
      const offers = (body: { package_offers: ReadonlyArray<{ package_code: string; price: unknown }> }) =>
        body.package_offers.map((o) => [o.package_code, o.price])
      expect(offers(mcp.body)).toEqual(offers(rest.body))
      expect(offers(mcp.body).length).toBeGreaterThan(1)
      const { quote_id: _m, ...mcpRest } = mcp.body
      const { quote_id: _r, ...restRest } = rest.body
      expect(mcpRest).toEqual(restRest)
    }))

  const badQuotes: ReadonlyArray<[string, Record<string, unknown>, string]> = [
    ["checkout before checkin", { ...stay, checkout: "2026-12-09" }, "invalid_dates"],
    ["three adults in a room", { ...stay, rooms: [{ room_type_id: "double", adults: 3 }] }, "invalid_request"],
    ["a date that is not one", { ...stay, checkin: "2026-02-30" }, "invalid_request"],
    ["no rooms", { checkin: stay.checkin, checkout: stay.checkout, rooms: [] }, "invalid_request"],
    ["an unknown room type", { ...stay, rooms: [{ room_type_id: "suite", adults: 2 }] }, "unknown_room_type"]
  ]
  for (const [name, args, code] of badQuotes) {
    it.effect(`quote_stay with ${name} is a tool error ${code}, with the REST API's code and message`, () =>
      Effect.gen(function*() {
        const client = yield* connect
        const answer = yield* call(client, "quote_stay", args)
        expect(answer.isError).toBe(true)
        expect(answer.body.error.code).toBe(code)
        const rest = yield* post("/v1/quotes", args)
        expect(rest.status).toBe(400)
        expect(answer.body).toEqual(rest.body)
      }))
  }

  it.effect("the intent's errors are tool errors with the REST API's codes", () =>
    Effect.gen(function*() {
      const client = yield* connect
      const unknown = yield* call(client, "create_reservation_intent", { quote_id: "q_unknown", package_code: "FLEX" })
      expect(unknown).toMatchObject({ isError: true, body: { error: { code: "not_found" } } })
      const quote = yield* call(client, "quote_stay", { checkin: "2027-03-01", checkout: "2027-03-02", rooms: [{ room_type_id: "double", adults: 1 }] })
      const missing = yield* call(client, "create_reservation_intent", { quote_id: quote.body.quote_id, package_code: "HALF_BOARD" })
      expect(missing).toMatchObject({ isError: true, body: { error: { code: "quote_not_reservable", details: { quote_id: quote.body.quote_id } } } })
      const language = yield* call(client, "create_reservation_intent", { quote_id: quote.body.quote_id, package_code: "FLEX", language: "de" })
      expect(language).toMatchObject({ isError: true, body: { error: { code: "invalid_request" } } })
      expect(language.body.error.message).toMatch(/^language: /)
      const availability = yield* call(client, "check_availability", { checkin: "2027-01-12", checkout: "2027-01-10" })
      expect(availability).toMatchObject({ isError: true, body: { error: { code: "invalid_dates" } } })
      const [first, second] = quote.body.package_offers.map((o: { package_code: string }) => o.package_code)
      const reused = yield* call(client, "create_reservation_intent", { quote_id: quote.body.quote_id, package_code: first, idempotency_key: "k-1" })
      expect(reused.isError).toBe(false)
      const other = yield* call(client, "create_reservation_intent", { quote_id: quote.body.quote_id, package_code: second, idempotency_key: "k-1" })
      expect(other).toMatchObject({ isError: true, body: { error: { code: "idempotency_key_reused" } } })

      // a group: priced, said to be not reservable, refused as REST refuses it
      const group = yield* call(client, "quote_stay", {
        checkin: "2027-03-01",
        checkout: "2027-03-02",
        rooms: [{ room_type_id: "double", adults: 2, quantity: 4 }, { room_type_id: "twin", adults: 2, quantity: 3 }]
      })
      expect(group.body).toMatchObject({ status: "available", reservable: false, not_reservable: { reason: "group_booking", requested_rooms: 7 } })
      const groupIntent = yield* call(client, "create_reservation_intent", { quote_id: group.body.quote_id, package_code: "FLEX" })
      expect(groupIntent).toMatchObject({
        isError: true,
        body: { error: { code: "quote_not_reservable", details: { reason: "group_booking", max_rooms: 6, requested_rooms: 7 } } }
      })
      const restIntent = yield* post("/v1/reservation-intents", { quote_id: group.body.quote_id, package_code: "FLEX" })
      expect(groupIntent.body).toEqual(restIntent.body)
    }))

  it.effect("resources: the hotel's policies and the agent rules", () =>
    Effect.gen(function*() {
      const client = yield* connect
      const { resources } = yield* Effect.promise(() => client.listResources())
      expect(resources.map((r) => [r.uri, r.mimeType])).toEqual([
        ["hotel://policies", "application/json"],
        ["hotel://agent-rules", "text/markdown"]
      ])
      const policies = yield* Effect.promise(() => client.readResource({ uri: "hotel://policies" }))
      const body = JSON.parse((policies.contents[0] as { text: string }).text)
      expect(body).toMatchObject({ check_in: "14:00", check_out: "12:00", timezone: "Europe/Paris" })
      expect(Object.keys(body.policies)).toEqual(expect.arrayContaining(["cancellation", "payment"]))
      const rules = yield* Effect.promise(() => client.readResource({ uri: "hotel://agent-rules" }))
      const text = (rules.contents[0] as { text: string }).text
      for (const rule of agentRules(demoHotel)) expect(text).toContain(rule)
    }))

  it.effect("/mcp takes POST only: GET (no event stream) and DELETE are 405 Error bodies", () =>
    Effect.gen(function*() {
      const stream = yield* get("/mcp", { accept: "text/event-stream" })
      expect(stream.status).toBe(405)
      expect(stream.headers["allow"]).toBe("POST")
      expect(stream.body.error.code).toBe("method_not_allowed")
    }))

  it.effect("a web page of another origin is refused, 403 forbidden_origin, whatever the method", () =>
    Effect.gen(function*() {
      for (const origin of ["http://evil.example", "null", "http://hotel.test:8080", "https://hotel.test"]) {
        const refused = yield* post("/mcp", initialize(1), { origin })
        expect({ origin, status: refused.status, code: refused.body?.error.code }).toEqual({ origin, status: 403, code: "forbidden_origin" })
        expect(refused.body.error.message).toContain("MCP_ALLOWED_ORIGINS")
        expect(refused.headers["mcp-session-id"]).toBeUndefined()
      }
      expect((yield* get("/mcp", { origin: "http://evil.example" })).status).toBe(403)
    }))

  it.effect("the service's own origin, MCP_ALLOWED_ORIGINS and a program that sends no Origin are served", () =>
    Effect.gen(function*() {
      for (const headers of [{ origin: "http://hotel.test" }, { origin: ALLOWED_ORIGIN }, {}]) {
        const served = yield* post("/mcp", initialize(7), headers)
        expect({ headers, status: served.status }).toEqual({ headers, status: 200 })
        expect(served.body).toMatchObject({ jsonrpc: "2.0", id: 7, result: { serverInfo: { name: "Hotel Booking API" } } })
      }
    }))

  it.effect("a JSON-RPC batch is 400 invalid_request (MCP 2025-06-18 removed them), answered before any of its calls runs", () =>
    Effect.gen(function*() {
      const call = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "quote_stay", arguments: stay } })
      for (const batch of [[initialize(1), { jsonrpc: "2.0", id: 2, method: "ping" }], [call(1), call(2)], []]) {
        const refused = yield* post("/mcp", batch)
        expect(refused.status).toBe(400)
        expect(refused.body.error).toEqual({ code: "invalid_request", message: expect.stringContaining("MCP 2025-06-18 removed JSON-RPC batches") })
      }
      // the same messages one per request are served
      expect((yield* post("/mcp", { jsonrpc: "2.0", id: 2, method: "ping" })).body).toEqual({ jsonrpc: "2.0", id: 2, result: {} })
    }))

  it.effect("a body that is not one JSON-RPC message of MCP is 400 invalid_request, never a 500 or a defect", () =>
    Effect.gen(function*() {
      for (const body of [5, "x", null, { foo: 1 }, { jsonrpc: "1.0", id: 1, method: "ping" }, { jsonrpc: "2.0", id: 1, result: {} }]) {
        const refused = yield* post("/mcp", body)
        expect({ body, status: refused.status, code: refused.body?.error?.code }).toEqual({ body, status: 400, code: "invalid_request" })
      }
      for (const id of ["abc", 1.5, 2 ** 53, { a: 1 }]) {
        const refused = yield* post("/mcp", { jsonrpc: "2.0", id, method: "ping" })
        expect(refused.status).toBe(400)
        expect(refused.body.error.message).toContain("id: must be a whole number")
      }
    }))

  it.effect("a call of a method MCP has not, or with params its method does not take, is a JSON-RPC error under its own id", () =>
    Effect.gen(function*() {
      const answer = (message: object) => Effect.map(post("/mcp", message), (r) => ({ status: r.status, body: r.body }))
      expect(yield* answer({ jsonrpc: "2.0", id: 41, method: "tools/explode" })).toEqual({
        status: 200,
        body: { jsonrpc: "2.0", id: 41, error: { code: -32601, message: "Method not found: tools/explode" } }
      })
      for (const params of [{ name: "check_availability", arguments: 5 }, { name: "check_availability", arguments: [1] }, { name: 7 }, {}]) {
        const { status, body } = yield* answer({ jsonrpc: "2.0", id: 42, method: "tools/call", params })
        expect({ params, status, id: body.id, code: body.error?.code }).toEqual({ params, status: 200, id: 42, code: -32602 })
        expect(body.error.message).toMatch(/^Invalid params of tools\/call: (arguments|name)/)
      }
      // a notification is answered by no message, even a wrong one; the RPC layer's own are not for clients
      for (const method of ["notifications/unknown", "@effect/rpc/Interrupt"]) {
        expect(yield* answer({ jsonrpc: "2.0", method, params: { requestId: "1" } })).toEqual({ status: 202, body: undefined })
      }
    }))

  it.effect("/mcp has the request-body limit of the API", () =>
    Effect.gen(function*() {
      const big = yield* post("/mcp", { jsonrpc: "2.0", id: 1, method: "ping", params: { padding: "x".repeat(70 * 1024) } })
      expect(big.status).toBe(413)
      expect(big.body.error.code).toBe("payload_too_large")
    }))
})
