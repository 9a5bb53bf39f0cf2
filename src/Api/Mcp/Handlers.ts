/**
 * What each MCP tool and resource does: one call of the service the REST handler calls, with the
 * MCP client as its caller; a failure answered as REST answers it, with the `Error` body.
 */
import { McpSchema, type Tool } from "effect/ai"
import { Cause, Context, Effect, Layer, Option, Record, Schema, Stream, Struct } from "effect"
import { invalidRequest, ValidationError } from "../../Domain/Errors.js"
import { Hotel } from "../../Domain/Hotel.js"
import type { ClientInfo } from "../../Domain/Quote.js"
import { DatabaseOutage } from "../../Services/DatabaseOutage.js"
import { HotelCatalog, memoized } from "../../Services/HotelCatalog.js"
import { Inventory } from "../../Services/Inventory.js"
import { PriceCalendar } from "../../Services/PriceCalendar.js"
import { Quotes } from "../../Services/Quotes.js"
import { Reservations } from "../../Services/Reservations.js"
import { agentRules } from "../Handlers/AgentRules.js"
import {
  describeIssues,
  type ErrorBody
} from "../Contract/Errors.js"
import { everyErrorBody } from "../Contract/ErrorBodies.js"
import { offersAppDocument, OffersAppResource } from "./OffersApp.js"
import { BookingTools, type BookingToolName, Resources } from "./Tools.js"

/**
 * Who calls: the MCP client's name and version (recorded as `X-AI-Agent`), and the analytics
 * headers of the HTTP request (`info`); the client address the limits count it by, as REST's
 * (`address`); whether it declared MCP Apps (`apps`: `OffersApp.ts`). Set by the transport for each
 * request to `/mcp`; the handlers run with its context.
 */
export const McpCaller = Context.Reference<{ readonly info: ClientInfo; readonly address: string; readonly apps: boolean }>("McpCaller", {
  defaultValue: () => ({ info: { client: null, ai_agent: null, session: null }, address: "unknown", apps: false })
})

// --- tools -------------------------------------------------------------------

/** Each tool is one call of the service the REST handler calls, with the caller as its client. */
export const BookingToolHandlers = BookingTools.toLayer(Effect.gen(function*() {
  const catalog = yield* HotelCatalog
  const inventory = yield* Inventory
  const calendar = yield* PriceCalendar
  const quotes = yield* Quotes
  const reservations = yield* Reservations
  return BookingTools.of({
    get_hotel: () => catalog.hotel(),
    list_room_types: () => catalog.roomTypes(),
    check_availability: (params) => inventory.availability(params),
    price_calendar: (params) => calendar.calendar(params),
    quote_stay: (params) => Effect.flatMap(McpCaller, (caller) => quotes.quoteRooms(params, caller.info)),
    create_reservation_intent: ({ idempotency_key, ...request }) =>
      Effect.flatMap(McpCaller, (caller) => reservations.createIntent(request, caller.info, idempotency_key, caller.address)).pipe(
        Effect.map(({ response }) => response)
      )
  })
}))

const ToolErrorBody = Schema.Union(everyErrorBody)
const encodeToolError = Schema.encodeUnknownEffect(ToolErrorBody)

/**
 * Our fault, not the caller's (a defect, a result that does not encode): logged, and left to the
 * protocol, whose answer is JSON-RPC's internal error with no internals (`Transport.ts`).
 */
const ourFault = (fault: unknown) => Effect.logError("unexpected fault in an MCP tool", Cause.die(fault)).pipe(Effect.andThen(Effect.die(fault)))

/** A domain error with its `Error` body, as REST answers it; anything else is our fault. */
const toErrorBody = (error: unknown): Effect.Effect<ErrorBody> =>
  encodeToolError(error).pipe(Effect.catch(() => ourFault(error)))

/** Parameters that break their schema, as REST answers them: 400 `invalid_request` naming the field. */
const invalidParameters = (error: Schema.SchemaError) =>
  invalidRequest(describeIssues(error.issue) ?? error.message)

/** Each tool's parameters decoded as REST decodes a body: a key the schema has not is refused, not dropped. Made once. */
const parameterDecoders = Record.map(BookingTools.tools, (tool) => Schema.decodeUnknownEffect(tool.parametersSchema))
const AS_REST_DECODES = { onExcessProperty: "error", reportInput: true } as const
const decodeParameters = (name: BookingToolName, args: unknown): Effect.Effect<unknown, ValidationError> =>
  parameterDecoders[name](args, AS_REST_DECODES).pipe(Effect.mapError(invalidParameters))

const toolResult = (isError: boolean, body: unknown) =>
  new McpSchema.CallToolResult({
    isError,
    structuredContent: body,
    content: [{ type: "text", text: JSON.stringify(body) }]
  })

// --- resources -----------------------------------------------------------------

const HotelPolicies = Hotel.mapFields(
  Struct.pick(["name", "timezone", "currency", "check_in", "check_out", "policies", "tourist_tax", "contact"])
)
const encodePolicies = Schema.encodeEffect(HotelPolicies)

/** The agent rules as Markdown, made once per hotel definition, as Discovery makes the index's agent_rules. */
const agentRulesMarkdown = memoized((hotel) => agentRules(hotel).map((rule) => `- ${rule}`).join("\n") + "\n")

// --- the handlers, as the transport calls them -----------------------------------

/**
 * The booking tools and the resources, as the MCP transport calls them. A tool's failure is an
 * answer of the tool (`isError`) carrying the REST API's `Error` body, `{error: {code, message,
 * details?}}`, as structured content and as text; a resource's failure is the protocol's internal
 * error, which shows nothing of it: the log does.
 */
export class McpHandlers extends Context.Service<McpHandlers, {
  readonly callTool: (name: BookingToolName, args: unknown) => Effect.Effect<McpSchema.CallToolResult>
  /** None for a URI that names no resource. */
  readonly readResource: (uri: string) => Option.Option<Effect.Effect<McpSchema.ReadResourceResult, McpSchema.InternalError>>
}>()("McpHandlers") {
  static readonly layer = Layer.effect(
    McpHandlers,
    Effect.gen(function*() {
      const toolkit = yield* BookingTools
      const outage = yield* DatabaseOutage
      const catalog = yield* HotelCatalog
      const offersApp = yield* offersAppDocument

      // the database failing under a tool is `unavailable`, as REST answers it, not an internal error
      const defectBody = (defect: unknown) =>
        Effect.flatMap(outage.unavailable(defect), Option.match({ onNone: () => ourFault(defect), onSome: toErrorBody }))

      const callTool = (name: BookingToolName, args: unknown) =>
        Effect.gen(function*() {
          yield* decodeParameters(name, args)
          // checked above; the toolkit decodes them again for its handler
          const results = yield* toolkit.handle(name, args as Tool.ParametersEncoded<(typeof BookingTools.tools)[typeof name]>)
          const last = yield* Stream.runLast(results)
          if (Option.isNone(last)) return yield* Effect.die(new Error(`the tool ${name} answered nothing`))
          return toolResult(false, last.value.encodedResult)
        }).pipe(
          // defects first: our fault, once found, stays a defect
          Effect.catchDefect((defect) => Effect.map(defectBody(defect), (body) => toolResult(true, body))),
          Effect.catch((error) => Effect.map(toErrorBody(error), (body) => toolResult(true, body)))
        )

      /** A resource's text; `typed`, its type and metadata where its reader needs them. */
      const text = (uri: string, content: Effect.Effect<string, unknown>, typed: Pick<McpSchema.Resource, "mimeType" | "_meta"> = {}) =>
        content.pipe(
          Effect.map((text): McpSchema.ReadResourceResult => ({ contents: [{ uri, ...typed, text }] })),
          Effect.tapCause((cause) => Effect.logError("unexpected fault in an MCP resource", cause)),
          Effect.catchCause(() => Effect.fail(new McpSchema.InternalError({ message: "Internal error" })))
        )

      const contents: Record<string, Effect.Effect<McpSchema.ReadResourceResult, McpSchema.InternalError>> = {
        [Resources.policies.uri]: text(
          Resources.policies.uri,
          Effect.map(Effect.flatMap(catalog.hotel(), encodePolicies), (policies) => JSON.stringify(policies, null, 2))
        ),
        [Resources.agentRules.uri]: text(Resources.agentRules.uri, Effect.map(catalog.definition(), agentRulesMarkdown)),
        [OffersAppResource.uri]: text(
          OffersAppResource.uri,
          Effect.flatMap(Effect.all({ en: catalog.roomTypes("en"), fr: catalog.roomTypes("fr"), ru: catalog.roomTypes("ru") }), offersApp),
          { mimeType: OffersAppResource.mimeType, _meta: OffersAppResource._meta }
        )
      }

      return McpHandlers.of({
        callTool,
        readResource: (uri) => Option.fromNullishOr(Object.hasOwn(contents, uri) ? contents[uri] : undefined)
      })
    })
  ).pipe(Layer.provide(BookingToolHandlers))
}
