import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import type { HotelDefinition } from "../../Domain/Hotel.js"

/** The API's name: the hotel's, from its definition. */
export const apiName = (hotel: Pick<HotelDefinition, "name">) => `${hotel.name} Booking API`
/** The MCP server's name, given when it starts, before (and whether or not) the hotel can be read. */
export const MCP_NAME = "Hotel Booking API"
export const API_DESCRIPTION =
  "Public booking API of a single hotel: hotel facts, room types, live availability, a price calendar, live direct price quotes, " +
  "reservation intents and secure guest completion. No payment is required (reservation workflow v12)."

/** Where AI agents find the MCP server and the summary for language models, on every base URL. */
export const MCP_PATH = "/mcp"
export const LLMS_TXT_PATH = "/llms.txt"

export const ApiRoot = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  description: Schema.String,
  documentation: Schema.String.annotate({ description: "URL of the human-readable API reference" }),
  openapi: Schema.String.annotate({ description: "URL of the OpenAPI 3.1 description" }),
  api_index: Schema.String.annotate({ description: "URL of the machine-readable index (GET /v1)" }),
  api_catalog: Schema.String.annotate({ description: "URL of the RFC 9727 API catalog" }),
  health: Schema.String.annotate({ description: "URL of the health check" }),
  mcp: Schema.String.annotate({ description: "URL of the MCP server for AI agents (Streamable HTTP transport)" }),
  llms_txt: Schema.String.annotate({ description: "URL of /llms.txt, a Markdown summary for language models" })
}).annotate({ identifier: "ApiRoot" })
export type ApiRoot = typeof ApiRoot.Type

export const EndpointSummary = Schema.Struct({
  method: Schema.String,
  path: Schema.String,
  purpose: Schema.String
}).annotate({ identifier: "EndpointSummary" })
export type EndpointSummary = typeof EndpointSummary.Type

export const DiscoveryIndex = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  description: Schema.String,
  documentation: Schema.String,
  openapi: Schema.String,
  endpoints: Schema.Array(EndpointSummary),
  agent_rules: Schema.Array(Schema.String),
  mcp: Schema.String.annotate({
    description: "URL of the MCP server: the same booking flow as tools for AI agents (Streamable HTTP transport)"
  }),
  llms_txt: Schema.String.annotate({ description: "URL of /llms.txt, a Markdown summary for language models" })
}).annotate({ identifier: "DiscoveryIndex" })
export type DiscoveryIndex = typeof DiscoveryIndex.Type

const Link = Schema.Struct({ href: Schema.String, type: Schema.optionalKey(Schema.String), title: Schema.optionalKey(Schema.String) })

/** RFC 9727 API catalog: an RFC 9264 linkset (written out in the document, not named apart). */
export const ApiCatalog = Schema.Struct({
  linkset: Schema.Array(Schema.Struct({
    anchor: Schema.String,
    "service-desc": Schema.Array(Link),
    "service-doc": Schema.Array(Link),
    "service-meta": Schema.Array(Link),
    status: Schema.Array(Link)
  }))
})
export type ApiCatalog = typeof ApiCatalog.Type

/** Endpoints 1 and 2 and the RFC 9727 catalog: how clients and agents find their way. */
export class DiscoveryGroup extends HttpApiGroup.make("discovery")
  .add(
    HttpApiEndpoint.get("root", "/", { success: ApiRoot })
      .annotate(OpenApi.Summary, "API discovery document")
      .annotate(OpenApi.Description, "Where the index, the OpenAPI description, the documentation, the health check, the MCP server and /llms.txt are."),
    HttpApiEndpoint.get("index", "/v1", { success: DiscoveryIndex })
      .annotate(OpenApi.Summary, "Machine-readable API index with the endpoints and the rules agents must follow"),
    HttpApiEndpoint.get("apiCatalog", "/.well-known/api-catalog", {
      success: ApiCatalog.pipe(HttpApiSchema.asJson({ contentType: "application/linkset+json" }))
    })
      .annotate(OpenApi.Summary, "API catalog (RFC 9727 linkset)"),
    HttpApiEndpoint.get("llmsText", LLMS_TXT_PATH, {
      // the document has always described the answer so
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/markdown; charset=utf-8" }), Schema.annotate({ description: "a string" }))
    })
      .annotate(OpenApi.Summary, "Summary for language models (llms.txt, Markdown)")
      .annotate(
        OpenApi.Description,
        "What the hotel offers, the booking flow in steps, the rules, and the links to the OpenAPI document and the MCP server."
      )
  )
  .annotate(OpenApi.Title, "Discovery")
  .annotate(OpenApi.Description, "Entry points for clients and AI agents")
{}
