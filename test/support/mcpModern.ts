import { post } from "./flow.js"

/** The client a 2026-07-28 request names in its `_meta`, unless a test names another. */
export const MODERN_AGENT = { name: "modern-test-agent", version: "7.0.0" }

/** The params each 2026-07-28 request carries: its revision, its client and its capabilities. */
export const modernMeta = (clientInfo: { readonly name: string; readonly version: string } = MODERN_AGENT) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": clientInfo,
  "io.modelcontextprotocol/clientCapabilities": {}
})

/** The param the `Mcp-Name` header repeats, for the methods that have one. */
const nameOf = (method: string, params: Record<string, unknown>) =>
  method === "tools/call" || method === "prompts/get" ? params.name : method === "resources/read" ? params.uri : undefined

/** A 2026-07-28 request as the official client v2 sends it: its body and its headers, which agree. */
export const modernRequest = (method: string, params: Record<string, unknown> = {}, clientInfo?: { readonly name: string; readonly version: string }) => {
  const name = nameOf(method, params)
  return {
    body: { jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: modernMeta(clientInfo) } },
    headers: {
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {})
    } as Record<string, string>
  }
}

/** A 2026-07-28 request posted to `/mcp`, its headers changed by `headers`. */
export const postModern = (
  method: string,
  params: Record<string, unknown> = {},
  options: { readonly headers?: Record<string, string>; readonly clientInfo?: { readonly name: string; readonly version: string } } = {}
) => {
  const request = modernRequest(method, params, options.clientInfo)
  return post("/mcp", request.body, { ...request.headers, ...options.headers })
}
