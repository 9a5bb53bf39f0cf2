import { Effect } from "effect"
import { APP_MIME_TYPE } from "../../src/Api/Mcp/OffersApp.js"
import { post } from "./flow.js"

/** A client's capabilities declaring MCP Apps with HTML views (the io.modelcontextprotocol/ui extension). */
export const APPS_CAPABILITIES = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [APP_MIME_TYPE] } } }

/**
 * A session of `/mcp` over raw HTTP, opened by `agent` with `capabilities`: its session id, which
 * the later requests send, and what `initialize` answered.
 */
export const mcpSession = (capabilities: object, agent = { name: "apps-test-host", version: "2.0.4" }) =>
  Effect.gen(function*() {
    const opened = yield* post("/mcp", {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities, clientInfo: agent }
    })
    if (opened.status !== 200) return yield* Effect.die(new Error(`initialize answered ${opened.status}: ${opened.text}`))
    const id = opened.headers["mcp-session-id"]!
    yield* post("/mcp", { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": id })
    return { id, initialized: opened.body.result }
  })

/** The headers of a request in the session `sessionId`. */
export const sessionHeaders = (sessionId: string) => ({ "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" })

/** One request of a session, answered as it went over the wire. */
export const mcpRequest = (sessionId: string, method: string, params: object = {}) =>
  post("/mcp", { jsonrpc: "2.0", id: 2, method, params }, sessionHeaders(sessionId))
