/**
 * What the MCP server at `/mcp` offers AI agents: the booking flow's tools, with the REST API's
 * schemas as parameters and results and the rules that apply to each in its description, and the
 * resources (the hotel's policies, the agent rules). Their handlers are in `Handlers.ts`, the
 * endpoint in `Transport.ts`.
 */
import { McpSchema, Tool, Toolkit } from "effect/ai"
import { Context, Schema } from "effect"
import { Availability, AvailabilityParams } from "../../Domain/Availability.js"
import {
  GroupBookingRequired,
  IdempotencyInProgress,
  IdempotencyKeyReused,
  InvalidPromoCode,
  NotFound,
  QuoteExpired,
  QuoteNotReservable,
  RateLimited,
  ServiceUnavailable,
  ValidationError
} from "../../Domain/Errors.js"
import { Hotel, RoomTypes } from "../../Domain/Hotel.js"
import { IDEMPOTENCY_KEY_HOURS } from "../../Domain/Lifetimes.js"
import { CalendarParams, MAX_CALENDAR_DATES, PriceCalendar } from "../../Domain/PriceCalendar.js"
import { MultiRoomQuoteRequest, MultiRoomQuoteResponse } from "../../Domain/Quote.js"
import { IntentRequest, IntentResponse } from "../../Domain/Reservation.js"
import { RULES } from "../Handlers/AgentRules.js"
import { CalendarGroup } from "../Contract/Calendar.js"
import { HotelGroup } from "../Contract/Hotel.js"
import { QuotesGroup } from "../Contract/Quotes.js"
import { ReservationsGroup } from "../Contract/Reservations.js"
import { IdempotencyKey } from "../Contract/RequestHeaders.js"

// --- tools -------------------------------------------------------------------

/** What a tool is made of, as `Tool.make` types it. */
interface ToolConfig {
  readonly parameters: Schema.Constraint
  readonly success: Schema.Constraint
  readonly failure: Schema.Constraint
  readonly failureMode: Tool.FailureMode
}

/**
 * The hints a client shows its user before a call. No tool destroys anything or reaches beyond the
 * hotel; one that `reads` changes nothing and may be repeated, one that `creates` makes a new
 * record (a quote, a reservation) at each call.
 */
const withHints = <Name extends string, Config extends ToolConfig, R>(
  tool: Tool.Tool<Name, Config, R>,
  title: string,
  effect: "reads" | "creates"
): Tool.Tool<Name, Config, R> =>
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
    parameters: AvailabilityParams,
    success: Availability,
    failure: ValidationError
  }),
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
    parameters: CalendarParams,
    success: PriceCalendar,
    failure: Schema.Union([ValidationError, InvalidPromoCode, ServiceUnavailable])
  }),
  "Lowest prices per arrival date",
  "reads"
)

const QuoteStay = withHints(
  Tool.make("quote_stay", {
    description: "The official live quote for one or many rooms, as POST /v1/quotes: package_offers priced for all rooms " +
      "together, each with its package_code and price.total (the official total), and the quote's expires_at. " +
      "status unavailable lists in unavailable_rooms which room request cannot be served and why. " +
      `${RULES.unavailable} ${RULES.prices} ${RULES.hotelSystems} ${RULES.occupancy} ${RULES.infant} ${RULES.touristTax} ${RULES.quoteExpiry} ${RULES.groupBooking} ${RULES.promoCodes} ${RULES.dates}`,
    parameters: MultiRoomQuoteRequest,
    success: MultiRoomQuoteResponse,
    failure: Schema.Union([ValidationError, InvalidPromoCode])
  }),
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
    parameters: Schema.Struct({ ...IntentRequest.fields, idempotency_key: Schema.optionalKey(IdempotencyKey) }),
    success: IntentResponse,
    failure: Schema.Union([
      NotFound,
      QuoteExpired,
      QuoteNotReservable,
      GroupBookingRequired,
      IdempotencyKeyReused,
      IdempotencyInProgress,
      RateLimited,
      ValidationError
    ])
  }),
  "Create a reservation intent (guest completes it at continue_url)",
  "creates"
)

/** The booking flow's tools, in the order an agent uses them. */
export const BookingTools = Toolkit.make(GetHotel, ListRoomTypes, PriceCalendarTool, CheckAvailability, QuoteStay, CreateReservationIntent)

/** The name of one of the booking tools. */
export type BookingToolName = keyof typeof BookingTools.tools

/** Whether `name` names one of the booking tools. */
export const isBookingTool = (name: string): name is BookingToolName => Object.hasOwn(BookingTools.tools, name)

/**
 * The REST endpoint each tool does the work of (docs/agents.md): a tool call costs what
 * a request to it costs in the rate limit (`endpointCost`), so `/mcp` is no cheaper way to the same work.
 */
export const REST_TWINS: { readonly [Name in BookingToolName]: { readonly method: string; readonly path: string } } = {
  get_hotel: HotelGroup.endpoints.hotel,
  list_room_types: HotelGroup.endpoints.roomTypes,
  price_calendar: CalendarGroup.endpoints.calendar,
  check_availability: HotelGroup.endpoints.availability,
  quote_stay: QuotesGroup.endpoints.quoteRooms,
  create_reservation_intent: ReservationsGroup.endpoints.createIntent
}

/** The keys of a JSON Schema that describe a value without constraining it. */
const ANNOTATION_KEYS = new Set(["title", "description", "examples", "default"])

/**
 * A JSON Schema with each `allOf` part folded into the schema it refines, where they say nothing
 * contradictory: the schema of a checked and annotated value (`LocalDate`: a string, with its
 * `format` and description on its check, and a field's own description on its key) comes as one
 * object, as every client reads it, and the last description, the field's own, is the one kept.
 */
const foldAllOf = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(foldAllOf)
  if (typeof node !== "object" || node === null) return node
  const { allOf, ...rest } = node as Record<string, unknown>
  const folded: Record<string, unknown> = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, foldAllOf(value)]))
  if (!Array.isArray(allOf)) return folded
  const kept: Array<unknown> = []
  for (const part of allOf.map(foldAllOf)) {
    const foldable = typeof part === "object" && part !== null && !Array.isArray(part) &&
      Object.keys(part).every((key) => ANNOTATION_KEYS.has(key) || !(key in folded))
    if (foldable) Object.assign(folded, part)
    else kept.push(part)
  }
  return kept.length === 0 ? folded : { ...folded, allOf: kept }
}

/**
 * A tool's parameters as JSON Schema: an object at the root, as MCP wants it, with its properties
 * and required ones listed even when there are none, and every definition inlined (an agent reads
 * one schema better than a web of references).
 */
const inputSchema = (tool: Tool.Any): McpSchema.ToolJson => {
  const { definitions, schema } = Schema.toJsonSchemaDocument(tool.parametersSchema, {
    onExcessProperty: "error",
    referencePolicy: () => undefined
  })
  // a recursive schema would keep its references, in `$defs`
  const root = { type: "object", properties: {}, required: [], ...(foldAllOf(schema) as object) }
  return (Object.keys(definitions).length === 0 ? root : { ...root, $defs: foldAllOf(definitions) }) as McpSchema.ToolJson
}

/** Each tool as `tools/list` describes it: its name, title, description, parameters and hints. */
export const toolDescriptors: ReadonlyArray<McpSchema.Tool> = Object.values(BookingTools.tools).map((tool: Tool.Any) => {
  const title = Context.getOrUndefined(tool.annotations, Tool.Title)
  return new McpSchema.Tool({
    name: tool.name,
    title,
    description: Tool.getDescription(tool),
    inputSchema: inputSchema(tool),
    annotations: {
      title,
      readOnlyHint: Context.get(tool.annotations, Tool.Readonly),
      destructiveHint: Context.get(tool.annotations, Tool.Destructive),
      idempotentHint: Context.get(tool.annotations, Tool.Idempotent),
      openWorldHint: Context.get(tool.annotations, Tool.OpenWorld)
    }
  })
})

// --- resources -----------------------------------------------------------------

/** The resources, as `resources/list` describes them; what each says is its handler's (`Handlers.ts`). */
export const Resources = {
  policies: new McpSchema.Resource({
    uri: "hotel://policies",
    name: "Hotel policies",
    description: "Check-in and check-out times, cancellation, payment and the other policies, the tourist tax and the contact (JSON).",
    mimeType: "application/json",
    annotations: {}
  }),
  agentRules: new McpSchema.Resource({
    uri: "hotel://agent-rules",
    name: "Agent rules",
    description: "The business rules and the booking flow every agent must follow (the agent_rules of GET /v1).",
    mimeType: "text/markdown",
    annotations: {}
  })
} as const
