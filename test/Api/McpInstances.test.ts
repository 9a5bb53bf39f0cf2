import { NodeServices } from "@effect/platform-node"
import { expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Layer, Option, type Redacted } from "effect"
import * as path from "node:path"
import { HttpLive } from "../../src/Api/Transport/Http.js"
import type { QuoteId, ReservationId } from "../../src/Domain/Ids.js"
import { QuoteRepo } from "../../src/Layers/Persistence/QuoteRepo.js"
import { ReservationRepo } from "../../src/Layers/Persistence/ReservationRepo.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { AppSecret } from "../../src/Layers/Platform/AppSecret.js"
import { makeTestClock } from "../support/clock.js"
import { poolOn, testDatabaseUrl } from "../support/database.js"
import { instanceOn } from "../support/instance.js"
import { baseUrl, TestServer, UNLIMITED } from "../support/TestApp.js"

// Today is Sunday 2026-11-22 in hotel time.
const clock = makeTestClock("2026-11-22T10:00:00Z")

const AGENT = { name: "roaming-agent", version: "4.0.1" }

/** One instance of the whole service on the database at `url`, served on a port of its own, as a process would be. */
const servedInstance = (url: Redacted.Redacted) => {
  const hotelFile = path.resolve("data/hotel.json")
  return HttpLive.pipe(
    Layer.provideMerge(instanceOn(poolOn(url), { hotelFile, clock: clock.layer })),
    Layer.provide(Layer.mergeAll(AppConfig.InMemory({ hotelFile, publicBaseUrl: "http://hotel.test", ...UNLIMITED }), NodeServices.layer, AppSecret.InMemory)),
    Layer.provideMerge(TestServer),
    Layer.provide(clock.layer)
  )
}

interface Sent {
  readonly instance: "a" | "b"
  readonly method: string
  readonly sessionId: string | null
}

/**
 * The official client, its requests sent to each instance in turn (`a`, `b`, `a`, …), as a load
 * balancer without affinity would: the requests it sent, in order, with the instance that took each.
 */
const roamingClient = (bases: { readonly a: string; readonly b: string }) => {
  const sent: Array<Sent> = []
  const fetchAlternating = (target: string | URL, init?: RequestInit) => {
    const instance = sent.length % 2 === 0 ? "a" : "b"
    const headers = new Headers(init?.headers)
    const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined
    sent.push({ instance, method: init?.method === "POST" ? body?.method : init?.method ?? "GET", sessionId: headers.get("mcp-session-id") })
    const url = new URL(target)
    return fetch(new URL(`${url.pathname}${url.search}`, bases[instance]), init)
  }
  return Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client(AGENT)
      await client.connect(new StreamableHTTPClientTransport(new URL(`${bases.a}/mcp`), { fetch: fetchAlternating }))
      return { client, sent }
    }),
    ({ client }) => Effect.promise(() => client.close())
  )
}

/** A tool's answer, which must not be an error: its structured content. */
const structured = (result: object) => {
  const { isError, structuredContent } = result as { readonly isError?: boolean; readonly structuredContent?: any }
  expect(isError).not.toBe(true)
  return structuredContent
}

it.live("an MCP session started on one instance goes on on another: no instance keeps it, the session id carries it", () =>
  Effect.gen(function*() {
    const url = yield* testDatabaseUrl
    // one after the other: the first migrates the database and imports the hotel
    const a = yield* Layer.build(servedInstance(url))
    const b = yield* Layer.build(servedInstance(url))
    const bases = { a: yield* Effect.provideContext(baseUrl, a), b: yield* Effect.provideContext(baseUrl, b) }
    expect(bases.a).not.toBe(bases.b)

    const { client, sent } = yield* roamingClient(bases)
    expect(client.getServerVersion()).toEqual({ name: "Hotel Booking API", version: "1.1.0" })
    const { tools } = yield* Effect.promise(() => client.listTools())
    expect(tools.map((t) => t.name)).toContain("quote_stay")

    const quote = structured(yield* Effect.promise(() =>
      client.callTool({
        name: "quote_stay",
        arguments: { checkin: "2026-12-10", checkout: "2026-12-12", rooms: [{ room_type_id: "double", adults: 2 }] }
      })
    ))
    const offer = quote.package_offers[0]
    const intent = structured(yield* Effect.promise(() =>
      client.callTool({
        name: "create_reservation_intent",
        arguments: { quote_id: quote.quote_id, package_code: offer.package_code, idempotency_key: "roaming-1" }
      })
    ))
    expect(intent).toMatchObject({ status: "PENDING_GUEST" })
    // the retry lands on the other instance, and finds the first answer in the shared database
    const retry = structured(yield* Effect.promise(() =>
      client.callTool({
        name: "create_reservation_intent",
        arguments: { quote_id: quote.quote_id, package_code: offer.package_code, idempotency_key: "roaming-1" }
      })
    ))
    expect(retry).toEqual(intent)

    // initialize on a; every later request carries the session id it gave, and each instance serves
    // some: the quote on b, which never saw the initialize, the intent on a, its retry on b
    const sessionId = sent[1]!.sessionId
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/)
    expect(sent).toEqual([
      { instance: "a", method: "initialize", sessionId: null },
      { instance: "b", method: "notifications/initialized", sessionId },
      { instance: "a", method: "tools/list", sessionId },
      { instance: "b", method: "tools/call", sessionId },
      { instance: "a", method: "tools/call", sessionId },
      { instance: "b", method: "tools/call", sessionId }
    ])

    // the quote made on b and the reservation made on a are both the agent's named at initialization on a
    const agent = `${AGENT.name}/${AGENT.version}`
    const stored = yield* Effect.provideContext(Effect.gen(function*() {
      return yield* (yield* QuoteRepo).find(quote.quote_id as QuoteId)
    }), b)
    expect(Option.map(stored, (q) => q.client.ai_agent)).toEqual(Option.some(agent))
    const reservation = yield* Effect.provideContext(Effect.gen(function*() {
      return yield* (yield* ReservationRepo).find(intent.reservation_id as ReservationId)
    }), a)
    expect(Option.map(reservation, (r) => r.client.ai_agent)).toEqual(Option.some(agent))
  }), { timeout: 120_000 })
