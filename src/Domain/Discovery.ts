import { Schema } from "effect"

export const API_VERSION = "1.1.0"
export const API_NAME = "Hôtel Belle Rive Booking API"
export const API_DESCRIPTION =
  "Public booking API of a single hotel: hotel facts, room types, live availability, live direct price quotes, " +
  "reservation intents and secure guest completion. No payment is required (reservation workflow v12)."

export const ApiRoot = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  description: Schema.String,
  documentation: Schema.String.annotations({ description: "URL of the human-readable API reference" }),
  openapi: Schema.String.annotations({ description: "URL of the OpenAPI 3.1 description" }),
  api_index: Schema.String.annotations({ description: "URL of the machine-readable index (GET /v1)" }),
  api_catalog: Schema.String.annotations({ description: "URL of the RFC 9727 API catalog" }),
  health: Schema.String.annotations({ description: "URL of the health check" })
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
  agent_rules: Schema.Array(Schema.String)
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

/** The business rules and client flow of the spec (§6 to §8), for AI agents and clients. */
export const AGENT_RULES: ReadonlyArray<string> = [
  "Room types are double, twin and deluxe; the hotel's facts and policies are at GET /v1/hotel.",
  "Maximum standard occupancy is 2 guests per room.",
  "One infant under 2 may be added to a room beyond standard occupancy; a baby cot is free and on request.",
  "Check-in is from 14:00 and check-out is by 12:00; both are strict. Early arrival and late departure are separate requests, never included automatically.",
  "Prices, promotions and tourist tax are dynamic. Take the official total only from a live quote's package_offers; never calculate, infer or cache it.",
  "Tourist tax depends on stay dates and guest ages and is computed by the quote engine.",
  "Recommended flow: GET /v1/hotel, GET /v1/room-types, POST /v1/quotes (also for one room), use package_offers as the authoritative total, then POST /v1/reservation-intents and present continue_url to the user as a clickable next step.",
  "A quote can be reserved only until its expires_at.",
  "Send an Idempotency-Key with POST /v1/reservation-intents: a retry with the same key and body answers the same reservation and continue_url instead of creating another.",
  "A reservation intent only initiates a reservation: it is not guest-completed until the guest finishes the secure form at continue_url and the API reports status GUEST_COMPLETED. Never present it as confirmed before that.",
  "The public API never creates reservations in the hotel's inventory system or PMS directly; no payment or payment guarantee is required.",
  "Dates are YYYY-MM-DD in the hotel's local time (Europe/Paris); every error has a stable error.code."
]
