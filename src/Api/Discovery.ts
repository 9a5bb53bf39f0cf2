import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { ApiCatalog, ApiRoot, DiscoveryIndex, LLMS_TXT_PATH } from "../Domain/Discovery.js"

/** Endpoints 1 and 2 and the RFC 9727 catalog: how clients and agents find their way. */
export class DiscoveryGroup extends HttpApiGroup.make("discovery")
  .add(
    HttpApiEndpoint.get("root", "/")
      .addSuccess(ApiRoot)
      .annotate(OpenApi.Summary, "API discovery document")
      .annotate(OpenApi.Description, "Where the index, the OpenAPI description, the documentation, the health check, the MCP server and /llms.txt are.")
  )
  .add(
    HttpApiEndpoint.get("index", "/v1")
      .addSuccess(DiscoveryIndex)
      .annotate(OpenApi.Summary, "Machine-readable API index with the endpoints and the rules agents must follow")
  )
  .add(
    HttpApiEndpoint.get("apiCatalog", "/.well-known/api-catalog")
      .addSuccess(ApiCatalog.pipe(HttpApiSchema.withEncoding({ kind: "Json", contentType: "application/linkset+json" })))
      .annotate(OpenApi.Summary, "API catalog (RFC 9727 linkset)")
  )
  .add(
    HttpApiEndpoint.get("llmsText", LLMS_TXT_PATH)
      .addSuccess(HttpApiSchema.Text({ contentType: "text/markdown; charset=utf-8" }))
      .annotate(OpenApi.Summary, "Summary for language models (llms.txt, Markdown)")
      .annotate(
        OpenApi.Description,
        "What the hotel offers, the booking flow in steps, the rules, and the links to the OpenAPI document and the MCP server."
      )
  )
  .annotate(OpenApi.Title, "Discovery")
  .annotate(OpenApi.Description, "Entry points for clients and AI agents")
{}
