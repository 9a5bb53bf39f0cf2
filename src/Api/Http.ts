import * as Headers from "@effect/platform/Headers"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpMethod from "@effect/platform/HttpMethod"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Multipart from "@effect/platform/Multipart"
import * as OpenApi from "@effect/platform/OpenApi"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Cause, Context, Effect, Layer, Option, Schema } from "effect"
import { constTrue } from "effect/Function"
import { createHash } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { type ListenOptions, Server as NetServer, type Socket } from "node:net"
import type { Duplex } from "node:stream"
import { NotFound, RateLimited, ValidationError } from "../Domain/Errors.js"
import { RequestLog, type RequestLogLine } from "../Layers/Logging.js"
import * as Tracing from "../Layers/Tracing.js"
import { AppConfig } from "../Services/AppConfig.js"
import { type RateDecision, RateLimiter } from "../Services/RateLimiter.js"
import { Api } from "./Api.js"
import { clientAddress } from "./ClientAddress.js"
import { describeIssues, ValidationErrorBody } from "./Errors.js"
import { DiscoveryHttp } from "./DiscoveryHttp.js"
import { GuestPagesLive } from "./GuestPages.js"
import { HotelHttp } from "./HotelHttp.js"
import { ManageHttp } from "./ManageHttp.js"
import { McpLive } from "./Mcp.js"
import { QuotesHttp } from "./QuotesHttp.js"
import { ReservationsHttp } from "./ReservationsHttp.js"
import { withBoundedBody } from "./RequestBody.js"
import { logResponse, pathOf, traceRequests } from "./RequestObservation.js"
import { ReservationTokenAuthLive } from "./ReservationToken.js"
import {
  HeadersTooLarge,
  HeadersTooLargeBody,
  InternalError,
  PayloadTooLarge,
  PayloadTooLargeBody,
  RequestTimeout,
  RequestTimeoutBody
} from "./TransportErrors.js"

/** Request bodies are small JSON documents; the framework would otherwise read 50 MB whole. */
export const MAX_BODY_BYTES = 64 * 1024

const notJson = new ValidationError({ code: "invalid_request", message: "the request body is not valid JSON" })

/** Every failure the framework raises becomes a domain error, so it is answered as an `Error` body. */
const toDomainError = (error: unknown): unknown => {
  if (error instanceof HttpApiError.HttpApiDecodeError) {
    return new ValidationError({ code: "invalid_request", message: describeIssues(error.issues) ?? error.message })
  }
  // a multipart body, refused unread (RequestBody)
  if (error instanceof Multipart.MultipartError) return notJson
  if (HttpServerError.isServerError(error)) {
    switch (error._tag) {
      case "RouteNotFound":
        return new NotFound({ message: `no resource at ${error.request.method} ${error.request.url}` })
      case "RequestError":
        return error.cause instanceof PayloadTooLarge || error.cause instanceof ValidationError ? error.cause : notJson
    }
  }
  return error
}

/** Deeper than any body the API takes (three levels at most). */
export const MAX_JSON_DEPTH = 16

const bodyLimits = {
  maxBytes: MAX_BODY_BYTES,
  tooLarge: new PayloadTooLarge({ message: `the request body is larger than ${MAX_BODY_BYTES} bytes` }),
  maxDepth: MAX_JSON_DEPTH,
  tooDeep: new ValidationError({
    code: "invalid_request",
    message: `the request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`
  })
}

/** A declared oversize body is refused before it is read; an undeclared one is cut off at the limit. */
const boundBody = (app: HttpApp.Default<unknown>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Number(NodeHttpServerRequest.toIncomingMessage(request).headers["content-length"] ?? 0) > MAX_BODY_BYTES
      ? Effect.fail(bodyLimits.tooLarge)
      : HttpMethod.hasBody(request.method)
      ? Effect.provideService(app, HttpServerRequest.HttpServerRequest, withBoundedBody(bodyLimits)(request))
      : app)

const errorsAsBodies = HttpApiBuilder.middleware((app: HttpApp.Default) =>
  boundBody(app as HttpApp.Default<unknown>).pipe(
    Effect.catchAll((error) => isPreflight(error) ? Effect.succeed(preflight) : Effect.fail(toDomainError(error))),
    // the framework raises an unreadable body as a defect
    Effect.catchAllDefect((defect) => {
      const error = toDomainError(defect)
      return error !== defect
        ? Effect.fail(error)
        : Effect.logError("unexpected fault", Cause.die(defect)).pipe(
          Effect.zipRight(Effect.fail(new InternalError({ message: "An unexpected error occurred. It has been logged." })))
        )
    })
  ) as HttpApp.Default
)

/** The public read and quote endpoints, which any web page may call (no credentials); never the token endpoints. */
const CORS_PATHS = new Set([
  "/",
  "/v1",
  "/v1/health",
  "/v1/hotel",
  "/v1/room-types",
  "/v1/availability",
  "/v1/quote",
  "/v1/quotes",
  "/openapi.json",
  "/.well-known/api-catalog"
])

const preflight = HttpServerResponse.empty({
  status: 204,
  headers: {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "GET, POST, OPTIONS",
    "access-control-allow-headers": "content-type, x-hotel-client, x-ai-agent, x-hotel-session",
    "access-control-max-age": "86400"
  }
})

/**
 * A browser's preflight for a CORS endpoint. No route takes OPTIONS, so it is answered where its
 * 404 would be, at no cost to other requests; any other OPTIONS stays a 404.
 */
const isPreflight = (error: unknown) =>
  HttpServerError.isServerError(error) && error._tag === "RouteNotFound" && error.request.method === "OPTIONS" &&
  CORS_PATHS.has(pathOf(error.request.url))

const rateHeaders = (decision: RateDecision) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeaders(response, {
      "ratelimit-policy": `"per-client";q=${decision.limit};w=${decision.windowSeconds}`,
      "ratelimit": `"per-client";r=${decision.remaining};t=${decision.resetSeconds}`,
      ...(decision.allowed ? {} : { "retry-after": String(decision.resetSeconds) })
    }))
  )

const encodeError = Schema.encodeSync(Schema.Union(HeadersTooLargeBody, RequestTimeoutBody, PayloadTooLargeBody, ValidationErrorBody))

/** An answer Node writes itself, before any application sees the request; its connection is closed after it. */
const rawAnswer = (status: number, reason: string, error: Parameters<typeof encodeError>[0]) => {
  const body = JSON.stringify(encodeError(error))
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
    `x-content-type-options: nosniff\r\nreferrer-policy: no-referrer\r\nconnection: close\r\n\r\n${body}`
}

const clientErrorAnswers: Record<string, string> = {
  HPE_HEADER_OVERFLOW: rawAnswer(
    431,
    "Request Header Fields Too Large",
    new HeadersTooLarge({ message: "the request line and headers are larger than 16 KiB" })
  ),
  HPE_CHUNK_EXTENSIONS_OVERFLOW: rawAnswer(
    413,
    "Payload Too Large",
    new PayloadTooLarge({ message: "the chunk extensions of the request body are too large" })
  ),
  ERR_HTTP_REQUEST_TIMEOUT: rawAnswer(408, "Request Timeout", new RequestTimeout({ message: "the request was not received in time" }))
}
const malformed = rawAnswer(400, "Bad Request", new ValidationError({ code: "invalid_request", message: "the request is not valid HTTP/1.1" }))

/**
 * A request Node's parser refuses (headers over 16 KiB, a malformed message, a timeout) is answered
 * as Node would, with its status, but with an `Error` body: by default Node's answer had none.
 * Nothing is written when an answer to an earlier request on the connection is already under way.
 */
const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (socket.writable && (inFlight === undefined || inFlight === null || !inFlight.headersSent)) {
    socket.write(clientErrorAnswers[error.code ?? ""] ?? malformed)
  }
  socket.destroy(error)
}

/**
 * `RATE_LIMIT_PER_MINUTE` requests per client address on every /v1 endpoint and /mcp, and per token as well
 * on the token endpoints (a token shared across addresses is limited too).
 */
const limitRate = Layer.unwrapEffect(Effect.map(RateLimiter, ({ take }) =>
  // without a limit, no step at all on the request path
  Option.isNone(take) ? Layer.empty : HttpApiBuilder.middleware((app: HttpApp.Default) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    if (!/^\/(v1|mcp)(\/|\?|$)/.test(request.url)) return app
    const token = request.headers["x-reservation-token"]
    const keys = [
      `address:${clientAddress(request)}`,
      ...(token === undefined ? [] : [`token:${createHash("sha256").update(token).digest("base64url")}`])
    ]
    return Effect.flatMap(take.value(keys), (decision) =>
      Effect.zipRight(
        rateHeaders(decision),
        decision.allowed
          ? app
          : Effect.fail(new RateLimited({
            message: `more than ${decision.limit} requests a minute from this client: retry in ${decision.resetSeconds} s`,
            retry_after_seconds: decision.resetSeconds
          }))
      ))
  }) as HttpApp.Default)
))

/**
 * The Node server of the API: every response says nosniff and no-referrer, errors included, and
 * the CORS endpoints allow any origin. Set here, before the application writes its head (Node
 * merges them in), it costs nothing per request, where a response hook in the application costs
 * a tenth of a small request.
 */
export const createHttpServer = (): Server => {
  const server = createServer()
  const state: DrainState = { draining: false, lastRequestAt: 0, sockets: new Set() }
  servers.set(server, state)
  server.on("connection", (socket: Socket) => {
    state.sockets.add(socket)
    socket.once("close", () => state.sockets.delete(socket))
  })
  // A client has 15 s to send its headers and 30 s for its whole request (bodies are at most
  // 64 KiB): a slow or stalled client cannot hold a connection. An idle keep-alive connection
  // lasts 65 s, longer than a load balancer's usual 60 s, so the balancer closes it first and
  // never sends a request on a connection this server is closing.
  server.headersTimeout = 15_000
  server.requestTimeout = 30_000
  server.keepAliveTimeout = 65_000
  // The server listens before the application is built and attaches its handler; a request in
  // between (a health probe at start-up) would hang forever. It is held and handed over instead.
  let held: Array<readonly [IncomingMessage, ServerResponse]> | undefined = []
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    response.setHeader("x-content-type-options", "nosniff")
    response.setHeader("referrer-policy", "no-referrer")
    // while the server stops, each answer is the last on its connection
    if (state.draining) {
      state.lastRequestAt = Date.now()
      response.setHeader("connection", "close")
    }
    if (CORS_PATHS.has(pathOf(request.url ?? ""))) {
      response.setHeader("access-control-allow-origin", "*")
      response.setHeader("access-control-expose-headers", "ratelimit, ratelimit-policy, retry-after")
    }
    if (state.log !== undefined) logResponse(request, response, state.log)
    held?.push([request, response])
  })
  server.on("clientError", answerClientError)
  server.on("newListener", (event: string | symbol, handler: (request: IncomingMessage, response: ServerResponse) => void) => {
    if (event !== "request" || held === undefined) return
    const waiting = held
    held = undefined
    process.nextTick(() => waiting.forEach(([request, response]) => handler(request, response)))
  })
  return server
}

interface DrainState {
  draining: boolean
  lastRequestAt: number
  /** Open connections, tracked per connection rather than per request: keep-alive makes them few. */
  readonly sockets: Set<Socket>
  /** Where each request's line goes, once `RequestLogging` says. */
  log?: RequestLogLine
}

/** The response a connection is writing, if any (Node's own field, the one `closeIdleConnections` reads). */
const responseOn = (socket: Socket): ServerResponse | undefined =>
  (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined

/** What a graceful stop and the request log need to know of a server made by `createHttpServer`. */
const servers = new WeakMap<Server, DrainState>()

/** Requests still unanswered this long after a stop began are cut off: the whole exit stays within 10 s. */
const DRAIN_MS = 8_000
/** A connection that carried no request for this long while nothing is in flight is closed: its client has gone quiet. */
const QUIET_MS = 250

/**
 * A graceful stop: the server accepts no new connection; every request in flight, and every
 * request that still arrives on an open keep-alive connection, is answered with
 * `Connection: close`, so its client learns the connection ends and opens no other. Once nothing
 * is in flight and the clients have gone quiet, the idle connections are closed; after `DRAIN_MS`
 * whatever is left is cut. It resolves when the last connection has closed.
 *
 * `http.Server#close` would close the idle keep-alive connections at once, racing a client that
 * is sending its next request on one (it would see a reset, the request lost): the listening
 * socket alone is closed here, through `net.Server#close`.
 */
const drain = (server: Server) =>
  Effect.async<void>((resume) => {
    const state = servers.get(server)
    if (state === undefined || !server.listening) return resume(Effect.void)
    state.draining = true
    state.lastRequestAt = Date.now()
    for (const socket of state.sockets) {
      const response = responseOn(socket)
      if (response !== undefined && !response.headersSent) response.setHeader("connection", "close")
    }
    const startedAt = Date.now()
    const watch = setInterval(() => {
      const now = Date.now()
      const inFlight = [...state.sockets].some((socket) => responseOn(socket) !== undefined)
      if (now - startedAt >= DRAIN_MS) server.closeAllConnections()
      else if (!inFlight && now - state.lastRequestAt >= QUIET_MS) server.closeIdleConnections()
    }, 50)
    NetServer.prototype.close.call(server, () => {
      clearInterval(watch)
      resume(Effect.void)
    })
  }).pipe(Effect.withSpan("HttpServer.drain"))

/** The Node server of the API. */
export class NodeServer extends Context.Tag("NodeServer")<NodeServer, Server>() {}

/** The API's Node server listening on `options`, also as the platform's `HttpServer`. */
export const nodeServerLayer = (options: ListenOptions) =>
  Layer.unwrapEffect(Effect.map(NodeServer, (server) => NodeHttpServer.layer(() => server, options))).pipe(
    Layer.provideMerge(Layer.sync(NodeServer, createHttpServer))
  )

/**
 * Drains the server when the service stops. Built after the application is served, it is
 * released before it: requests are answered while the services under them still run.
 */
export const DrainOnShutdown = Layer.scopedDiscard(
  Effect.flatMap(NodeServer, (server) =>
    Effect.addFinalizer(() =>
      Effect.logInfo("stopping: answering the requests in flight").pipe(
        Effect.zipRight(drain(server)),
        Effect.zipRight(Effect.logInfo("stopped serving"))
      )
    ))
)

/** `/openapi.json`: the OpenAPI 3.1 document generated from the HttpApi, served at this base URL. */
const openApiDocument = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const { publicBaseUrl } = yield* AppConfig
    const spec = { ...OpenApi.fromApi(Api), servers: [{ url: publicBaseUrl, description: "This deployment" }] }
    const response = yield* HttpServerResponse.json(spec).pipe(Effect.orDie)
    yield* router.get("/openapi.json", Effect.succeed(response))
  })
)

/**
 * The API reference at `/docs/`, which works offline: Scalar with its script inlined and no web
 * fonts. The script is 6.5 MB of memory, so it is loaded at the first visit, not at every start.
 */
const docsApp = (api: Context.Tag.Service<HttpApi.Api>) =>
  Effect.promise(() => import("@effect/platform/HttpApiScalar")).pipe(
    Effect.flatMap(({ layer }) =>
      Layer.build(layer({ path: "/docs/", scalar: { withDefaultFonts: false } }).pipe(
        Layer.provideMerge(HttpApiBuilder.Router.Live),
        Layer.provide(Layer.succeed(HttpApi.Api, api))
      ))
    ),
    Effect.flatMap((built) => Context.get(built, HttpApiBuilder.Router).router),
    Effect.flatMap(HttpRouter.toHttpApp),
    Effect.scoped
  )

const docs = HttpApiBuilder.Router.use((router) =>
  HttpApi.Api.pipe(
    Effect.flatMap((api) => Effect.cached(docsApp(api))),
    Effect.flatMap((app) => router.get("/docs/", Effect.flatten(app)))
  )
)

/** The whole HTTP application: the API, its errors, its documents. Needs the services. */
export const HttpAppLive = Layer.mergeAll(docs, openApiDocument, GuestPagesLive, McpLive, errorsAsBodies, limitRate).pipe(
  Layer.provideMerge(HttpApiBuilder.api(Api).pipe(Layer.provide([DiscoveryHttp, HotelHttp, QuotesHttp, ReservationsHttp, ManageHttp]), Layer.provide(ReservationTokenAuthLive)))
)

/**
 * One log line per request of `server` (made by `createHttpServer`), while the scope is open. It
 * is written from the server's own response events, outside the Effect runtime: as a middleware
 * around the application it cost 5 µs of CPU a request (7 % of `GET /v1/hotel`), here under 1 µs.
 */
export const logRequestsOf = (server: Server, log: RequestLogLine) => {
  const state = servers.get(server)
  return state === undefined
    ? Effect.dieMessage("the request log needs a server made by createHttpServer")
    : Effect.acquireRelease(Effect.sync(() => state.log = log), () => Effect.sync(() => delete state.log))
}

/** Each request of the API's Node server logged through `RequestLog`, when one is set. */
const RequestLogging = Layer.scopedDiscard(Effect.gen(function*() {
  const log = yield* RequestLog
  if (log !== undefined) yield* logRequestsOf(yield* NodeServer, log)
}))

/**
 * The API served on the API's Node server. Without a trace collector no span is made at all, not
 * even the request's own: nobody would read them, and they cost a fifth of a quote. With one,
 * each request's server span is `traceRequests`'s, never the platform's (which records the full
 * URL and every header). Every request is logged (`RequestLogging`).
 */
export const ServeApi = Tracing.untracedWithoutCollector(Layer.unwrapEffect(
  Effect.map(AppConfig, ({ otlpEndpoint }) =>
    HttpApiBuilder.serve(Option.isSome(otlpEndpoint) ? traceRequests : undefined).pipe(
      HttpMiddleware.withTracerDisabledWhen(constTrue)
    ))
)).pipe(Layer.provide(HttpAppLive), Layer.merge(RequestLogging))

/** Secrets never reach logs or span attributes through request headers. */
export const redactSecretHeaders = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  Layer.locallyWith(layer, Headers.currentRedactedNames, (names) => [...names, "x-reservation-token", "idempotency-key"])
