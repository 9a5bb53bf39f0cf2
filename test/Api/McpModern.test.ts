import { expect, layer } from "@effect/vitest"
import { createMcpHandler, isLegacyRequest, McpServer as OfficialServer } from "@modelcontextprotocol/server"
import { Effect, Layer, Option } from "effect"
import type { QuoteId } from "../../src/Domain/Ids.js"
import { QuoteRepo } from "../../src/Layers/Persistence/QuoteRepo.js"
import { makeTestClock } from "../support/clock.js"
import { post } from "../support/flow.js"
import { modernRequest, postModern } from "../support/mcpModern.js"
import { baseUrl, TestApp } from "../support/TestApp.js"

// Today is Sunday 2026-11-22 in hotel time.
const clock = makeTestClock("2026-11-22T10:00:00Z")

/** The official SDK v2's server, a tool of the same name as ours, answering in-process (`fetch`), no port. */
const official = createMcpHandler(() => {
  const server = new OfficialServer({ name: "official-reference", version: "2.4.0" })
  server.registerTool("get_hotel", { description: "the reference's own" }, () => ({ content: [{ type: "text", text: "{}" }] }))
  return server
})

/** A request to the official server: its status and JSON-RPC error code. */
const officialAnswer = (body: unknown, headers: Record<string, string>) =>
  Effect.promise(async () => {
    const response = await official.fetch(
      new Request("http://official.test/mcp", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })
    )
    const answer = await response.json() as { readonly error?: { readonly code: number } }
    return { status: response.status, code: answer.error?.code }
  })

const isModernToTheOfficialSdk = (body: unknown, headers: Record<string, string>) =>
  Effect.promise(async () =>
    !(await isLegacyRequest(new Request("http://official.test/mcp", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })))
  )

const stay = { checkin: "2026-12-10", checkout: "2026-12-12", rooms: [{ room_type_id: "double", adults: 2 }] }

layer(TestApp({ config: { mcpAllowedOrigins: ["https://agent-console.example"] } }).pipe(Layer.provide(clock.layer)), { excludeTestServices: true })(
  "MCP 2026-07-28 at /mcp",
  (it) => {
    it.effect("a request whose Mcp-Method, Mcp-Name or MCP-Protocol-Version header disagrees with its body is refused as the official SDK's server refuses it: 400, -32020", () =>
      Effect.gen(function*() {
        const call = modernRequest("tools/call", { name: "get_hotel", arguments: {} })
        const disagreeing: ReadonlyArray<[string, Record<string, string>]> = [
          ["Mcp-Method", { "mcp-method": "tools/list" }],
          ["Mcp-Name", { "mcp-name": "quote_stay" }],
          ["MCP-Protocol-Version", { "mcp-protocol-version": "2025-11-25" }]
        ]
        for (const [header, change] of disagreeing) {
          const headers = { ...call.headers, ...change }
          const ours = yield* post("/mcp", call.body, headers)
          expect({ header, status: ours.status, code: ours.body.error.code }).toEqual({ header, status: 400, code: -32020 })
          expect(ours.body.id).toBe(1)
          expect(yield* officialAnswer(call.body, headers)).toEqual({ status: 400, code: -32020 })
        }
        // the same request with headers that agree is served
        const agreeing = yield* post("/mcp", call.body, call.headers)
        expect([agreeing.status, agreeing.body.result.isError]).toEqual([200, false])
        expect((yield* officialAnswer(call.body, call.headers)).status).toBe(200)
      }))

    it.effect("a message is of the 2026-07-28 era exactly when the official SDK says so, and each era's refusals are its own", () =>
      Effect.gen(function*() {
        const { body, headers } = modernRequest("tools/list")
        const { _meta, ...noMeta } = body.params
        interface Case {
          readonly label: string
          readonly message: unknown
          readonly headers: Record<string, string>
          readonly modern: boolean
        }
        const unknownRevision: Case = {
          label: "an unknown revision",
          message: { ...body, params: { _meta: { ..._meta, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } } },
          headers: { ...headers, "mcp-protocol-version": "2099-01-01" },
          modern: true
        }
        const withoutMeta: Case = { label: "the 2026-07-28 header without _meta", message: { ...body, params: noMeta }, headers, modern: true }
        const initialize: Case = {
          label: "initialize",
          message: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } } },
          headers: {},
          modern: false
        }
        const cases: ReadonlyArray<Case> = [
          { label: "2026-07-28", message: body, headers, modern: true },
          unknownRevision,
          withoutMeta,
          initialize,
          { label: "a 2025 request", message: { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers: { "mcp-protocol-version": "2025-06-18" }, modern: false }
        ]
        for (const { headers, label, message, modern } of cases) {
          expect({ label, modern: yield* isModernToTheOfficialSdk(message, headers) }).toEqual({ label, modern })
        }
        // refused as the official server refuses them: an unknown revision with the one served, a missing _meta as invalid params
        for (const [{ headers, label, message }, code] of [[unknownRevision, -32022], [withoutMeta, -32602]] as const) {
          const ours = yield* post("/mcp", message, headers)
          expect({ label, status: ours.status, code: ours.body.error.code }).toEqual({ label, status: 400, code })
          expect(yield* officialAnswer(message, headers)).toEqual({ status: 400, code })
        }
        expect((yield* post("/mcp", unknownRevision.message, unknownRevision.headers)).body.error.data.supported).toEqual(["2026-07-28"])
        const initialized = yield* post("/mcp", initialize.message)
        expect(initialized.body.result).toMatchObject({ protocolVersion: "2025-11-25", capabilities: { logging: {}, tools: {}, resources: {} } })
        expect(initialized.headers["mcp-session-id"]).toBeDefined()
      }))

    it.effect("server/discover lists the capabilities whose lists are served, and tools/list the same tools as the 2025 revisions", () =>
      Effect.gen(function*() {
        const discovered = (yield* postModern("server/discover")).body.result
        expect(discovered).toMatchObject({
          resultType: "complete",
          supportedVersions: ["2026-07-28"],
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "Hotel Booking API", version: "1.1.0" } }
        })
        expect(Object.keys(discovered.capabilities).sort()).toEqual(["completions", "logging", "resources", "tools"])

        const modernTools = (yield* postModern("tools/list")).body.result.tools
        const legacyTools = (yield* post("/mcp", { jsonrpc: "2.0", id: 2, method: "tools/list" })).body.result.tools
        expect(modernTools.map((t: { name: string }) => t.name)).toEqual(legacyTools.map((t: { name: string }) => t.name))
        expect(modernTools).toEqual(legacyTools)
        const modernResources = (yield* postModern("resources/list")).body.result.resources
        expect(modernResources).toEqual((yield* post("/mcp", { jsonrpc: "2.0", id: 3, method: "resources/list" })).body.result.resources)
        // no prompts: not offered, as discover says
        const prompts = yield* postModern("prompts/list")
        expect([prompts.status, prompts.body.error.code]).toEqual([404, -32601])
      }))

    it.effect("a read of a resource the server has not: each era's code (2025: -32002, 2026-07-28: -32602), the URI quoted in at most 100 characters", () =>
      Effect.gen(function*() {
        for (const [uri, named] of [["hotel://nothing", "hotel://nothing"], ["x".repeat(5_000), `${"x".repeat(100)}…`]] as const) {
          const modern = yield* postModern("resources/read", { uri })
          const legacy = yield* post("/mcp", { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri } })
          expect(modern.body.error).toEqual({ code: -32602, message: `Resource not found: ${named}` })
          expect(legacy.body.error).toEqual({ code: -32002, message: `Resource not found: ${named}` })
        }
      }))

    it.effect("any other refusal of Effect's server is bounded as the 2025 revisions bound theirs: an unknown method or prompt quoted, not echoed whole", () =>
      Effect.gen(function*() {
        const long = "y".repeat(5_000)
        const method = yield* postModern(long)
        expect([method.status, method.body.error.code]).toEqual([404, -32601])
        const prompt = yield* postModern("prompts/get", { name: long })
        expect(prompt.body.error.code).toBe(-32602)
        const legacyPrompt = (yield* post("/mcp", { jsonrpc: "2.0", id: 1, method: "prompts/get", params: { name: long } })).body.error
        for (const error of [method.body.error, prompt.body.error, legacyPrompt]) {
          expect(error.message).toMatch(/y…$/)
          expect(JSON.stringify(error).length).toBeLessThan(400)
        }
      }))

    it.effect("ttlMs: 300 s on the hotel's facts and rules and the lists that describe them, none on a live result", () =>
      Effect.gen(function*() {
        const FIVE_MINUTES = 300_000
        for (const uri of ["hotel://policies", "hotel://agent-rules"]) {
          const read = (yield* postModern("resources/read", { uri })).body.result
          expect({ uri, ttlMs: read.ttlMs, cacheScope: read.cacheScope }).toEqual({ uri, ttlMs: FIVE_MINUTES, cacheScope: "private" })
          expect(read.contents[0].text.length).toBeGreaterThan(100)
        }
        for (const method of ["server/discover", "tools/list", "resources/list"]) {
          expect({ method, ttlMs: (yield* postModern(method)).body.result.ttlMs }).toEqual({ method, ttlMs: FIVE_MINUTES })
        }
        const live: ReadonlyArray<[string, Record<string, unknown>]> = [
          ["check_availability", { checkin: stay.checkin, checkout: stay.checkout, adults: 2 }],
          ["quote_stay", stay],
          ["get_hotel", {}]
        ]
        for (const [name, args] of live) {
          const result = (yield* postModern("tools/call", { name, arguments: args })).body.result
          expect({ name, isError: result.isError, ttlMs: result.ttlMs, cacheScope: result.cacheScope })
            .toEqual({ name, isError: false, ttlMs: undefined, cacheScope: undefined })
        }
      }))

    it.effect("the agent recorded on a quote is the client named in the request's _meta", () =>
      Effect.gen(function*() {
        const quoted = yield* postModern("tools/call", { name: "quote_stay", arguments: stay }, { clientInfo: { name: "meta-named-agent", version: "3.1" } })
        const { quote_id } = quoted.body.result.structuredContent
        const stored = yield* (yield* QuoteRepo).find(quote_id as QuoteId)
        expect(Option.map(stored, (q) => q.client.ai_agent)).toEqual(Option.some("meta-named-agent/3.1"))
      }))

    it.effect("the tools answer as in the 2025 revisions: a failure carries the REST API's Error body, an unknown tool the same bounded refusal", () =>
      Effect.gen(function*() {
        const bad = { ...stay, checkout: "2026-12-09" }
        const modern = (yield* postModern("tools/call", { name: "quote_stay", arguments: bad })).body.result
        const legacy = (yield* post("/mcp", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "quote_stay", arguments: bad } })).body.result
        expect(modern).toMatchObject({ isError: true, structuredContent: { error: { code: "invalid_dates" } } })
        expect(modern.structuredContent).toEqual(legacy.structuredContent)
        expect(modern.content).toEqual(legacy.content)

        const name = "y".repeat(5_000)
        const unknownModern = yield* postModern("tools/call", { name, arguments: {} })
        const unknownLegacy = yield* post("/mcp", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } })
        expect(unknownModern.body.error).toEqual(unknownLegacy.body.error)
        expect(unknownModern.body.error).toEqual({ code: -32602, message: `Unknown tool: ${"y".repeat(64)}…` })
        // a notification is answered by no message, whatever it names
        const { body: { id: _id, ...notification }, headers } = modernRequest("tools/call", { name, arguments: {} })
        const unanswered = yield* post("/mcp", notification, headers)
        expect([unanswered.status, unanswered.text]).toEqual([202, ""])
      }))

    it.effect("a 2026-07-28 body that is not JSON, or not one message, is refused, never a 500", () =>
      Effect.gen(function*() {
        const { headers } = modernRequest("tools/list")
        const send = (text: string) =>
          Effect.flatMap(baseUrl, (base) =>
            Effect.promise(async () => {
              const response = await fetch(`${base}/mcp`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: text })
              return { status: response.status, text: await response.text() }
            }))
        const unparsable = yield* send("{")
        expect([unparsable.status, JSON.parse(unparsable.text).error.code]).toEqual([200, -32700])
        for (const text of ["[]", `[${JSON.stringify(modernRequest("tools/list").body)}]`, "5", `{"jsonrpc":"2.0","id":1}`]) {
          const refused = yield* send(text)
          expect({ text, status: refused.status < 500 }).toEqual({ text, status: true })
        }
      }))

    it.effect("the same Origin check and prototype-key refusal as the 2025 revisions", () =>
      Effect.gen(function*() {
        const refused = yield* postModern("tools/list", {}, { headers: { origin: "http://evil.example" } })
        expect([refused.status, refused.body.error.code]).toEqual([403, "forbidden_origin"])
        const allowed = yield* postModern("tools/list", {}, { headers: { origin: "https://agent-console.example" } })
        expect(allowed.status).toBe(200)

        const { body, headers } = modernRequest("tools/call", { name: "get_hotel", arguments: {} })
        const poisoned = JSON.stringify(body).replace(`"arguments":{}`, `"arguments":{"__proto__":{"admin":true}}`)
        const answer = yield* post("/mcp", JSON.parse(poisoned), headers)
        expect(answer.body.error).toMatchObject({ code: -32602, message: expect.stringContaining("__proto__") })
      }))
  }
)
