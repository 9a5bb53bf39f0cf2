import { Context, Effect, Layer } from "effect"
import { HttpApi, OpenApi } from "effect/http-api"
import { Api } from "../Contract/Api.js"
import { API_VERSION } from "../../Domain/Version.js"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import { HotelCatalog, memoized } from "../../Services/HotelCatalog.js"
import * as Tracing from "../../Layers/Platform/Tracing.js"
import { agentRules } from "./AgentRules.js"
import {
  API_DESCRIPTION,
  type ApiCatalog,
  type ApiRoot,
  apiName,
  type DiscoveryIndex,
  type EndpointSummary,
  LLMS_TXT_PATH,
  MCP_PATH
} from "../Contract/Discovery.js"
import { llmsText } from "./LlmsText.js"

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
        purpose: Context.getOrElse(endpoint.annotations, OpenApi.Summary, () => endpoint.identifier)
      })
    }
  })
  return endpoints
}

/**
 * The discovery documents, with absolute URLs on `PUBLIC_BASE_URL`. Built here, beside the API,
 * because the index lists the API's own endpoints.
 */
export class Discovery extends Context.Service<Discovery>()("Discovery", {
  make: Effect.gen(function*() {
    const { publicBaseUrl: base } = yield* AppConfig
    const catalog = yield* HotelCatalog
    const endpoints = publicEndpoints()
    const links = {
      documentation: `${base}/docs/`,
      openapi: `${base}/openapi.json`,
      api_index: `${base}/v1`,
      api_catalog: `${base}/.well-known/api-catalog`,
      health: `${base}/v1/health`,
      mcp: `${base}${MCP_PATH}`,
      llms_txt: `${base}${LLMS_TXT_PATH}`
    }
    // the root and the index name the hotel and state its rules: made again only when its definition is
    const documentsOf = memoized((hotel): { readonly root: ApiRoot; readonly index: DiscoveryIndex } => {
      const about = { name: apiName(hotel), version: API_VERSION, description: API_DESCRIPTION }
      const root: ApiRoot = { ...about, ...links }
      const index: DiscoveryIndex = {
        ...about,
        documentation: links.documentation,
        openapi: links.openapi,
        endpoints,
        agent_rules: agentRules(hotel),
        mcp: links.mcp,
        llms_txt: links.llms_txt
      }
      return { root, index }
    })
    const documents = Effect.map(catalog.definition(), documentsOf)
    const apiCatalog: ApiCatalog = {
      linkset: [{
        anchor: `${base}/v1`,
        "service-desc": [{ href: links.openapi, type: "application/vnd.oai.openapi+json;version=3.1" }],
        "service-doc": [
          { href: links.documentation, type: "text/html" },
          { href: links.llms_txt, type: "text/markdown", title: "Summary for language models" }
        ],
        "service-meta": [{ href: links.api_index, type: "application/json", title: "API index with agent rules" }],
        status: [{ href: links.health, type: "application/json" }]
      }, {
        // the same booking flow for AI agents: an MCP server describes itself (initialize, tools/list)
        anchor: links.mcp,
        "service-desc": [{ href: links.mcp, type: "application/json", title: "MCP server (Model Context Protocol, Streamable HTTP transport)" }],
        "service-doc": [{ href: links.llms_txt, type: "text/markdown", title: "Summary for language models" }],
        "service-meta": [{ href: links.api_index, type: "application/json", title: "API index with agent rules" }],
        status: [{ href: links.health, type: "application/json" }]
      }]
    }
    return {
      root: Tracing.fn("Discovery.root")(function*() {
        return (yield* documents).root
      }),
      index: Tracing.fn("Discovery.index")(function*() {
        return (yield* documents).index
      }),
      catalog: Tracing.fn("Discovery.catalog")(function*() {
        return apiCatalog
      }),
      /** /llms.txt, from the index and the hotel as they are now. */
      llmsText: Tracing.fn("Discovery.llmsText")(function*() {
        const { index, root } = yield* documents
        const hotel = yield* catalog.hotel()
        const { rooms } = yield* catalog.roomTypes()
        return llmsText({ root, index, hotel, rooms })
      })
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(HotelCatalog.layer))
}
