import { NodeServices } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Context, Effect, Layer, Option, type Redacted } from "effect"
import * as path from "node:path"
import { HttpLive } from "../../src/Api/Transport/Http.js"
import type { QuoteId, ReservationId } from "../../src/Domain/Ids.js"
import { QuoteRepo } from "../../src/Layers/Persistence/QuoteRepo.js"
import { ReservationRepo } from "../../src/Layers/Persistence/ReservationRepo.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { AppSecret } from "../../src/Layers/Platform/AppSecret.js"
import { makeTestClock } from "../support/clock.js"
import { poolOn, testDatabaseUrl } from "../support/database.js"
import { completeWith, tokenOf } from "../support/flow.js"
import { instanceOn } from "../support/instance.js"
import { baseUrl, TestServer, UNLIMITED } from "../support/TestApp.js"

// Today is Sunday 2026-11-22 in hotel time.
const clock = makeTestClock("2026-11-22T10:00:00Z")

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

type Instance = Context.Context<Layer.Success<ReturnType<typeof servedInstance>>>

/** Two instances of the service on one database, each with its own server, as two processes behind a load balancer. */
class TwoInstances extends Context.Service<TwoInstances, {
  readonly a: Instance
  readonly b: Instance
  readonly bases: { readonly a: string; readonly b: string }
}>()("test/TwoInstances") {}

const TwoInstancesLive = Layer.effect(
  TwoInstances,
  Effect.gen(function*() {
    const url = yield* testDatabaseUrl
    // one after the other: the first migrates the database and imports the hotel
    const a = yield* Layer.build(servedInstance(url))
    const b = yield* Layer.build(servedInstance(url))
    const bases = { a: yield* Effect.provideContext(baseUrl, a), b: yield* Effect.provideContext(baseUrl, b) }
    expect(bases.a).not.toBe(bases.b)
    return { a, b, bases }
  })
)

interface Sent {
  readonly instance: "a" | "b"
  readonly method: string
  readonly sessionId: string | null
  readonly protocolVersion: string | null
}

/** What the tests ask of a client, which the official clients v1 and v2 both do. */
interface McpClient {
  readonly callTool: (params: { name: string; arguments: Record<string, unknown> }) => Promise<unknown>
  readonly listTools: () => Promise<{ readonly tools: ReadonlyArray<{ readonly name: string }> }>
  readonly close: () => Promise<void>
}

/**
 * An official client, its requests sent to each instance in turn (`a`, `b`, `a`, …), as a load
 * balancer without affinity would: the requests it sent, in order, with the instance that took each.
 */
const roamingClient = <C extends McpClient>(bases: TwoInstances["Service"]["bases"], connect: (url: URL, fetch: typeof globalThis.fetch) => Promise<C>) => {
  const sent: Array<Sent> = []
  const fetchAlternating = (target: string | URL | Request, init?: RequestInit) => {
    const instance = sent.length % 2 === 0 ? "a" : "b"
    const headers = new Headers(init?.headers)
    const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined
    sent.push({
      instance,
      method: init?.method === "POST" ? body?.method : init?.method ?? "GET",
      sessionId: headers.get("mcp-session-id"),
      protocolVersion: headers.get("mcp-protocol-version")
    })
    const url = new URL(target instanceof Request ? target.url : target)
    return fetch(new URL(`${url.pathname}${url.search}`, bases[instance]), init)
  }
  return Effect.acquireRelease(
    Effect.promise(async () => ({ client: await connect(new URL(`${bases.a}/mcp`), fetchAlternating), sent })),
    ({ client }) => Effect.promise(() => client.close())
  )
}

/** A tool's answer, which must not be an error: its structured content. */
const structured = (result: unknown) => {
  const { isError, structuredContent } = result as { readonly isError?: boolean; readonly structuredContent?: any }
  expect(isError).not.toBe(true)
  return structuredContent
}

/**
 * The booking flow through `client`, each request on the instance after the last's: the tools, a
 * quote, an intent and its retry (answered from the shared database), then the guest completing
 * the reservation at its continue_url on the other instance; the quote and the reservation
 * recorded as the agent's.
 */
const booksAcrossInstances = (client: McpClient, agent: string, idempotencyKey: string) =>
  Effect.gen(function*() {
    const { a, b } = yield* TwoInstances
    const { tools } = yield* Effect.promise(() => client.listTools())
    expect(tools.map((t) => t.name)).toContain("quote_stay")

    const quote = structured(yield* Effect.promise(() =>
      client.callTool({
        name: "quote_stay",
        arguments: { checkin: "2026-12-10", checkout: "2026-12-12", rooms: [{ room_type_id: "double", adults: 2 }] }
      })
    ))
    const offer = quote.package_offers[0]
    const intentArguments = { quote_id: quote.quote_id, package_code: offer.package_code, idempotency_key: idempotencyKey }
    const intent = structured(yield* Effect.promise(() => client.callTool({ name: "create_reservation_intent", arguments: intentArguments })))
    expect(intent).toMatchObject({ status: "PENDING_GUEST" })
    const retry = structured(yield* Effect.promise(() => client.callTool({ name: "create_reservation_intent", arguments: intentArguments })))
    expect(retry).toEqual(intent)

    const done = yield* Effect.provideContext(completeWith(tokenOf(intent.continue_url), offer.price.total), b)
    expect(done.status).toBe(200)
    expect(done.body).toMatchObject({ reservation_id: intent.reservation_id, status: "GUEST_COMPLETED" })

    const stored = yield* Effect.provideContext(Effect.flatMap(QuoteRepo, (repo) => repo.find(quote.quote_id as QuoteId)), b)
    expect(Option.map(stored, (q) => q.client.ai_agent)).toEqual(Option.some(agent))
    const reservation = yield* Effect.provideContext(Effect.flatMap(ReservationRepo, (repo) => repo.find(intent.reservation_id as ReservationId)), a)
    expect(Option.map(reservation, (r) => r.client.ai_agent)).toEqual(Option.some(agent))
  })

/** The official client v2, negotiating the revision as `mode` says. */
const v2Client = (agent: { name: string; version: string }, mode: "auto" | { pin: string }) => async (url: URL, fetch: typeof globalThis.fetch) => {
  const client = new ClientV2(agent, { versionNegotiation: { mode } })
  await client.connect(new TransportV2(url, { fetch }))
  return client
}

layer(TwoInstancesLive, { timeout: 120_000 })("the official MCP clients book across two instances that keep no session", (it) => {
  it.effect("v1 (1.32), 2025 revisions: the session started on one instance goes on on the other, its id carrying the agent", () =>
    Effect.gen(function*() {
      const { bases } = yield* TwoInstances
      const AGENT = { name: "roaming-agent", version: "4.0.1" }
      const { client, sent } = yield* roamingClient(bases, async (url, fetch) => {
        const client = new Client(AGENT)
        await client.connect(new StreamableHTTPClientTransport(url, { fetch }))
        return client
      })
      expect(client.getServerVersion()).toEqual({ name: "Hotel Booking API", version: "1.1.0" })
      yield* booksAcrossInstances(client, "roaming-agent/4.0.1", "roaming-1")

      // initialize on a, at the latest 2025 revision; every later request carries the session id it
      // gave, and each instance serves some: the quote on b, which never saw the initialize
      const sessionId = sent[1]!.sessionId
      expect(sessionId).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/)
      expect(sent.map(({ instance, method, sessionId }) => ({ instance, method, sessionId }))).toEqual([
        { instance: "a", method: "initialize", sessionId: null },
        { instance: "b", method: "notifications/initialized", sessionId },
        { instance: "a", method: "tools/list", sessionId },
        { instance: "b", method: "tools/call", sessionId },
        { instance: "a", method: "tools/call", sessionId },
        { instance: "b", method: "tools/call", sessionId }
      ])
      expect(sent[1]!.protocolVersion).toBe("2025-11-25")
    }))

  for (const [label, mode] of [["pinned to 2026-07-28", { pin: "2026-07-28" }], ["in its automatic mode", "auto"]] as const) {
    it.effect(`v2 ${label}: 2026-07-28, no initialize and no session, the agent named in each request's _meta`, () =>
      Effect.gen(function*() {
        const { bases } = yield* TwoInstances
        const agent = { name: `v2-${typeof mode === "string" ? mode : "pinned"}-agent`, version: "2.4.0" }
        const { client, sent } = yield* roamingClient(bases, v2Client(agent, mode))
        expect(client.getProtocolEra()).toBe("modern")
        expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
        expect(client.getServerVersion()).toEqual({ name: "Hotel Booking API", version: "1.1.0" })
        yield* booksAcrossInstances(client, `${agent.name}/${agent.version}`, `modern-${agent.name}`)

        expect(sent.map(({ instance, method }) => ({ instance, method }))).toEqual([
          { instance: "a", method: "server/discover" },
          { instance: "b", method: "tools/list" },
          { instance: "a", method: "tools/call" },
          { instance: "b", method: "tools/call" },
          { instance: "a", method: "tools/call" }
        ])
        for (const request of sent) expect(request).toMatchObject({ sessionId: null, protocolVersion: "2026-07-28" })
      }))
  }
})
