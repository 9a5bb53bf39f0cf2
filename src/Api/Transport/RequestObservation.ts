import { Context, Effect, Layer, Option, Struct } from "effect"
import { Headers, HttpServerError, HttpServerRequest, type HttpServerResponse, HttpTraceContext } from "effect/http"
import type { IncomingMessage } from "node:http"
import { MCP_PATH } from "../Contract/Discovery.js"
import { maskSecrets } from "../../Domain/Redaction.js"
import { type RequestLogLine } from "../../Layers/Platform/Logging.js"
import * as Metrics from "../../Layers/Platform/Metrics.js"
import * as Tracing from "../../Layers/Platform/Tracing.js"
import { Api } from "../Contract/Api.js"
import { ChannelApi } from "../Contract/Channel.js"
import { GUEST_PAGE_PATHS } from "../Handlers/GuestPages.js"
import { METRICS_PATH } from "../Handlers/Metrics.js"
import { AnalyticsHeaders } from "../Contract/RequestHeaders.js"
import type { ApiResponse } from "./ApiResponse.js"
import { withResponseHeader } from "./ResponseHeaders.js"

const endpointPaths = (api: { readonly groups: Record<string, { readonly endpoints: Record<string, { readonly path: string }> }> }) =>
  Object.values(api.groups).flatMap((group) => Object.values(group.endpoints).map((endpoint) => endpoint.path))

/**
 * Every path the server answers, spelt as it answers it: each route is a fixed path, with no id
 * and no token in it (the channel interface's are here even while it is not served).
 */
export const ROUTES: ReadonlySet<string> = new Set([
  ...endpointPaths(Api),
  ...endpointPaths(ChannelApi),
  ...GUEST_PAGE_PATHS,
  MCP_PATH,
  METRICS_PATH,
  "/openapi.json",
  "/docs/"
])

/**
 * The route template of a request: its path when it is one of the server's routes (never the
 * query, where a client could put anything), `unmatched` otherwise (an unknown path may carry a
 * token pasted in the wrong place).
 */
export const routeOf = (url: string): string => {
  const path = pathOf(url)
  return isRoute(path) ? path : "unmatched"
}

/** Whether `path` is one of the server's routes, spelt exactly as the route is. */
export const isRoute = (path: string): boolean => ROUTES.has(path)

/** A request URL without its query. */
export const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/** The analytics headers a client may send (stored with quotes and intents); they become span attributes. */
const ANALYTICS_HEADERS: ReadonlyArray<keyof typeof AnalyticsHeaders.fields> = Struct.keys(AnalyticsHeaders.fields)

/** A header value as an attribute: short, and never an email address or a phone number. */
const attributeValue = (value: string) => maskSecrets(value.slice(0, 200))

/**
 * The server span of a request, in place of the platform's (which records the full URL and every
 * header): named `METHOD route`, with the route template, the status and the analytics headers,
 * child of the caller's `traceparent` if any. The response carries the span's `traceparent`.
 */
export const traceRequests = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.withFiber((fiber) => {
    const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
    const route = routeOf(request.url)
    const attributes: Record<string, unknown> = { "http.request.method": request.method, "http.route": route }
    for (const name of ANALYTICS_HEADERS) {
      const value = request.headers[name]
      if (value !== undefined) attributes[`http.request.header.${name}`] = attributeValue(value)
    }
    return Effect.useSpan(
      `${request.method} ${route}`,
      {
        parent: Option.getOrUndefined(HttpTraceContext.fromHeaders(request.headers)),
        kind: "server",
        attributes
      },
      (span) =>
        withResponseHeader("traceparent", Tracing.traceparent(span)).pipe(
          Effect.andThen(Effect.withParentSpan(app, span)),
          Effect.onExit((exit) => Effect.sync(() => span.attribute("http.response.status_code", HttpServerError.exitResponse(exit).status)))
        )
    )
  })

/** The status logged for a request whose client went away before its answer (nginx's 499). */
const CLIENT_CLOSED_REQUEST = 499

/** The methods OpenTelemetry names; any other is `_OTHER`, so a made-up method adds no series. */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/** The process's metric registry (Effect's default one, the one the services and `/internal/metrics` use). */
const metricsContext = Context.empty()

/**
 * Once a request's response is sent or its connection closed: its duration and status in
 * `http.server.request.duration` (by method, route template and status), and its log line
 * (method, route template, status, duration, and the server span named by the response's
 * `traceparent` while traces are collected) when `log` is set. It counts in
 * `http.server.active_requests` until then.
 */
export const observeResponse = (request: IncomingMessage, response: ApiResponse, log: RequestLogLine | undefined) => {
  const start = performance.now()
  Metrics.httpActiveRequests.modifyUnsafe(1, metricsContext)
  response.on("close", () => { // once, as a response closes once (Connections.ts)
    const durationMs = performance.now() - start
    const method = request.method ?? ""
    const route = routeOf(request.url ?? "")
    const status = response.writableFinished ? response.statusCode : CLIENT_CLOSED_REQUEST
    Metrics.httpActiveRequests.modifyUnsafe(-1, metricsContext)
    Metrics.httpRequestDuration(KNOWN_METHODS.has(method) ? method : "_OTHER", route, status).updateUnsafe(durationMs / 1000, metricsContext)
    if (log === undefined) return
    const traceparent = response.writtenHeader("traceparent")
    log({
      method,
      route,
      status,
      durationMs: Math.round(durationMs * 100) / 100,
      traceparent: typeof traceparent === "string" ? traceparent : undefined
    })
  })
}

/** Secrets never reach logs or span attributes through request headers. */
export const redactSecretHeaders = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  Layer.provide(
    layer,
    Layer.effect(
      Headers.CurrentRedactedNames,
      Effect.map(Headers.CurrentRedactedNames, (names) => [...names, "x-reservation-token", "idempotency-key"])
    )
  )
