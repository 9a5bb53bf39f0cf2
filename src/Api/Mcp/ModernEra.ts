/**
 * MCP 2026-07-28 at `/mcp`: the revision with no `initialize` and no session, each request naming
 * its revision and its client in `params._meta` and its method (and tool, prompt or resource) in
 * the `Mcp-Method` and `Mcp-Name` headers. Effect's own server answers it
 * (`McpServer.layerHttpRequestScoped`: a server of its own for each POST, nothing kept after it,
 * so that any instance serves any request): the envelope and its headers checked as the official
 * SDK's server checks them (a header that disagrees with the body is 400, JSON-RPC -32020), an
 * unknown revision answered with the ones served (-32022), `server/discover`, the results' cache
 * hints and the server's name on each.
 *
 * What it serves is ours, registered with the handlers the 2025 revisions call (`Transport.ts`):
 * the same tool descriptors and the same `callTool`, not Effect's `registerToolkit`, because a tool
 * here answers a failure with the REST API's `Error` body as structured content, and parameters
 * that break their schema as a tool error `invalid_request` naming the field, where the toolkit
 * answers text only and a JSON-RPC error.
 */
import { McpProtocol, McpServer } from "effect/ai"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { Context, Duration, Effect, Layer, Option, Predicate, Schema } from "effect"
import { API_VERSION } from "../../Domain/Version.js"
import { MCP_NAME, MCP_PATH } from "../Contract/Discovery.js"
import { McpHandlers } from "./Handlers.js"
import { appResources, appToolDescriptors, type BookingToolName, Resources, toolDescriptors } from "./Tools.js"

/** The revision served without sessions; every other one goes through `initialize` (`Transport.ts`). */
const MODERN_PROTOCOL_VERSION = "2026-07-28"

const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
const CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"

const RequestMeta = Schema.Struct({
  method: Schema.String,
  params: Schema.Struct({ _meta: Schema.Record(Schema.String, Schema.Unknown) })
})
const decodeRequestMeta = Schema.decodeUnknownOption(RequestMeta)

/**
 * Whether a message is of the 2026-07-28 era, as the official SDK's server and Effect's classify it:
 * its `_meta` names a revision (whichever: Effect's server answers an unknown one with those it
 * serves, and one the header contradicts with -32020), or, without one, its `MCP-Protocol-Version`
 * header names 2026-07-28 and it is not an `initialize` (then it is refused for the `_meta` it lacks).
 * Anything else is the 2025 revisions' traffic, served as before.
 */
export const isModernMessage = (headers: Readonly<Record<string, string | undefined>>, message: unknown): boolean =>
  Option.match(decodeRequestMeta(message), {
    onSome: ({ params: { _meta } }) => Object.hasOwn(_meta, PROTOCOL_VERSION_KEY),
    onNone: () => false
  }) ||
  (headers["mcp-protocol-version"] === MODERN_PROTOCOL_VERSION && !(Predicate.hasProperty(message, "method") && message.method === "initialize"))

const ClientInfo = Schema.Struct({ name: Schema.String, version: Schema.String })
const ModernRequest = Schema.Struct({
  params: Schema.Struct({ _meta: Schema.Struct({ [CLIENT_INFO_KEY]: ClientInfo }) })
})
const decodeModernRequest = Schema.decodeUnknownOption(ModernRequest)

const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"

/** The capabilities a 2026-07-28 request declares in its `_meta` (what `initialize` declared in the 2025 revisions). */
export const modernCapabilities = (message: unknown): unknown =>
  Option.getOrUndefined(Option.map(decodeRequestMeta(message), ({ params: { _meta } }) => _meta[CLIENT_CAPABILITIES_KEY]))

/** The client's `name/version`, from the client information every 2026-07-28 request carries in `_meta`. */
export const modernAgent = (message: unknown): Option.Option<string> =>
  Option.map(decodeModernRequest(message), ({ params: { _meta } }) => `${_meta[CLIENT_INFO_KEY].name}/${_meta[CLIENT_INFO_KEY].version}`)

// --- what may be cached -----------------------------------------------------------

/**
 * How long a client may keep the hotel's facts and rules (the policies, the agent rules, the lists
 * of tools and resources whose descriptions carry the rules, the server's description): they change
 * only with a hotel import or a release. Nothing live (availability, prices, a quote) is a result
 * that can carry a hint at all.
 */
export const FACTS_TTL = Duration.minutes(5)

/** The resources that are the hotel's facts and rules, kept `FACTS_TTL`. */
const FACTS_RESOURCES: ReadonlySet<string> = new Set([Resources.policies.uri, Resources.agentRules.uri])

/** `private`: Effect's server offers no other scope, and no shared cache needs these. */
const factsHint = { ttl: FACTS_TTL, cacheScope: "private" } as const

const ResourceRead = Schema.Struct({ method: Schema.Literal("resources/read"), params: Schema.Struct({ uri: Schema.String }) })
const decodeResourceRead = Schema.decodeUnknownOption(ResourceRead)

/**
 * Whether `uri` is one of the hotel's facts: Effect's server gives every `resources/read`
 * `ttlMs` 0 (its hints cover the lists only), so a read of one is given `FACTS_TTL` here.
 */
export const isFactsResource = (uri: string): boolean => FACTS_RESOURCES.has(uri)

/** The URI a `resources/read` message reads. */
export const resourceReadOf = (message: unknown): Option.Option<string> => Option.map(decodeResourceRead(message), ({ params: { uri } }) => uri)

/**
 * A JSON-RPC answer of Effect's server, rewritten by `change`; no answer (a notification's 202), an
 * answer streamed as events, and one that `change` returns unchanged are left as they are.
 */
export const rewriteAnswer = (
  response: HttpServerResponse.HttpServerResponse,
  change: (answer: Record<string, unknown>) => Record<string, unknown>
): HttpServerResponse.HttpServerResponse => {
  if (response.body._tag !== "Uint8Array" || response.body.body.length === 0) return response
  const answer: unknown = JSON.parse(new TextDecoder().decode(response.body.body))
  if (!Predicate.isObject(answer) || Array.isArray(answer)) return response
  const changed = change(answer as Record<string, unknown>)
  return changed === answer ? response : HttpServerResponse.jsonUnsafe(changed, { status: response.status, headers: response.headers })
}

/** An answer to a read of the hotel's facts, its result's `ttlMs` `FACTS_TTL`. */
export const withFactsTtl = (answer: Record<string, unknown>): Record<string, unknown> =>
  Predicate.isObject(answer.result) ? { ...answer, result: { ...answer.result, ttlMs: Duration.toMillis(FACTS_TTL) } } : answer

// --- what it serves ------------------------------------------------------------------

/**
 * The booking tools and the resources, each answered by the handler the 2025 revisions call; for a
 * host of MCP Apps (`apps`), the lists that name the offers app (`OffersApp.ts`).
 */
const registrations = (apps: boolean) => Layer.effectDiscard(Effect.gen(function*() {
  const server = yield* McpServer.McpServer
  const handlers = yield* McpHandlers
  for (const tool of apps ? appToolDescriptors : toolDescriptors) {
    yield* server.addTool({
      tool,
      annotations: Context.empty(),
      handle: (args) => handlers.callTool(tool.name as BookingToolName, args)
    })
  }
  for (const resource of apps ? appResources : Object.values(Resources)) {
    yield* server.addResource({
      resource,
      annotations: Context.empty(),
      handle: Option.getOrElse(handlers.readResource(resource.uri), () => Effect.die(new Error(`no handler reads ${resource.uri}`)))
    })
  }
}))

/**
 * The 2026-07-28 server as an HTTP handler of `POST /mcp`, for the endpoint to call with a message
 * of that era (`isModernMessage`), once it has checked its origin and counted it in the rate limit;
 * with `apps`, the one for a request that declares MCP Apps (Effect's server registers once, for
 * every request it serves).
 */
export const makeModernEra = (allowedOrigins: ReadonlyArray<string>, apps: boolean) =>
  HttpRouter.toHttpEffect(
    McpServer.layerHttpRequestScoped({
      name: MCP_NAME,
      version: API_VERSION,
      path: MCP_PATH,
      protocols: [McpProtocol.v2026_07_28],
      // checked before, with the refusal's `Error` body (`Transport.ts`); the same list, so it agrees
      allowedOrigins,
      cacheHints: { discover: factsHint, tools: factsHint, resources: factsHint, resourceTemplates: factsHint, prompts: factsHint },
      registrations: registrations(apps)
    }).pipe(
      // a router of its own: the API's, where `/mcp` is the endpoint's (`Transport.ts`), would be shared
      Layer.provideMerge(Layer.fresh(HttpRouter.layer))
    )
  )

/** The JSON-RPC error of a request refused before Effect's server reads it, under its id (a string or a number in this era). */
export const modernRpcError = (id: unknown, code: number, message: string) =>
  HttpServerResponse.jsonUnsafe({ jsonrpc: "2.0", id: typeof id === "string" || typeof id === "number" ? id : null, error: { code, message } })
