import { Schema } from "effect"
import type { Hotel, RoomType } from "./Hotel.js"
import { QUOTE_EXPIRY_RULE } from "./Lifetimes.js"
import { describeReasons, UnavailabilityReason } from "./Quote.js"

export const API_VERSION = "1.1.0"
export const API_NAME = "Hôtel Belle Rive Booking API"
export const API_DESCRIPTION =
  "Public booking API of a single hotel: hotel facts, room types, live availability, a price calendar, live direct price quotes, " +
  "reservation intents and secure guest completion. No payment is required (reservation workflow v12)."

export const ApiRoot = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  description: Schema.String,
  documentation: Schema.String.annotations({ description: "URL of the human-readable API reference" }),
  openapi: Schema.String.annotations({ description: "URL of the OpenAPI 3.1 description" }),
  api_index: Schema.String.annotations({ description: "URL of the machine-readable index (GET /v1)" }),
  api_catalog: Schema.String.annotations({ description: "URL of the RFC 9727 API catalog" }),
  health: Schema.String.annotations({ description: "URL of the health check" }),
  mcp: Schema.String.annotations({ description: "URL of the MCP server for AI agents (Streamable HTTP transport)" }),
  llms_txt: Schema.String.annotations({ description: "URL of /llms.txt, a Markdown summary for language models" })
}).annotations({ identifier: "ApiRoot" })
export type ApiRoot = typeof ApiRoot.Type

export const EndpointSummary = Schema.Struct({
  method: Schema.String,
  path: Schema.String,
  purpose: Schema.String
}).annotations({ identifier: "EndpointSummary" })
export type EndpointSummary = typeof EndpointSummary.Type

export const DiscoveryIndex = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  description: Schema.String,
  documentation: Schema.String,
  openapi: Schema.String,
  endpoints: Schema.Array(EndpointSummary),
  agent_rules: Schema.Array(Schema.String),
  mcp: Schema.String.annotations({
    description: "URL of the MCP server: the same booking flow as tools for AI agents (Streamable HTTP transport)"
  }),
  llms_txt: Schema.String.annotations({ description: "URL of /llms.txt, a Markdown summary for language models" })
}).annotations({ identifier: "DiscoveryIndex" })
export type DiscoveryIndex = typeof DiscoveryIndex.Type

const Link = Schema.Struct({ href: Schema.String, type: Schema.optional(Schema.String), title: Schema.optional(Schema.String) })

/** RFC 9727 API catalog: an RFC 9264 linkset. */
export const ApiCatalog = Schema.Struct({
  linkset: Schema.Array(Schema.Struct({
    anchor: Schema.String,
    "service-desc": Schema.Array(Link),
    "service-doc": Schema.Array(Link),
    "service-meta": Schema.Array(Link),
    status: Schema.Array(Link)
  }))
}).annotations({ identifier: "ApiCatalog" })
export type ApiCatalog = typeof ApiCatalog.Type

/**
 * The business rules and client flow of the spec (§6 to §8), for AI agents and clients, by topic:
 * the MCP tools quote the ones that apply to them.
 */
export const RULES = {
  roomTypes: "Room types are double, twin and deluxe; the hotel's facts and policies are at GET /v1/hotel.",
  occupancy: "Maximum standard occupancy is 2 guests per room.",
  infant: "One infant under 2 may be added to a room beyond standard occupancy; a baby cot is free and on request.",
  times: "Check-in is from 14:00 and check-out is by 12:00; both are strict. Early arrival and late departure are separate requests, never included automatically.",
  prices: "Prices, promotions and tourist tax are dynamic. Take the official total only from a live quote's package_offers; never calculate, infer or cache it.",
  hotelSystems: "Rooms, restrictions (closed dates, minimum and maximum stays) and prices follow the hotel's own systems, " +
    "which sell on other channels too and may change them at any moment: every quote, availability and calendar answer is " +
    "live and holds no room, so quote again rather than reuse an earlier answer. Until the guest completes, a stay may stop " +
    "being bookable or change price: completion and change_stay then answer 409 availability_changed " +
    "(error.details.rooms[].reason) or 409 price_changed (error.details.new_total, which the guest may accept).",
  unavailable: "Why a stay cannot be booked, in a quote's unavailable_rooms[].reason, an availability room type's reason, a " +
    "calendar day's reason and a 409 availability_changed's error.details.rooms[].reason, the first that applies: " +
    `${describeReasons(UnavailabilityReason.literals)}. Restrictions are per room type and date: another room type may still ` +
    "be bookable; tell the user why and offer what the reason allows rather than the same stay.",
  touristTax: "Tourist tax depends on stay dates and guest ages and is computed by the quote engine.",
  calendar: "Use the calendar (GET /v1/calendar, MCP price_calendar) to choose dates, then quote: only a quote's total is official. " +
    "A day whose reason is min_stay can be had for longer: ask again with nights set to its min_stay.",
  flow: "Recommended flow: GET /v1/hotel, GET /v1/room-types, GET /v1/calendar to choose dates when they are open, POST /v1/quotes (also for one room), use package_offers as the authoritative total, then POST /v1/reservation-intents and present continue_url to the user as a clickable next step.",
  quoteExpiry: QUOTE_EXPIRY_RULE,
  groupBooking: "A quote with reservable false cannot be reserved online. When not_reservable.reason is group_booking (more rooms than one reservation may hold), give the user the hotel's contact from not_reservable.contact instead of creating an intent.",
  promoCodes: "A guest's promo code goes in promo_code of POST /v1/quote, POST /v1/quotes, quote_stay, GET /v1/calendar or price_calendar (case-insensitive): the best single promotion applies: a quote's promo_code.applied says whether an offer applies it, a calendar day's package_code names it where it applies. Unknown, inactive or used-up codes answer 400 invalid_promo_code with error.details.reason; never invent codes.",
  idempotency: "Send an Idempotency-Key with POST /v1/reservation-intents: a retry with the same key and body answers the same reservation and continue_url instead of creating another.",
  initiationOnly: "A reservation intent only initiates a reservation: it is not guest-completed until the guest finishes the secure form at continue_url and the API reports status GUEST_COMPLETED. Never present it as confirmed before that.",
  noDirectBooking: "The public API never creates reservations in the hotel's inventory system or PMS directly; no payment or payment guarantee is required.",
  stayChanges: "To change a completed reservation's dates or rooms, never cancel and book again: the guest's manage link (from the confirmation email) offers it, and with that link's token POST /v1/reservation-manage {action: quote_change, checkin, checkout, rooms} prices the new stay live on the same rate plan (the reservation's own rooms count as free) and answers new_total and difference; then {action: change_stay, …, expected_total: new_total} makes it in one step, keeping the reservation number and manage link. Fewer rooms cancel part of the stay. Possible while allowed_actions lists change_stay: a refundable rate, before the current stay's free-cancellation deadline; otherwise 409 change_not_allowed says why.",
  retries: "503 unavailable means the hotel's database did not answer in time and nothing was changed: wait error.details.retry_after_seconds (the Retry-After header) and repeat the same request, with the same Idempotency-Key for an intent; tell the user only if it keeps failing.",
  dates: "Dates are YYYY-MM-DD in the hotel's local time (Europe/Paris); every error has a stable error.code."
} as const

export const AGENT_RULES: ReadonlyArray<string> = Object.values(RULES)

/** Where AI agents find the MCP server and the summary for language models, on every base URL. */
export const MCP_PATH = "/mcp"
export const LLMS_TXT_PATH = "/llms.txt"

/**
 * The booking flow, step by step: the REST endpoint of each step and the MCP tool that does the
 * same; the last steps are the guest's, on the page at continue_url.
 */
export const BOOKING_FLOW: ReadonlyArray<{ readonly method: string; readonly path: string; readonly tool: string | null }> = [
  { method: "GET", path: "/v1/hotel", tool: "get_hotel" },
  { method: "GET", path: "/v1/room-types", tool: "list_room_types" },
  { method: "GET", path: "/v1/calendar", tool: "price_calendar" },
  { method: "GET", path: "/v1/availability", tool: "check_availability" },
  { method: "POST", path: "/v1/quotes", tool: "quote_stay" },
  { method: "POST", path: "/v1/reservation-intents", tool: "create_reservation_intent" },
  { method: "GET", path: "/v1/reservation-public", tool: null },
  { method: "POST", path: "/v1/reservation-complete", tool: null }
]

/** What /llms.txt is made of: the discovery documents and the hotel as the API shows them. */
export interface LlmsTextInput {
  readonly root: ApiRoot
  readonly index: DiscoveryIndex
  readonly hotel: Hotel
  readonly rooms: ReadonlyArray<RoomType>
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim()

/** /llms.txt (llmstxt.org): the hotel, the booking flow, the rules and the links, in Markdown. */
export const llmsText = ({ hotel, index, rooms, root }: LlmsTextInput): string => {
  const tools = BOOKING_FLOW.flatMap((step) => step.tool === null ? [] : [step.tool])
  const purpose = (method: string, path: string) =>
    index.endpoints.find((e) => e.method === method && e.path === path)?.purpose ?? ""
  const lines = [
    `# ${index.name}`,
    "",
    `> ${oneLine(index.description)}`,
    "",
    `${hotel.name}, ${hotel.address.street}, ${hotel.address.postal_code} ${hotel.city} (${hotel.country}). ${oneLine(hotel.description)}`,
    `Check-in from ${hotel.check_in}, check-out by ${hotel.check_out}; prices in ${hotel.currency}; dates are local to ${hotel.timezone}.`,
    `Contact: ${hotel.contact.phone}, ${hotel.contact.email}, ${hotel.contact.website}.`,
    "",
    "## Rooms",
    "",
    ...rooms.map((room) =>
      `- **${room.name}** (\`${room.id}\`): ${room.size_m2} m², ${room.beds}, ${room.view}; ` +
      `up to ${room.max_standard_occupancy} guests` +
      (room.additional_infant_under_2_allowed ? ` plus ${room.max_additional_infants_under_2} infant under 2` : "") +
      `. ${oneLine(room.description)}`
    ),
    "",
    "## Booking flow",
    "",
    ...BOOKING_FLOW.map((step, i) =>
      `${i + 1}. \`${step.method} ${step.path}\`` +
      (step.tool === null ? " (the guest's page at continue_url)" : ` (MCP tool \`${step.tool}\`)`) +
      `: ${purpose(step.method, step.path)}`
    ),
    "",
    "## Rules",
    "",
    ...index.agent_rules.map((rule) => `- ${rule}`),
    "",
    "## Policies",
    "",
    ...Object.entries(hotel.policies).map(([topic, text]) => `- **${topic}**: ${oneLine(text)}`),
    `- **tourist tax**: ${oneLine(hotel.tourist_tax.description)} ${hotel.tourist_tax.official_amount}.`,
    "",
    "## API",
    "",
    `- [MCP server](${root.mcp}): Model Context Protocol, Streamable HTTP transport; tools ${tools.map((t) => `\`${t}\``).join(", ")}`,
    `- [OpenAPI 3.1 description](${root.openapi})`,
    `- [API reference](${root.documentation})`,
    `- [API index with the agent rules](${root.api_index})`,
    `- [API catalog (RFC 9727)](${root.api_catalog})`,
    `- [Health](${root.health})`,
    "",
    "## Endpoints",
    "",
    ...index.endpoints.map((e) => `- \`${e.method} ${e.path}\`: ${e.purpose}`),
    ""
  ]
  return lines.join("\n")
}
