/**
 * The booking flow for AI agents: an MCP server (Model Context Protocol, Streamable HTTP transport)
 * at `/mcp`, in the same HTTP application as the REST API, so the body limit, the rate limiter and
 * the error bodies are the same. Its tools are thin calls of the services the REST handlers call,
 * with the REST API's schemas as parameters and results; its resources are the hotel's policies
 * and the agent rules.
 */
import * as AiError from "@effect/ai/AiError"
import * as McpSchema from "@effect/ai/McpSchema"
import * as McpServer from "@effect/ai/McpServer"
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import { Cause, Context, Effect, JSONSchema, Layer, Option, ParseResult, Schema, type Scope } from "effect"
import type * as SchemaAST from "effect/SchemaAST"
import { randomBytes } from "node:crypto"
import { Availability, AvailabilityParams } from "../../Domain/Availability.js"
import {
  GroupBookingRequired,
  IdempotencyInProgress,
  IdempotencyKeyReused,
  InvalidPromoCode,
  NotFound,
  QuoteExpired,
  QuoteNotReservable,
  ServiceUnavailable,
  ValidationError
} from "../../Domain/Errors.js"
import { Hotel, RoomTypes } from "../../Domain/Hotel.js"
import { IDEMPOTENCY_KEY_HOURS } from "../../Domain/Lifetimes.js"
import { CalendarParams, MAX_CALENDAR_DATES, PriceCalendar } from "../../Domain/PriceCalendar.js"
import { type ClientInfo, MultiRoomQuoteRequest, MultiRoomQuoteResponse } from "../../Domain/Quote.js"
import { IntentRequest, IntentResponse } from "../../Domain/Reservation.js"
import { API_VERSION } from "../../Domain/Version.js"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import { DatabaseOutage } from "../../Services/DatabaseOutage.js"
import { HotelCatalog, memoized } from "../../Services/HotelCatalog.js"
import { Inventory } from "../../Services/Inventory.js"
import { PriceCalendar as PriceCalendarService } from "../../Services/PriceCalendar.js"
import { Quotes } from "../../Services/Quotes.js"
import { Reservations } from "../../Services/Reservations.js"
import { agentRules, RULES } from "../Handlers/AgentRules.js"
import { MCP_NAME, MCP_PATH } from "../Contract/Discovery.js"
import {
  describeIssues,
  type ErrorBody,
  GroupBookingRequiredBody,
  IdempotencyInProgressBody,
  IdempotencyKeyReusedBody,
  InvalidPromoCodeBody,
  NotFoundBody,
  QuoteExpiredBody,
  QuoteNotReservableBody,
  ServiceUnavailableBody,
  ValidationErrorBody
} from "../Contract/Errors.js"
import { jsonRpcWithoutInternals, refusal } from "./McpMessage.js"
import { AnalyticsHeaders, clientInfo, IdempotencyKey } from "../Contract/RequestHeaders.js"
import { ForbiddenOrigin, ForbiddenOriginBody } from "../Transport/TransportErrors.js"

// --- tools -------------------------------------------------------------------

/**
 * The hints a client shows its user before a call. No tool destroys anything or reaches beyond the
 * hotel; one that `reads` changes nothing and may be repeated, one that `creates` makes a new
 * record (a quote, a reservation) at each call.
 */
const withHints = <T extends { readonly annotate: <I, S>(tag: Context.Tag<I, S>, value: S) => T }>(
  tool: T,
  title: string,
  effect: "reads" | "creates"
): T =>
  tool
    .annotate(Tool.Title, title)
    .annotate(Tool.Readonly, effect === "reads")
    .annotate(Tool.Destructive, false)
    .annotate(Tool.Idempotent, effect === "reads")
    .annotate(Tool.OpenWorld, false)

const GetHotel = withHints(
  Tool.make("get_hotel", {
    description: "The hotel's facts, policies (cancellation, payment, check-in, check-out, …) and contact, as GET /v1/hotel. " +
      `${RULES.times} ${RULES.touristTax}`,
    success: Hotel
  }),
  "Hotel facts and policies",
  "reads"
)

const ListRoomTypes = withHints(
  Tool.make("list_room_types", {
    description: "The room types with their size, beds, view and occupancy rules, as GET /v1/room-types. " +
      `${RULES.occupancy} ${RULES.infant}`,
    success: RoomTypes
  }),
  "Room types and occupancy",
  "reads"
)

const CheckAvailability = withHints(
  Tool.make("check_availability", {
    description: "Live availability for a stay, as GET /v1/availability: per room type, the rooms free on every night and " +
      "whether the adults and children fit one room, and the reason a room type cannot be booked. Never a price: call " +
      `quote_stay for that. ${RULES.unavailable} ${RULES.hotelSystems} ${RULES.dates} ${RULES.occupancy}`,
    success: Availability,
    failure: ValidationError
  }).setParameters(AvailabilityParams),
  "Check availability",
  "reads"
)

const PriceCalendarTool = withHints(
  Tool.make("price_calendar", {
    description: "Which arrival dates are cheapest, as GET /v1/calendar: for each arrival date from from to to (at most " +
      `${MAX_CALENDAR_DATES}), the lowest total a quote would give now for one room of these guests and nights, with its ` +
      "room_type_id and package_code, or available false and why: past, beyond_booking_window, stay_too_long, " +
      "no_eligible_rate, or a quote's reason (below). children_ages is an array. " +
      `${RULES.calendar} ${RULES.unavailable} ${RULES.hotelSystems} ${RULES.occupancy} ${RULES.promoCodes} ${RULES.dates}`,
    success: PriceCalendar,
    failure: Schema.Union(ValidationError, InvalidPromoCode, ServiceUnavailable)
  }).setParameters(CalendarParams),
  "Lowest prices per arrival date",
  "reads"
)

const QuoteStay = withHints(
  Tool.make("quote_stay", {
    description: "The official live quote for one or many rooms, as POST /v1/quotes: package_offers priced for all rooms " +
      "together, each with its package_code and price.total (the official total), and the quote's expires_at. " +
      "status unavailable lists in unavailable_rooms which room request cannot be served and why. " +
      `${RULES.unavailable} ${RULES.prices} ${RULES.hotelSystems} ${RULES.occupancy} ${RULES.infant} ${RULES.touristTax} ${RULES.quoteExpiry} ${RULES.groupBooking} ${RULES.promoCodes} ${RULES.dates}`,
    success: MultiRoomQuoteResponse,
    failure: Schema.Union(ValidationError, InvalidPromoCode)
  }).setParameters(MultiRoomQuoteRequest),
  "Quote a stay",
  "creates"
)

const CreateReservationIntent = withHints(
  Tool.make("create_reservation_intent", {
    description: "Initiates a reservation from a package of a still-valid quote (quote_id and package_code from quote_stay), " +
      "as POST /v1/reservation-intents. It answers continue_url, the hotel's secure page where the guest reviews the " +
      "reservation, gives contact details and accepts the terms: the guest must open it, so present it to the user as a " +
      `clickable link. Pass an idempotency_key (any unique string, kept ${IDEMPOTENCY_KEY_HOURS} h): a retry with the same key and parameters ` +
      `answers the same reservation and continue_url instead of creating another. ${RULES.initiationOnly} ` +
      `${RULES.noDirectBooking} ${RULES.quoteExpiry} ${RULES.groupBooking}`,
    success: IntentResponse,
    failure: Schema.Union(
      NotFound,
      QuoteExpired,
      QuoteNotReservable,
      GroupBookingRequired,
      IdempotencyKeyReused,
      IdempotencyInProgress,
      ValidationError
    )
  }).setParameters(
    Schema.Struct({ ...IntentRequest.fields, idempotency_key: Schema.optional(IdempotencyKey) }).annotations({
      parseOptions: { onExcessProperty: "error" }
    })
  ),
  "Create a reservation intent (guest completes it at continue_url)",
  "creates"
)

/** The booking flow's tools, in the order an agent uses them. */
export const BookingTools = Toolkit.make(GetHotel, ListRoomTypes, PriceCalendarTool, CheckAvailability, QuoteStay, CreateReservationIntent)

/**
 * Who calls: the MCP client's name and version (recorded as `X-AI-Agent`), and the analytics
 * headers of the HTTP request. Set for each request to `/mcp`; the tool handlers run with its
 * context.
 */
export class McpCaller extends Context.Reference<McpCaller>()("McpCaller", {
  defaultValue: (): ClientInfo => ({ client: null, ai_agent: null, session: null })
}) {}

/** Each tool is one call of the service the REST handler calls, with the caller as its client. */
export const BookingToolHandlers = BookingTools.toLayer(Effect.gen(function*() {
  const catalog = yield* HotelCatalog
  const inventory = yield* Inventory
  const calendar = yield* PriceCalendarService
  const quotes = yield* Quotes
  const reservations = yield* Reservations
  return BookingTools.of({
    get_hotel: () => catalog.hotel(),
    list_room_types: () => catalog.roomTypes(),
    check_availability: (params) => inventory.availability(params),
    price_calendar: (params) => calendar.calendar(params),
    quote_stay: (params) => Effect.flatMap(McpCaller, (caller) => quotes.quoteRooms(params, caller)),
    create_reservation_intent: ({ idempotency_key, ...request }) =>
      Effect.flatMap(McpCaller, (caller) => reservations.createIntent(request, caller, idempotency_key)).pipe(
        Effect.map(({ response }) => response)
      )
  })
}))

// --- errors: the REST API's Error body, as a tool error -------------------------

const ToolErrorBody = Schema.Union(
  ValidationErrorBody,
  InvalidPromoCodeBody,
  NotFoundBody,
  QuoteExpiredBody,
  QuoteNotReservableBody,
  GroupBookingRequiredBody,
  IdempotencyKeyReusedBody,
  IdempotencyInProgressBody,
  ServiceUnavailableBody
)
const encodeToolError = Schema.encodeUnknown(ToolErrorBody)

/**
 * Our fault, not the caller's (a defect, a result that does not encode): logged, and left to the
 * protocol, whose answer is JSON-RPC's internal error with no internals (`jsonRpcWithoutInternals`).
 */
const ourFault = (fault: unknown) => Effect.logError("unexpected fault in an MCP tool", Cause.die(fault)).pipe(Effect.zipRight(Effect.die(fault)))

/**
 * A failed call as REST would answer it: a domain error with its `Error` body; parameters that
 * break their schema as 400 `invalid_request` naming the field; anything else is our fault.
 */
const toErrorBody = (error: unknown): Effect.Effect<ErrorBody> => {
  if (error instanceof AiError.MalformedOutput && ParseResult.isParseError(error.cause)) {
    const issues = ParseResult.ArrayFormatter.formatErrorSync(error.cause)
    return toErrorBody(new ValidationError({ code: "invalid_request", message: describeIssues(issues) ?? error.cause.message }))
  }
  return encodeToolError(error).pipe(Effect.catchAll(() => ourFault(error)))
}

const toolResult = (isError: boolean, body: unknown) =>
  new McpSchema.CallToolResult({
    isError,
    structuredContent: body,
    content: [{ type: "text", text: JSON.stringify(body) }]
  })

/** A tool's parameters as JSON Schema, as `@effect/ai` declares them (definitions inlined under `$defs`). */
const inputSchema = (ast: SchemaAST.AST): object => {
  const $defs: Record<string, JSONSchema.JsonSchema7> = {}
  const schema = JSONSchema.fromAST(ast, { definitions: $defs, topLevelReferenceStrategy: "skip" })
  return Object.keys($defs).length === 0 ? schema : { ...schema, $defs }
}

/**
 * Registers the toolkit as `McpServer.toolkit` does, but a failure is answered as a tool error
 * (`isError`) carrying the REST API's `Error` body, `{error: {code, message, details?}}`, as
 * structured content and as text: the library would answer a decoding failure of the parameters
 * in its own terms.
 */
const registerTools = Effect.gen(function*() {
  const server = yield* McpServer.McpServer
  const toolkit = yield* BookingTools
  const outage = yield* DatabaseOutage
  // the database failing under a tool is `unavailable`, as REST answers it, not an internal error
  const defectBody = (defect: unknown) =>
    Effect.flatMap(outage.unavailable(defect), Option.match({ onNone: () => ourFault(defect), onSome: toErrorBody }))
  for (const tool of Object.values(toolkit.tools) as ReadonlyArray<Tool.Any>) {
    const title = Option.getOrUndefined(Context.getOption(tool.annotations, Tool.Title))
    yield* server.addTool({
      tool: new McpSchema.Tool({
        name: tool.name,
        title,
        description: tool.description,
        inputSchema: inputSchema(tool.parametersSchema.ast),
        annotations: new McpSchema.ToolAnnotations({
          title,
          readOnlyHint: Context.get(tool.annotations, Tool.Readonly),
          destructiveHint: Context.get(tool.annotations, Tool.Destructive),
          idempotentHint: Context.get(tool.annotations, Tool.Idempotent),
          openWorldHint: Context.get(tool.annotations, Tool.OpenWorld)
        })
      }),
      handle: (payload) =>
        toolkit.handle(tool.name as keyof typeof toolkit.tools, payload as never).pipe(
          Effect.map(({ encodedResult }) => toolResult(false, encodedResult)),
          // defects first: our fault, once found, stays a defect
          Effect.catchAllDefect((defect) => Effect.map(defectBody(defect), (body) => toolResult(true, body))),
          Effect.catchAll((error) => Effect.map(toErrorBody(error), (body) => toolResult(true, body)))
        )
    })
  }
})

// --- resources -----------------------------------------------------------------

const HotelPolicies = Hotel.pipe(Schema.pick("name", "timezone", "currency", "check_in", "check_out", "policies", "tourist_tax", "contact"))
const encodePolicies = Schema.encode(HotelPolicies)

// the library answers any failure as an internal error, which shows nothing of it: the log does
const logFault = Effect.tapErrorCause((cause) => Effect.logError("unexpected fault in an MCP resource", cause))

const PoliciesResource = McpServer.resource({
  uri: "hotel://policies",
  name: "Hotel policies",
  description: "Check-in and check-out times, cancellation, payment and the other policies, the tourist tax and the contact (JSON).",
  mimeType: "application/json",
  content: Effect.gen(function*() {
    const catalog = yield* HotelCatalog
    const policies = yield* encodePolicies(yield* catalog.hotel())
    return JSON.stringify(policies, null, 2)
  }).pipe(logFault)
})

/** The agent rules as Markdown, made once per hotel definition, as Discovery makes the index's agent_rules. */
const agentRulesMarkdown = memoized((hotel) => agentRules(hotel).map((rule) => `- ${rule}`).join("\n") + "\n")

const AgentRulesResource = McpServer.resource({
  uri: "hotel://agent-rules",
  name: "Agent rules",
  description: "The business rules and the booking flow every agent must follow (the agent_rules of GET /v1).",
  mimeType: "text/markdown",
  content: Effect.gen(function*() {
    const catalog = yield* HotelCatalog
    return agentRulesMarkdown(yield* catalog.definition())
  }).pipe(logFault)
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

const sessionIdFor = (agent: string) => `${Buffer.from(agent, "utf8").toString("base64url")}.${randomBytes(16).toString("base64url")}`

const decodeAnalytics = Schema.decodeUnknownOption(AnalyticsHeaders)

/** An agent's label, if it is one an `X-AI-Agent` header could carry. */
const agentLabel = (label: string): Option.Option<string> =>
  Option.flatMap(decodeAnalytics({ "x-ai-agent": label }), (headers) => Option.fromNullable(headers["x-ai-agent"]))

/** The longest session id this server gives: an agent label of 200 characters of 4 UTF-8 bytes, base64url, a dot, 22 random characters. */
const MAX_SESSION_ID_LENGTH = 1100

const agentOfSession = (sessionId: string): Option.Option<string> => {
  const dot = sessionId.lastIndexOf(".")
  return dot <= 0 || sessionId.length > MAX_SESSION_ID_LENGTH
    ? Option.none()
    : agentLabel(Buffer.from(sessionId.slice(0, dot), "base64url").toString("utf8"))
}

const InitializeRequest = Schema.Struct({
  method: Schema.Literal("initialize"),
  params: Schema.Struct({ clientInfo: Schema.Struct({ name: Schema.String, version: Schema.String }) })
})
const decodeInitialize = Schema.decodeUnknownOption(InitializeRequest)

/** The client's `name/version`, when the message is its `initialize`. */
const initializingAgent = (message: unknown) =>
  Option.flatMap(decodeInitialize(message), ({ params: { clientInfo } }) => agentLabel(`${clientInfo.name}/${clientInfo.version}`))


const refuse = refusal(new Set(Object.keys(BookingTools.tools)))

/** The protocol's HTTP application, with the caller in its context and a session id given at initialization. */
const withCaller = (app: HttpApp.Default<never, Scope.Scope>): HttpApp.Default<never, Scope.Scope> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    // an unreadable body is answered by the protocol, which reads it again (it is read once)
    const message = yield* Effect.option(request.json)
    const refused = Option.flatMapNullable(message, refuse)
    if (Option.isSome(refused)) return refused.value
    const headers = Option.getOrElse(decodeAnalytics(request.headers), () => ({} as AnalyticsHeaders))
    const sessionId = request.headers[SESSION_HEADER]
    const initializing = sessionId === undefined ? Option.flatMap(message, initializingAgent) : Option.none()
    const agent = sessionId === undefined ? initializing : agentOfSession(sessionId)
    const caller: ClientInfo = { ...clientInfo(headers), ai_agent: Option.getOrElse(agent, () => headers["x-ai-agent"] ?? null) }
    const response = yield* Effect.provideService(app, McpCaller, caller)
    return Option.match(initializing, {
      onNone: () => response,
      onSome: (label) => HttpServerResponse.setHeader(response, SESSION_HEADER, sessionIdFor(label))
    })
  })

const noStream: ErrorBody = {
  error: {
    code: "method_not_allowed",
    message: `${MCP_PATH} takes POST only (MCP Streamable HTTP transport, JSON responses): no server-sent event stream, no session to delete`
  }
}
const methodNotAllowed = HttpServerResponse.json(noStream, { status: 405, headers: { allow: "POST" } })

const originRefused = HttpServerResponse.unsafeJson(
  Schema.encodeSync(ForbiddenOriginBody)(
    new ForbiddenOrigin({
      message: `a web page of this origin may not call ${MCP_PATH}: only the service's own origin and MCP_ALLOWED_ORIGINS may`
    })
  ),
  { status: HttpApiSchema.getStatusError(ForbiddenOriginBody) }
)

/**
 * A browser says which page calls in `Origin`; the transport requires checking it, so that no web
 * page (or a DNS-rebound name) reaches the server through a visitor's browser. Only the origin of
 * `PUBLIC_BASE_URL` and `MCP_ALLOWED_ORIGINS` are served; a request without `Origin` comes from a
 * program, not a page, and is served.
 */
const fromAllowedOrigins = (allowed: ReadonlySet<string>) =>
<E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const origin = request.headers["origin"]
    return origin === undefined || allowed.has(origin) ? app : Effect.succeed(originRefused)
  })

/**
 * The RPC protocol of the MCP server, served at `/mcp` by the API's own router: POST carries
 * JSON-RPC messages and is answered with JSON; GET (a server-sent event stream) and DELETE (end a
 * session) are 405, as the transport allows.
 */
const McpProtocol = Layer.effect(
  RpcServer.Protocol,
  Effect.gen(function*() {
    const router = yield* HttpApiBuilder.Router
    const { mcpAllowedOrigins, publicBaseUrl } = yield* AppConfig
    const guarded = fromAllowedOrigins(new Set([new URL(publicBaseUrl).origin, ...mcpAllowedOrigins]))
    const { httpApp, protocol } = yield* RpcServer.makeProtocolWithHttpApp
    yield* router.post(MCP_PATH, guarded(withCaller(httpApp)))
    yield* router.get(MCP_PATH, guarded(methodNotAllowed))
    yield* router.del(MCP_PATH, guarded(methodNotAllowed))
    return protocol
  })
).pipe(Layer.provide([
  Layer.succeed(RpcSerialization.RpcSerialization, jsonRpcWithoutInternals(RpcSerialization.jsonRpc())),
  HttpApiBuilder.Router.Live
]))

/** The MCP server at `/mcp` of the API's HTTP application. Needs the services. */
export const McpLive = Layer.mergeAll(
  Layer.effectDiscard(registerTools).pipe(Layer.provide(BookingToolHandlers)),
  PoliciesResource,
  AgentRulesResource
).pipe(
  Layer.provide(McpServer.layer({ name: MCP_NAME, version: API_VERSION })),
  Layer.provide(McpProtocol)
)
