/**
 * The MCP server's endpoint (Model Context Protocol, Streamable HTTP transport) at `/mcp`, in the
 * same HTTP application as the REST API, so the body limit, the rate limiter and the error bodies
 * are the same. POST carries one JSON-RPC message and is answered with JSON; GET (a server-sent
 * event stream) and DELETE (end a session) are 405, as the transport allows.
 *
 * Both eras of MCP on one endpoint, each message checked for its origin and counted in the rate
 * limit alike, its tools and resources answered by the same handlers (`Handlers.ts`):
 * - 2026-07-28, sessionless, is Effect's `McpServer` (`ModernEra.ts`);
 * - the 2025 revisions (2025-11-25 and older, through `initialize`) are ours, here. They keep no
 *   state, so that any instance serves any request: the session id given at initialization carries
 *   what later requests need (`sessionIdFor`). That is why this protocol is an RPC server of MCP's
 *   own messages (`McpSchema`) over JSON-RPC, and not the library's `McpServer`: its runtime keeps
 *   each 2025 session in one process's memory and answers any other instance's session with a 404.
 */
import { McpSchema } from "effect/ai"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { type RpcMessage, RpcGroup, RpcSerialization, RpcServer } from "effect/rpc"
import { Effect, Layer, Option, Predicate, Result, Schema, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import { invalidRequest as invalidRequestError } from "../../Domain/Errors.js"
import type { ClientInfo } from "../../Domain/Quote.js"
import { API_VERSION } from "../../Domain/Version.js"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import { MCP_NAME, MCP_PATH } from "../Contract/Discovery.js"
import { describeIssues, type ErrorBody, errorResponse, quote, ValidationErrorBody } from "../Contract/Errors.js"
import { AnalyticsHeaders, clientInfo } from "../Contract/RequestHeaders.js"
import { clientAddress } from "../Transport/ClientAddress.js"
import { endpointCost, makeRateLimit } from "../Transport/RateLimit.js"
import { ForbiddenOrigin, ForbiddenOriginBody } from "../Transport/TransportErrors.js"
import { McpCaller, McpHandlers } from "./Handlers.js"
import {
  isFactsResource,
  isModernMessage,
  makeModernEra,
  modernAgent,
  modernCapabilities,
  modernRpcError,
  resourceReadOf,
  rewriteAnswer,
  withFactsTtl
} from "./ModernEra.js"
import { APPS_EXTENSION, declaresApps } from "./OffersApp.js"
import { appResources, appToolDescriptors, isBookingTool, Resources, REST_TWINS, toolDescriptors } from "./Tools.js"

// --- the protocol: MCP's messages, each answered from the message alone ---------------

/** Every method a client may call or notify. */
const McpRpcs = RpcGroup.make(
  McpSchema.Ping,
  McpSchema.Initialize,
  McpSchema.Complete,
  McpSchema.SetLevel,
  McpSchema.GetPrompt,
  McpSchema.ListPrompts,
  McpSchema.ListResources,
  McpSchema.ListResourceTemplates,
  McpSchema.ReadResource,
  McpSchema.Subscribe,
  McpSchema.Unsubscribe,
  McpSchema.CallTool,
  McpSchema.ListTools
).merge(McpSchema.ClientNotificationRpcs)

/**
 * The revisions of MCP negotiated by `initialize`, whose messages these are; a client offering
 * another is answered with the latest. 2026-07-28 has no `initialize` (`ModernEra.ts`).
 */
const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"]

const notImplemented = Effect.fail(new McpSchema.InternalError({ message: "Not implemented" }))

/**
 * The answers. Nothing here remembers a client: `initialize` says what this server is, and every
 * other request is answered as if it were the first.
 */
const McpRpcHandlers = McpRpcs.toLayer(Effect.gen(function*() {
  const handlers = yield* McpHandlers
  return McpRpcs.of({
    ping: () => Effect.succeed({}),
    initialize: ({ protocolVersion }) =>
      Effect.succeed({
        protocolVersion: PROTOCOL_VERSIONS.includes(protocolVersion) ? protocolVersion : PROTOCOL_VERSIONS[0]!,
        capabilities: {
          completions: {},
          logging: {},
          resources: { subscribe: false, listChanged: true },
          tools: { listChanged: true },
          extensions: { [APPS_EXTENSION]: {} }
        },
        serverInfo: { name: MCP_NAME, version: API_VERSION }
      }),
    "completion/complete": () => Effect.succeed({ completion: { values: [], total: 0, hasMore: false } }),
    // accepted, as 2026-07-28 accepts a level in `_meta`: no message this server sends is a log
    "logging/setLevel": () => Effect.succeed({}),
    "prompts/get": ({ name }) => Effect.fail(new McpSchema.InvalidParams({ message: `Prompt '${name}' not found` })),
    "prompts/list": () => Effect.succeed(new McpSchema.ListPromptsResult({ prompts: [] })),
    "resources/list": () =>
      Effect.map(McpCaller, ({ apps }) => new McpSchema.ListResourcesResult({ resources: apps ? appResources : Object.values(Resources) })),
    "resources/templates/list": () => Effect.succeed(new McpSchema.ListResourceTemplatesResult({ resourceTemplates: [] })),
    "resources/read": ({ uri }) =>
      Option.getOrElse(handlers.readResource(uri), () => Effect.fail(new McpSchema.McpErrorBase(resourceNotFound(uri, RESOURCE_NOT_FOUND)))),
    "resources/subscribe": () => notImplemented,
    "resources/unsubscribe": () => notImplemented,
    // an unknown tool is refused before it gets here (`refusal`)
    "tools/call": ({ arguments: args, name }) =>
      isBookingTool(name)
        ? handlers.callTool(name, args)
        : Effect.fail(new McpSchema.InvalidParams({ message: `Unknown tool: ${quote(name, MAX_ECHOED_TOOL_NAME)}` })),
    // quote_stay names its app only to a client that declared MCP Apps, as the extension asks
    "tools/list": () => Effect.map(McpCaller, ({ apps }) => new McpSchema.ListToolsResult({ tools: apps ? appToolDescriptors : toolDescriptors })),
    "notifications/cancelled": () => Effect.void,
    "notifications/progress": () => Effect.void,
    "notifications/initialized": () => Effect.void,
    "notifications/roots/list_changed": () => Effect.void
  })
}))

// --- the message, checked before the protocol reads it -----------------------------------

/**
 * A request id: a whole number, or one written as a string, which is answered as the number (this
 * server's answers have always carried numbers).
 */
const notAnId = { message: "must be a whole number (this server answers no other ids)" }
const RequestId = Schema.Union([
  Schema.Number.check(Schema.isInt(notAnId), Schema.isBetween({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }, notAnId)),
  Schema.String.check(Schema.isPattern(/^-?\d{1,15}$/, notAnId))
]).annotate(notAnId)

/** A JSON-RPC 2.0 request (with an id) or notification (without). */
const Envelope = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.optionalKey(RequestId),
  method: Schema.String.check(Schema.isMaxLength(100)),
  params: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})

const decodeEnvelope = Schema.decodeUnknownResult(Envelope)

const serialization = RpcSerialization.jsonRpc({ controlMessages: false })

const issuesOf = (error: Schema.SchemaError) => describeIssues(error.issue) ?? error.message

/** The params each method takes, decoded as the protocol will decode them. */
const paramsDecoders = new Map(
  [...McpRpcs.requests].map(([method, rpc]) => [method, Schema.decodeUnknownResult(serialization.codecFor(rpc.payloadSchema))])
)

const invalidRequest = (detail: string) =>
  HttpServerResponse.jsonUnsafe(
    Schema.encodeSync(ValidationErrorBody)(
      invalidRequestError(`${MCP_PATH} takes one JSON-RPC 2.0 request or notification of MCP: ${detail}`)
    ),
    { status: 400 }
  )

/** A JSON-RPC error answer to a request, under its id (`-32601` method not found, `-32602` invalid params). */
const rpcError = (id: number | string, code: number, message: string) =>
  HttpServerResponse.jsonUnsafe({ jsonrpc: "2.0", id: typeof id === "string" ? Number(id) : id, error: { code, message } })

/**
 * Keys that reach an object's prototype when code copies or merges one: no MCP message has such a
 * field, so a message carrying one is refused before any schema or handler sees it.
 */
const PROTOTYPE_KEYS = new Set(["__proto__", "constructor", "prototype"])

/** Where the first of `PROTOTYPE_KEYS` is, at any depth of a JSON value (at most 16 levels: RequestBody). */
const prototypeKeyAt = (value: unknown, path = ""): string | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const isArray = Array.isArray(value)
  for (const [key, child] of Object.entries(value)) {
    const at = isArray ? `${path}[${key}]` : `${path === "" ? "" : `${path}.`}${quote(key)}`
    if (!isArray && PROTOTYPE_KEYS.has(key)) return at
    const found = prototypeKeyAt(child, at)
    if (found !== undefined) return found
  }
  return undefined
}

/** How much of an unknown tool's name an answer repeats: any real name fits. */
const MAX_ECHOED_TOOL_NAME = 64

/**
 * The 2025 revisions' code for a read of a resource the server has not; 2026-07-28 says -32602
 * (SEP-2164), as Effect's server answers it.
 */
const RESOURCE_NOT_FOUND = -32002

/** The refusal of a read of `uri`, a resource the server has not: its URI quoted, never a megabyte echoed back. */
const resourceNotFound = (uri: string, code: number) => ({ code, message: `Resource not found: ${quote(uri)}` })

/** The problem with a message's method and params, as a JSON-RPC error, if it has one. */
const problemOf = (message: unknown, method: string, params: unknown): { readonly code: number; readonly message: string } | undefined => {
  const decodeParams = paramsDecoders.get(method)
  if (decodeParams === undefined) return { code: -32601, message: `Method not found: ${method}` }
  // in the message as sent: decoding the envelope drops a `__proto__` key of params
  const prototypeKey = prototypeKeyAt(message)
  if (prototypeKey !== undefined) return { code: -32602, message: `Invalid params of ${method}: ${prototypeKey} is a key no message may carry` }
  // JSON-RPC's absent params are JSON's null, as the protocol reads them
  return Result.match(decodeParams(params ?? null, { reportInput: true }), {
    onFailure: (error) => ({ code: -32602, message: `Invalid params of ${method}: ${issuesOf(error)}` }),
    onSuccess: (decoded) =>
      method === "tools/call" && Predicate.hasProperty(decoded, "name") && typeof decoded.name === "string" && !isBookingTool(decoded.name)
        ? { code: -32602, message: `Unknown tool: ${quote(decoded.name, MAX_ECHOED_TOOL_NAME)}` }
        : undefined
  })
}

/**
 * The answer to a message the protocol must not see, if it is one: a batch (an array: MCP
 * 2025-06-18 removed them, and the protocol would run their calls all at once) or anything not a
 * JSON-RPC message is 400 `invalid_request`; a request for a method MCP has not, with params its
 * method does not take or that carry a prototype's key, or for a tool the server has not, is a
 * JSON-RPC error under the request's id; a notification of any of these is accepted and ignored,
 * as JSON-RPC answers no notification.
 */
const refusal = (message: unknown): HttpServerResponse.HttpServerResponse | undefined => {
  if (Array.isArray(message)) return invalidRequest("MCP 2025-06-18 removed JSON-RPC batches (an array body)")
  const envelope = decodeEnvelope(message, { reportInput: true })
  if (Result.isFailure(envelope)) return invalidRequest(issuesOf(envelope.failure))
  const { id, method, params } = envelope.success
  const problem = problemOf(message, method, params)
  if (problem === undefined) return undefined
  return id === undefined ? HttpServerResponse.empty({ status: 202 }) : rpcError(id, problem.code, problem.message)
}

/**
 * The answer to a 2026-07-28 message Effect's server must not see, if it is one: a request whose
 * params carry a prototype's key, as in the 2025 revisions (`refusal`); the rest of the envelope
 * is that server's to check.
 */
const modernRefusal = (message: unknown): HttpServerResponse.HttpServerResponse | undefined => {
  const prototypeKey = prototypeKeyAt(message)
  if (prototypeKey === undefined) return undefined
  if (!Predicate.hasProperty(message, "id")) return HttpServerResponse.empty({ status: 202 })
  const method = Predicate.hasProperty(message, "method") && typeof message.method === "string" ? quote(message.method) : "a message"
  return modernRpcError(message.id, -32602, `Invalid params of ${method}: ${prototypeKey} is a key no message may carry`)
}

// --- the answers, checked before they are written -----------------------------------------

/**
 * JSON-RPC's codes of a request refused for what it says, and MCP's for a resource it names that
 * the server has not; their message tells the client what to fix.
 */
const REFUSAL_CODES = new Set([-32700, -32600, -32601, -32602, RESOURCE_NOT_FOUND])

/** The longest message of a refusal: enough to name the field, never a request echoed back. */
const MAX_REFUSAL_MESSAGE = 300

/** Our fault, whatever it was (logged where it happened): JSON-RPC's internal error, with no internals. */
const INTERNAL_ERROR = { code: -32603, message: "Internal error" }

interface JsonRpcAnswer {
  readonly jsonrpc: "2.0"
  readonly id?: number | string | null | undefined
  readonly error?: { readonly _tag?: "Cause" | "Defect"; readonly code: number; readonly message: string }
}

/** An error answer as a client may see it: `{code, message}`, no cause, no defect, no stack. */
const publicAnswer = (answer: JsonRpcAnswer): JsonRpcAnswer => {
  const { error } = answer
  if (error === undefined) return answer
  // the RPC layer puts -32603 in the id of a defect's answer: it belongs to no request
  if (error._tag === "Defect") return { jsonrpc: "2.0", id: null, error: INTERNAL_ERROR }
  return {
    jsonrpc: "2.0",
    id: answer.id,
    error: REFUSAL_CODES.has(error.code) ? { code: error.code, message: quote(error.message, MAX_REFUSAL_MESSAGE) } : INTERNAL_ERROR
  }
}

type ServerMessage = RpcMessage.FromServerEncoded

const failed = (message: ServerMessage) => message._tag === "Defect" || (message._tag === "Exit" && message.exit._tag === "Failure")

/** A request as the RPC layer reads it from the checked message, its id a number (`RequestId`). */
const asChecked = (message: unknown): unknown => {
  if (!Predicate.isTagged(message, "Request")) return message
  const request = message as RpcMessage.RequestEncoded
  return typeof request.id === "string" ? { ...request, id: Number(request.id) } : request
}

/**
 * JSON-RPC as the RPC layer reads and writes it (plain JSON-RPC: no method of its own), but an
 * error answer carries only its code and message: the layer would add the failure's whole cause
 * (`data`), a defect's message and stack included.
 */
const McpSerialization = RpcSerialization.RpcSerialization.of({
  ...serialization,
  makeUnsafe: () => {
    const parser = serialization.makeUnsafe()
    return {
      decode: (data) => parser.decode(data).map(asChecked),
      encode: (response) => {
        const messages = (Array.isArray(response) ? response : [response]) as ReadonlyArray<ServerMessage>
        const encoded = parser.encode(response)
        if (typeof encoded !== "string" || !messages.some(failed)) return encoded
        const answer: JsonRpcAnswer | ReadonlyArray<JsonRpcAnswer> = JSON.parse(encoded)
        return JSON.stringify(Array.isArray(answer) ? answer.map(publicAnswer) : publicAnswer(answer as JsonRpcAnswer))
      }
    }
  }
})

// --- HTTP -------------------------------------------------------------------------

/**
 * The MCP client names itself (`clientInfo`) only in its `initialize` request, and every later
 * request is a POST of its own. The name travels in the session id this server gives at
 * initialization (`Mcp-Session-Id`, which the client sends back on every request): its base64url
 * form, then a random part that makes each session's id unique. No state is kept, so any
 * instance serves any request. It carries no authority: what it says is trusted as an
 * `X-AI-Agent` header is, for usage measurement only.
 */
const SESSION_HEADER = "mcp-session-id"

/**
 * The mark before the session id of a client that declared MCP Apps at initialization
 * (`OffersApp.ts`): only `initialize` carries a client's capabilities, and its tools/list differs.
 */
const APPS_MARK = "ui."

const sessionIdFor = (agent: string, apps: boolean) =>
  `${apps ? APPS_MARK : ""}${Buffer.from(agent, "utf8").toString("base64url")}.${randomBytes(16).toString("base64url")}`

const appsOfSession = (sessionId: string) => sessionId.startsWith(APPS_MARK)

const decodeAnalytics = Schema.decodeUnknownOption(AnalyticsHeaders)

/** An agent's label, if it is one an `X-AI-Agent` header could carry. */
const agentLabel = (label: string): Option.Option<string> =>
  Option.flatMap(decodeAnalytics({ "x-ai-agent": label }), (headers) => Option.fromNullishOr(headers["x-ai-agent"]))

/** The longest session id this server gives: an agent label of 200 characters of 4 UTF-8 bytes, base64url, a dot, 22 random characters. */
const MAX_SESSION_ID_LENGTH = 1100

const agentOfSession = (sessionId: string): Option.Option<string> => {
  const unmarked = appsOfSession(sessionId) ? sessionId.slice(APPS_MARK.length) : sessionId
  const dot = unmarked.lastIndexOf(".")
  return dot <= 0 || sessionId.length > MAX_SESSION_ID_LENGTH
    ? Option.none()
    : agentLabel(Buffer.from(unmarked.slice(0, dot), "base64url").toString("utf8"))
}

const InitializeRequest = Schema.Struct({
  method: Schema.Literal("initialize"),
  params: Schema.Struct({ clientInfo: Schema.Struct({ name: Schema.String, version: Schema.String }) })
})
const decodeInitialize = Schema.decodeUnknownOption(InitializeRequest)

/** The client's `name/version`, when the message is its `initialize`. */
const initializingAgent = (message: unknown) =>
  Option.flatMap(decodeInitialize(message), ({ params: { clientInfo } }) => agentLabel(`${clientInfo.name}/${clientInfo.version}`))

/** Whether the message is an `initialize` whose client declares MCP Apps. */
const initializingApps = (message: unknown) =>
  Predicate.hasProperty(message, "method") && message.method === "initialize" && Predicate.hasProperty(message, "params") &&
  Predicate.hasProperty(message.params, "capabilities") && declaresApps(message.params.capabilities)

type HttpEffect = Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Scope.Scope>

const ToolCall = Schema.Struct({ method: Schema.Literal("tools/call"), params: Schema.Struct({ name: Schema.String }) })
const decodeToolCall = Schema.decodeUnknownOption(ToolCall)

/** The name of the tool a message calls: a booking tool's, or one this server has not. */
const toolCallOf = (message: unknown): Option.Option<string> => Option.map(decodeToolCall(message), ({ params: { name } }) => name)

/** A request to `/mcp`, as the rate limit counts it: any message costs it. */
const MESSAGE_COST = endpointCost({ method: "POST", path: MCP_PATH })

/**
 * What a message costs in the rate limit: a call of a tool what its REST twin costs (a
 * `price_calendar` a calendar's), anything else a request to `/mcp`.
 */
const costOf = (message: Option.Option<unknown>): number =>
  Option.match(Option.flatMap(message, toolCallOf), {
    onNone: () => MESSAGE_COST,
    onSome: (name) => isBookingTool(name) ? endpointCost(REST_TWINS[name]) : MESSAGE_COST
  })

type RateLimit = Effect.Success<typeof makeRateLimit>

/**
 * A 2026-07-28 error as `publicAnswer` bounds a 2025 one: its message quoted, its data only when
 * short. Effect's server repeats what was sent (an unknown method or prompt, a URI) whole.
 */
const boundedError = (error: unknown): unknown => {
  if (!Predicate.hasProperty(error, "message") || typeof error.message !== "string") return error
  const { data, ...rest } = error as { readonly data?: unknown }
  const short = data === undefined || JSON.stringify(data).length <= MAX_REFUSAL_MESSAGE
  return { ...rest, message: quote(error.message, MAX_REFUSAL_MESSAGE), ...(short && data !== undefined ? { data } : {}) }
}

/**
 * Effect's server's answer to a 2026-07-28 message, where ours differs: a read of the hotel's
 * facts kept `FACTS_TTL`; an unknown tool or resource refused with the words (and the bounded
 * echo) of the 2025 revisions' refusal, not the whole name or URI sent, twice; any other error
 * bounded (`boundedError`). A booking tool's answer is its result, left as it is.
 */
const modernAnswer = (modern: HttpEffect, message: unknown): HttpEffect => {
  const read = resourceReadOf(message)
  if (Option.exists(read, isFactsResource)) return Effect.map(modern, (response) => rewriteAnswer(response, withFactsTtl))
  const tool = toolCallOf(message)
  if (Option.exists(tool, isBookingTool)) return modern
  const refusal = Option.isSome(tool)
    ? { code: -32602, message: `Unknown tool: ${quote(tool.value, MAX_ECHOED_TOOL_NAME)}` }
    : Option.getOrUndefined(Option.map(read, (uri) => resourceNotFound(uri, -32602)))
  return Effect.map(modern, (response) =>
    rewriteAnswer(response, (answer) => {
      if (answer.error === undefined) return answer
      const refused = refusal !== undefined && Predicate.hasProperty(answer.error, "code") && answer.error.code === refusal.code
      return { ...answer, error: refused ? refusal : boundedError(answer.error) }
    }))
}

/**
 * The answer of the message's era (`isModernMessage`), with the caller in its context and, in the
 * 2025 revisions, a session id given at initialization, once the message's cost beyond the
 * request's fits in the rate limit. The agent is named by the client's information: in `_meta` of
 * each 2026-07-28 request, in `initialize` (then the session id) of the 2025 revisions.
 */
const withCaller = (
  legacy: HttpEffect,
  modern: (apps: boolean) => HttpEffect,
  rateLimit: RateLimit,
  addressOf: (request: HttpServerRequest.HttpServerRequest) => string
): HttpEffect =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    // an unreadable body is answered by the protocol, which reads it again (it is read once)
    const message = yield* Effect.option(request.json)
    const isModern = isModernMessage(request.headers, Option.getOrUndefined(message))
    const refused = Option.flatMapNullishOr(message, isModern ? modernRefusal : refusal)
    if (Option.isSome(refused)) return refused.value
    const headers = Option.getOrElse(decodeAnalytics(request.headers), () => ({} as AnalyticsHeaders))
    const sessionId = isModern ? undefined : request.headers[SESSION_HEADER]
    const initializing = !isModern && sessionId === undefined ? Option.flatMap(message, initializingAgent) : Option.none()
    const agent = isModern
      ? Option.flatMap(Option.flatMap(message, modernAgent), agentLabel)
      : sessionId === undefined
      ? initializing
      : agentOfSession(sessionId)
    const caller: ClientInfo = { ...clientInfo(headers), ai_agent: Option.getOrElse(agent, () => headers["x-ai-agent"] ?? null) }
    // a 2026-07-28 request declares its capabilities itself; a 2025 one did at `initialize`
    const apps = isModern ? Option.exists(message, (sent) => declaresApps(modernCapabilities(sent))) : sessionId !== undefined && appsOfSession(sessionId)
    const protocol = isModern ? modernAnswer(modern(apps), Option.getOrUndefined(message)) : legacy
    const appsDeclared = !isModern && sessionId === undefined && Option.exists(message, initializingApps)
    const response = yield* rateLimit.beyondRoute(
      Effect.provideService(protocol, McpCaller, { info: caller, address: addressOf(request), apps }),
      request,
      MCP_PATH,
      costOf(message)
    )
    return Option.isNone(initializing) && !appsDeclared
      ? response
      : HttpServerResponse.setHeader(response, SESSION_HEADER, sessionIdFor(Option.getOrElse(initializing, () => ""), appsDeclared))
  })

const noStream: ErrorBody = {
  error: {
    code: "method_not_allowed",
    message: `${MCP_PATH} takes POST only (MCP Streamable HTTP transport, JSON responses): no server-sent event stream, no session to delete`
  }
}
const methodNotAllowed = HttpServerResponse.jsonUnsafe(noStream, { status: 405, headers: { allow: "POST" } })

/**
 * A browser says which page calls in `Origin`; the transport requires checking it, so that no web
 * page (or a DNS-rebound name) reaches the server through a visitor's browser. Only the origin of
 * `PUBLIC_BASE_URL` and `MCP_ALLOWED_ORIGINS` are served; a request without `Origin` comes from a
 * program, not a page, and is served.
 */
const fromAllowedOrigins = (allowed: ReadonlySet<string>, refused: HttpServerResponse.HttpServerResponse) =>
<E, R>(answer: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const origin = request.headers["origin"]
    return origin === undefined || allowed.has(origin) ? answer : Effect.succeed(refused)
  })

/** The answer to a web page of another origin, with the status its body declares. */
const originRefused = errorResponse([ForbiddenOriginBody])(
  new ForbiddenOrigin({
    message: `a web page of this origin may not call ${MCP_PATH}: only the service's own origin and MCP_ALLOWED_ORIGINS may`
  })
).pipe(Effect.flatMap((response) => Effect.fromOption(response)), Effect.orDie)

/**
 * The MCP server at `/mcp` of the API's router: POST is the protocol, GET and DELETE are 405.
 * Needs the router and the services.
 */
export const McpHttp = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const { mcpAllowedOrigins, publicBaseUrl, trustedProxies } = yield* AppConfig
    const allowedOrigins = [new URL(publicBaseUrl).origin, ...mcpAllowedOrigins]
    const guarded = fromAllowedOrigins(new Set(allowedOrigins), yield* originRefused)
    const legacy = yield* RpcServer.toHttpEffect(McpRpcs, { spanPrefix: "McpServer", disableFatalDefects: true })
    // its router has only `/mcp`, which is all it is asked: no request to it fails to find its route
    const modern = Effect.orDie(yield* makeModernEra(allowedOrigins, false))
    // a request that declares MCP Apps is served by a server of its own, whose lists name the offers app
    const modernApps = Effect.orDie(yield* makeModernEra(allowedOrigins, true))
    const modernFor = (apps: boolean) => apps ? modernApps : modern
    yield* router.add("POST", MCP_PATH, guarded(withCaller(legacy, modernFor, yield* makeRateLimit, clientAddress(trustedProxies))))
    yield* router.add("GET", MCP_PATH, guarded(Effect.succeed(methodNotAllowed)))
    yield* router.add("DELETE", MCP_PATH, guarded(Effect.succeed(methodNotAllowed)))
  })
).pipe(
  Layer.provide(McpRpcHandlers),
  Layer.provide(McpHandlers.layer),
  Layer.provide(Layer.succeed(RpcSerialization.RpcSerialization, McpSerialization))
)
