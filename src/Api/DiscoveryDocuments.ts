import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, Effect } from "effect"
import { Api } from "./Api.js"
import {
  AGENT_RULES,
  API_DESCRIPTION,
  API_NAME,
  API_VERSION,
  type ApiCatalog,
  type ApiRoot,
  type DiscoveryIndex,
  type EndpointSummary,
  LLMS_TXT_PATH,
  llmsText,
  MCP_PATH
} from "../Domain/Discovery.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"
import { HotelCatalog } from "../Services/HotelCatalog.js"
import * as Tracing from "../Layers/Platform/Tracing.js"

/** Every public endpoint of the API, read off its own definition so the index never drifts. */
const publicEndpoints = (): ReadonlyArray<EndpointSummary> => {
  const endpoints: Array<EndpointSummary> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      // documents about the API, not endpoints of it
      if (endpoint.path.startsWith("/.well-known") || endpoint.path === LLMS_TXT_PATH) return
      endpoints.push({
        method: endpoint.method,
        path: endpoint.path,
        purpose: Context.getOrElse(endpoint.annotations, OpenApi.Summary, () => endpoint.name)
      })
    }
  })
  return endpoints
}

/**
 * The discovery documents, with absolute URLs on `PUBLIC_BASE_URL`. Built here, beside the API,
 * because the index lists the API's own endpoints.
 */
export class Discovery extends Effect.Service<Discovery>()("Discovery", {
  effect: Effect.gen(function*() {
    const { publicBaseUrl: base } = yield* AppConfig
    const catalog = yield* HotelCatalog
    const endpoints = publicEndpoints()
    const root: ApiRoot = {
      name: API_NAME,
      version: API_VERSION,
      description: API_DESCRIPTION,
      documentation: `${base}/docs/`,
      openapi: `${base}/openapi.json`,
      api_index: `${base}/v1`,
      api_catalog: `${base}/.well-known/api-catalog`,
      health: `${base}/v1/health`,
      mcp: `${base}${MCP_PATH}`,
      llms_txt: `${base}${LLMS_TXT_PATH}`
    }
    const index: DiscoveryIndex = {
      name: API_NAME,
      version: API_VERSION,
      description: API_DESCRIPTION,
      documentation: root.documentation,
      openapi: root.openapi,
      endpoints,
      agent_rules: AGENT_RULES,
      mcp: root.mcp,
      llms_txt: root.llms_txt
    }
    const apiCatalog: ApiCatalog = {
      linkset: [{
        anchor: `${base}/v1`,
        "service-desc": [{ href: root.openapi, type: "application/vnd.oai.openapi+json;version=3.1" }],
        "service-doc": [
          { href: root.documentation, type: "text/html" },
          { href: root.llms_txt, type: "text/markdown", title: "Summary for language models" }
        ],
        "service-meta": [{ href: root.api_index, type: "application/json", title: "API index with agent rules" }],
        status: [{ href: root.health, type: "application/json" }]
      }, {
        // the same booking flow for AI agents: an MCP server describes itself (initialize, tools/list)
        anchor: root.mcp,
        "service-desc": [{ href: root.mcp, type: "application/json", title: "MCP server (Model Context Protocol, Streamable HTTP transport)" }],
        "service-doc": [{ href: root.llms_txt, type: "text/markdown", title: "Summary for language models" }],
        "service-meta": [{ href: root.api_index, type: "application/json", title: "API index with agent rules" }],
        status: [{ href: root.health, type: "application/json" }]
      }]
    }
    return {
      root: Tracing.fn("Discovery.root")(function*() {
        return root
      }),
      index: Tracing.fn("Discovery.index")(function*() {
        return index
      }),
      catalog: Tracing.fn("Discovery.catalog")(function*() {
        return apiCatalog
      }),
      /** /llms.txt, from the index and the hotel as they are now. */
      llmsText: Tracing.fn("Discovery.llmsText")(function*() {
        const hotel = yield* catalog.hotel()
        const { rooms } = yield* catalog.roomTypes()
        return llmsText({ root, index, hotel, rooms })
      })
    }
  }),
  dependencies: [HotelCatalog.Default]
}) {}
