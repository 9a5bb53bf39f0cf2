import type { Hotel, RoomType } from "../../Domain/Hotel.js"
import { CalendarGroup } from "../Contract/Calendar.js"
import type { ApiRoot, DiscoveryIndex } from "../Contract/Discovery.js"
import { HotelGroup } from "../Contract/Hotel.js"
import { QuotesGroup } from "../Contract/Quotes.js"
import { ReservationsGroup } from "../Contract/Reservations.js"

interface FlowStep {
  readonly method: string
  readonly path: string
  readonly tool: string | null
}

/** A step of the flow: the endpoint as the API declares it, and the MCP tool that does the same. */
const step = (endpoint: { readonly method: string; readonly path: string }, tool: string | null): FlowStep => ({
  method: endpoint.method,
  path: endpoint.path,
  tool
})

/**
 * The booking flow, step by step: the REST endpoint of each step and the MCP tool that does the
 * same; the last steps are the guest's, on the page at continue_url.
 */
export const BOOKING_FLOW: ReadonlyArray<FlowStep> = [
  step(HotelGroup.endpoints.hotel, "get_hotel"),
  step(HotelGroup.endpoints.roomTypes, "list_room_types"),
  step(CalendarGroup.endpoints.calendar, "price_calendar"),
  step(HotelGroup.endpoints.availability, "check_availability"),
  step(QuotesGroup.endpoints.quoteRooms, "quote_stay"),
  step(ReservationsGroup.endpoints.createIntent, "create_reservation_intent"),
  step(ReservationsGroup.endpoints.publicView, null),
  step(ReservationsGroup.endpoints.complete, null)
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
