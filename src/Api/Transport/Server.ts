import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Layer, Schema } from "effect"
import { type IncomingMessage, Server, type ServerResponse } from "node:http"
import { type ListenOptions, Server as NetServer, type Socket } from "node:net"
import type { Duplex } from "node:stream"
import { invalidRequest } from "../../Domain/Errors.js"
import { defaultConnectionLimits } from "../../Layers/Platform/AppConfig.js"
import { RequestLog, type RequestLogLine } from "../../Layers/Platform/Logging.js"
import * as Metrics from "../../Layers/Platform/Metrics.js"
import { type CapCounts, type ConnectionLimits, limitConnections } from "./Connections.js"
import { allowCrossOrigin } from "./Cors.js"
import { ValidationErrorBody } from "../Contract/Errors.js"
import { observeResponse } from "./RequestObservation.js"
import { HeadersTooLarge, HeadersTooLargeBody, PayloadTooLarge, PayloadTooLargeBody, RequestTimeout, RequestTimeoutBody } from "./TransportErrors.js"

/** An answer Node writes itself, before any application sees the request; its connection is closed after it. */
const rawAnswer = (status: number, reason: string, encoded: unknown) => {
  const body = JSON.stringify(encoded)
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
    `x-content-type-options: nosniff\r\nreferrer-policy: no-referrer\r\nconnection: close\r\n\r\n${body}`
}

const clientErrorAnswers: Record<string, string> = {
  HPE_HEADER_OVERFLOW: rawAnswer(
    431,
    "Request Header Fields Too Large",
    Schema.encodeSync(HeadersTooLargeBody)(new HeadersTooLarge({ message: "the request line and headers are larger than 16 KiB" }))
  ),
  HPE_CHUNK_EXTENSIONS_OVERFLOW: rawAnswer(
    413,
    "Payload Too Large",
    Schema.encodeSync(PayloadTooLargeBody)(new PayloadTooLarge({ message: "the chunk extensions of the request body are too large" }))
  ),
  ERR_HTTP_REQUEST_TIMEOUT: rawAnswer(
    408,
    "Request Timeout",
    Schema.encodeSync(RequestTimeoutBody)(new RequestTimeout({ message: "the request was not received in time" }))
  )
}
const invalidRequestBody = (message: string) =>
  Schema.encodeSync(ValidationErrorBody)(invalidRequest(message))
const malformed = rawAnswer(400, "Bad Request", invalidRequestBody("the request is not valid HTTP/1.1"))

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

const ABSOLUTE_FORM = /^https?:\/\/[^/?#]*/i

/**
 * The path of an absolute-form target (`GET http://host/v1/hotel`, which HTTP/1.1 servers must
 * accept), any other target as it is: made so before anything reads it, such a request is
 * routed, limited and logged as its path.
 */
const originForm = (target: string): string => {
  const authority = ABSOLUTE_FORM.exec(target)
  if (authority === null) return target
  const rest = target.slice(authority[0].length)
  return rest.startsWith("/") ? rest : `/${rest}`
}

/** The server's own defences (docs/decisions.md#abuse), each a default in docs/limits.md. */
export interface ServerOptions extends ConnectionLimits {
  /** A client has this long to send its request line and headers… */
  readonly headersTimeoutMs: number
  /** …and this long for its whole request (bodies are at most 64 KiB). */
  readonly requestTimeoutMs: number
  /**
   * A connection on which nothing is read or written this long is closed: a client that does not
   * read its answer holds the answer's memory no longer (1,000 unread `/docs/` answers held 2.2 GB).
   */
  readonly writeTimeoutMs: number
  /**
   * Connections refused (`ConnectionLimits`), and idle ones closed to make room for a new one,
   * each reported at once, then at most once every `capReportMs`.
   */
  readonly reportRefusals: (refused: CapCounts) => void
  readonly reportIdleClosed: (closed: CapCounts) => void
  readonly capReportMs: number
}

export const defaultServerOptions: ServerOptions = {
  ...defaultConnectionLimits,
  trustedProxies: [],
  headersTimeoutMs: 15_000,
  requestTimeoutMs: 30_000,
  writeTimeoutMs: 30_000,
  // a server made for a test that looks at neither; `nodeServerLayer` logs them
  reportRefusals: () => {},
  reportIdleClosed: () => {},
  capReportMs: 60_000
}

/**
 * An idle keep-alive connection lasts 65 s, longer than a load balancer's usual 60 s, so the
 * balancer closes it first and never sends a request on a connection this server is closing.
 */
const KEEP_ALIVE_MS = 65_000
/** How often Node looks for a request past its timeouts: by default every 30 s, so 15 s became 26 s or more. */
const CHECK_TIMEOUTS_EVERY_MS = 1_000

/**
 * Node's server with three of its choices left to `createHttpServer`. Node hands each request to
 * the application as soon as its headers are parsed, pipelined ones too (2,000 on one unread
 * socket ran 360–590 at once): here each goes to `admit`, and reaches the application's listeners
 * through `dispatch`. Node gives a request with `Upgrade` away, socket and all, to the platform's
 * WebSocket handler, past the hardening headers and the request log: told there is no such
 * handler, it treats the request as any other. And a request with `Expect: 100-continue` would
 * reach the platform's own `checkContinue` listener past `admit` too: it is answered
 * `100 Continue` at once and admitted as any other, as Node does without such a listener.
 */
class ApiServer extends Server {
  admit: (request: IncomingMessage, response: ServerResponse) => void = () => {}

  // Node's own signature (its listeners take any arguments)
  override emit(event: string, ...args: Array<any>): boolean {
    if (event === "checkContinue") (args[1] as ServerResponse).writeContinue()
    else if (event !== "request") return super.emit(event, ...args)
    this.admit(args[0], args[1])
    return true
  }

  override listenerCount(event: string | symbol, listener?: (...args: Array<any>) => void): number {
    return event === "upgrade" ? 0 : super.listenerCount(event, listener)
  }

  dispatch(request: IncomingMessage, response: ServerResponse) {
    super.emit("request", request, response)
  }
}

const upgradeRefused = JSON.stringify(invalidRequestBody("this server upgrades no connection: send the request without Upgrade"))

/**
 * The Node server of the API: every response says nosniff and no-referrer, errors included, and
 * the CORS endpoints allow any origin. Set here, before the application writes its head (Node
 * merges them in), they are on the answers no application writes too (an upgrade refused), and
 * cost less than a response hook in the application (under 1 µs a request on Effect 4;
 * docs/performance.md).
 */
export const createHttpServer = (overrides: Partial<ServerOptions> = {}): Server => {
  const options = { ...defaultServerOptions, ...overrides }
  const server = new ApiServer({
    headersTimeout: options.headersTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_MS,
    connectionsCheckingInterval: CHECK_TIMEOUTS_EVERY_MS
  })
  // Node sets it on each connection, and again after each keep-alive wait
  server.timeout = options.writeTimeoutMs
  const connections = limitConnections(server, options, {
    everyMs: options.capReportMs,
    refusals: options.reportRefusals,
    idleClosed: options.reportIdleClosed
  })
  const state: DrainState = { draining: false, lastRequestAt: 0, sockets: connections.sockets }
  servers.set(server, state)
  // The server listens before the application is built and attaches its handler; a request in
  // between (a health probe at start-up) would hang forever. It is held and handed over instead.
  let held: Array<readonly [IncomingMessage, ServerResponse]> | undefined = []
  const serve = (request: IncomingMessage, response: ServerResponse) => {
    if (request.headers.upgrade !== undefined) {
      response.writeHead(400, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(upgradeRefused),
        connection: "close"
      }).end(upgradeRefused)
    } else if (held !== undefined) held.push([request, response])
    else server.dispatch(request, response)
  }
  server.admit = (request, response) => {
    connections.started(request, response)
    if (request.url !== undefined && !request.url.startsWith("/")) request.url = originForm(request.url)
    response.setHeader("x-content-type-options", "nosniff")
    response.setHeader("referrer-policy", "no-referrer")
    // while the server stops, each answer is the last on its connection
    if (state.draining) {
      state.lastRequestAt = Date.now()
      response.setHeader("connection", "close")
    }
    allowCrossOrigin(request, response)
    observeResponse(request, response, state.log)
    // One request at a time per connection: Node gives a pipelined request's response the
    // connection once the answer before it is written in full, and only then is it served, so a
    // client that does not read holds back only itself.
    if (response.socket === null) response.once("socket", () => serve(request, response))
    else serve(request, response)
  }
  server.on("clientError", answerClientError)
  server.on("newListener", (event: string | symbol) => {
    if (event !== "request" || held === undefined) return
    const waiting = held
    held = undefined
    process.nextTick(() => waiting.forEach(([request, response]) => server.dispatch(request, response)))
  })
  return server
}
interface DrainState {
  draining: boolean
  lastRequestAt: number
  /** The open connections (`limitConnections` tracks them). */
  readonly sockets: () => Iterable<Socket>
  /** Where each request's line goes, once `RequestLoggingLive` says. */
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
  Effect.callback<void>((resume) => {
    const state = servers.get(server)
    if (state === undefined || !server.listening) return resume(Effect.void)
    state.draining = true
    state.lastRequestAt = Date.now()
    for (const socket of state.sockets()) {
      const response = responseOn(socket)
      if (response !== undefined && !response.headersSent) response.setHeader("connection", "close")
    }
    const startedAt = Date.now()
    const watch = setInterval(() => {
      const now = Date.now()
      const inFlight = [...state.sockets()].some((socket) => responseOn(socket) !== undefined)
      if (now - startedAt >= DRAIN_MS) server.closeAllConnections()
      else if (!inFlight && now - state.lastRequestAt >= QUIET_MS) server.closeIdleConnections()
    }, 50)
    NetServer.prototype.close.call(server, () => {
      clearInterval(watch)
      resume(Effect.void)
    })
  }).pipe(Effect.withSpan("HttpServer.drain"))

/** The Node server of the API. */
export class NodeServer extends Context.Service<NodeServer, Server>()("NodeServer") {}

/**
 * A log line of the caps on connections (with the logger of `context`): the first at once, then
 * at most one a minute with the counts since the last.
 */
const logCapCounts = (context: Context.Context<never>, log: (message: string) => Effect.Effect<void>, message: string) => {
  const run = Effect.runSyncWith(context)
  return ({ overMaxConnections, overMaxConnectionsPerAddress }: CapCounts) =>
    run(log(message).pipe(
      Effect.annotateLogs({
        over_max_connections: overMaxConnections,
        over_max_connections_per_address: overMaxConnectionsPerAddress
      })
    ))
}

/**
 * The API's Node server listening on `listen`, also as the platform's `HttpServer`; refused
 * connections are logged as warnings, idle ones closed to make room as information (a shared
 * address at its cap, served).
 */
export const nodeServerLayer = (
  listen: ListenOptions,
  options: Partial<Omit<ServerOptions, "reportRefusals" | "reportIdleClosed">> = {}
) =>
  Layer.unwrap(Effect.map(NodeServer, (server) => NodeHttpServer.layer(() => server, listen))).pipe(
    Layer.provideMerge(Layer.effect(
      NodeServer,
      Effect.map(Effect.context<never>(), (context) => {
        const logRefusals = logCapCounts(context, Effect.logWarning, "connections refused: MAX_CONNECTIONS or MAX_CONNECTIONS_PER_ADDRESS reached")
        return createHttpServer({
          ...options,
          reportRefusals: (refused) => {
            Metrics.requestsRefused({ reason: "connections" }).modifyUnsafe(
              refused.overMaxConnections + refused.overMaxConnectionsPerAddress,
              context
            )
            logRefusals(refused)
          },
          reportIdleClosed: logCapCounts(
            context,
            Effect.logInfo,
            "idle keep-alive connections closed to make room: MAX_CONNECTIONS or MAX_CONNECTIONS_PER_ADDRESS reached"
          )
        })
      })
    ))
  )

/**
 * Drains the server when the service stops. Built after the application is served, it is
 * released before it: requests are answered while the services under them still run.
 */
export const DrainLive = Layer.effectDiscard(
  Effect.flatMap(NodeServer, (server) =>
    Effect.addFinalizer(() =>
      Effect.logInfo("stopping: answering the requests in flight").pipe(
        Effect.andThen(drain(server)),
        Effect.andThen(Effect.logInfo("stopped serving"))
      )
    ))
)

/**
 * One log line per request of `server` (made by `createHttpServer`), while the scope is open. It
 * is written from the server's own response events, outside the Effect runtime: so every answer
 * has its line, those no application writes (an upgrade refused) and those its client left before
 * (499) included, and its duration runs until the answer is written in full.
 */
export const logRequestsOf = (server: Server, log: RequestLogLine) => {
  const state = servers.get(server)
  return state === undefined
    ? Effect.die(new Error("the request log needs a server made by createHttpServer"))
    : Effect.acquireRelease(Effect.sync(() => state.log = log), () => Effect.sync(() => delete state.log))
}

/** Each request of the API's Node server logged through `RequestLog`, when one is set. */
export const RequestLoggingLive = Layer.effectDiscard(Effect.gen(function*() {
  const log = yield* RequestLog
  if (log !== undefined) yield* logRequestsOf(yield* NodeServer, log)
}))
