import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, Effect } from "effect"
import { Api } from "../Api/Api.js"
import {
  AGENT_RULES,
  API_DESCRIPTION,
  API_NAME,
  API_VERSION,
  type ApiCatalog,
  type ApiRoot,
  type DiscoveryIndex,
  type EndpointSummary
} from "../Domain/Discovery.js"
import { AppConfig } from "./AppConfig.js"
import * as Tracing from "../Layers/Tracing.js"

/** Every public endpoint of the API, read off its own definition so the index never drifts. */
const publicEndpoints = (): ReadonlyArray<EndpointSummary> => {
  const endpoints: Array<EndpointSummary> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      if (endpoint.path.startsWith("/.well-known")) return
      endpoints.push({
        method: endpoint.method,
        path: endpoint.path,
        purpose: Context.getOrElse(endpoint.annotations, OpenApi.Summary, () => endpoint.name)
      })
    }
  })
  return endpoints
}

/** The discovery documents, with absolute URLs on `PUBLIC_BASE_URL`. */
export class Discovery extends Effect.Service<Discovery>()("Discovery", {
  effect: Effect.gen(function*() {
    const { publicBaseUrl: base } = yield* AppConfig
    const endpoints = publicEndpoints()
    const root: ApiRoot = {
      name: API_NAME,
      version: API_VERSION,
      description: API_DESCRIPTION,
      documentation: `${base}/docs/`,
      openapi: `${base}/openapi.json`,
      api_index: `${base}/v1`,
      api_catalog: `${base}/.well-known/api-catalog`,
      health: `${base}/v1/health`
    }
    const index: DiscoveryIndex = {
      name: API_NAME,
      version: API_VERSION,
      description: API_DESCRIPTION,
      documentation: root.documentation,
      openapi: root.openapi,
      endpoints,
      agent_rules: AGENT_RULES
    }
    const catalog: ApiCatalog = {
      linkset: [{
        anchor: `${base}/v1`,
        "service-desc": [{ href: root.openapi, type: "application/vnd.oai.openapi+json;version=3.1" }],
        "service-doc": [{ href: root.documentation, type: "text/html" }],
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
        return catalog
      })
    }
  })
}) {}
