import type { HotelDefinition } from "../../Domain/Hotel.js"
import { QUOTE_EXPIRY_RULE } from "../../Domain/Lifetimes.js"
import { describeReasons, UnavailabilityReason } from "../../Domain/Quote.js"

const timesRule = (checkIn: string, checkOut: string) =>
  `Check-in is from ${checkIn} and check-out is by ${checkOut}; both are strict. ` +
  "Early arrival and late departure are separate requests, never included automatically."

const datesRule = (timezone: string) => `Dates are YYYY-MM-DD in the hotel's local time (${timezone}); every error has a stable error.code.`

/**
 * The business rules and client flow of the spec (§6 to §8), for AI agents and clients, by topic:
 * the MCP tools and the OpenAPI descriptions quote the ones that apply to them. These are written
 * before any hotel is read, so where a rule states a fact of the hotel they name the field of
 * GET /v1/hotel that holds it; `rulesOf` states the hotel's own values, from its definition.
 */
export const RULES = {
  occupancy: "Maximum standard occupancy is 2 guests per room.",
  infant: "One infant under 2 may be added to a room beyond standard occupancy; a baby cot is free and on request.",
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
  times: timesRule("the hotel's check_in", "its check_out"),
  dates: datesRule("the hotel's timezone")
} as const

const listed = (items: ReadonlyArray<string>) =>
  items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`

type HotelFacts = Pick<HotelDefinition, "room_types" | "check_in" | "check_out" | "timezone">

/** Every rule, stating this hotel's room types, times and time zone, in the order agents read them. */
const rulesOf = (hotel: HotelFacts) => {
  const { dates: _dates, infant, occupancy, times: _times, ...rest } = RULES
  return {
    roomTypes: `Room types are ${listed(hotel.room_types.map((room) => room.id))}; the hotel's facts and policies are at GET /v1/hotel.`,
    occupancy,
    infant,
    times: timesRule(hotel.check_in, hotel.check_out),
    ...rest,
    dates: datesRule(hotel.timezone)
  }
}

/** The rules agents must follow (the index's agent_rules, the MCP resource, /llms.txt), for this hotel. */
export const agentRules = (hotel: HotelFacts): ReadonlyArray<string> => Object.values(rulesOf(hotel))
