import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Layer, Scope } from "effect"
import { HttpServer } from "effect/http"
import { ServeError } from "effect/http/HttpServerError"
import * as NetAddress from "effect/net/NetAddress"
import { IncomingMessage, Server } from "node:http"
import type { ListenOptions } from "node:net"
import { defaultConnectionLimits } from "../../Layers/Platform/AppConfig.js"
import { RequestLog, type RequestLogLine } from "../../Layers/Platform/Logging.js"
import * as Metrics from "../../Layers/Platform/Metrics.js"
import { Admission, type RequestHandler } from "./Admission.js"
import { ApiResponse } from "./ApiResponse.js"
import { answerClientErrors } from "./ClientErrors.js"
import { type CapCounts, type ConnectionLimits, limitConnections } from "./Connections.js"
import { Drain } from "./Drain.js"

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
 * The API's Node server (`node`), with its own choices made: timeouts, caps on connections
 * (`Connections`), what each request goes through before the application (`Admission`), the
 * answers to requests Node's parser refuses (`ClientErrors`) and a graceful stop (`Drain`).
 * The application is attached with `serve`.
 */
export class ApiServer {
  readonly node: Server<typeof IncomingMessage, typeof ApiResponse>
  readonly #admission: Admission
  readonly #drain: Drain

  constructor(options: ServerOptions) {
    this.node = new Server<typeof IncomingMessage, typeof ApiResponse>({
      ServerResponse: ApiResponse,
      headersTimeout: options.headersTimeoutMs,
      requestTimeout: options.requestTimeoutMs,
      keepAliveTimeout: KEEP_ALIVE_MS,
      connectionsCheckingInterval: CHECK_TIMEOUTS_EVERY_MS
    })
    // Node sets it on each connection, and again after each keep-alive wait
    this.node.timeout = options.writeTimeoutMs
    const connections = limitConnections(this.node, options, {
      everyMs: options.capReportMs,
      refusals: options.reportRefusals,
      idleClosed: options.reportIdleClosed
    })
    this.#drain = new Drain(this.node, connections)
    this.#admission = new Admission(connections, this.#drain)
    this.node.on("request", this.#admission.admit)
    this.node.on("clientError", answerClientErrors(connections))
  }

  /** Hands each request to `handler` once admitted, the ones that arrived before first. */
  serve(handler: RequestHandler) {
    this.#admission.serve(handler)
  }

  /** Holds each request from now on, as before `serve`: the application is gone. */
  withdraw() {
    this.#admission.withdraw()
  }

  /** The graceful stop (`Drain`): it resolves when the last connection has closed. */
  get drain(): Effect.Effect<void> {
    return this.#drain.run
  }

  /**
   * One log line per request, while the scope is open. It is written from the server's own
   * response events, outside the Effect runtime: so every answer has its line, those no
   * application writes (an upgrade refused) and those its client left before (499) included,
   * and its duration runs until the answer is written in full.
   */
  logRequests(log: RequestLogLine): Effect.Effect<void, never, Scope.Scope> {
    const admission = this.#admission
    return Effect.acquireRelease(Effect.sync(() => admission.log = log), () => Effect.sync(() => admission.log = undefined))
  }
}

export const createHttpServer = (overrides: Partial<ServerOptions> = {}): ApiServer =>
  new ApiServer({ ...defaultServerOptions, ...overrides })

/** The Node server of the API. */
export class NodeServer extends Context.Service<NodeServer, ApiServer>()("NodeServer") {}

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
 * `server` listening on `listen` until the scope closes, as the platform's `HttpServer`: an
 * application served is handed each admitted request (`ApiServer#serve`) through the platform's
 * own handler, and withdrawn when its scope closes. Node's `request` event stays the server's
 * own: the platform's `NodeHttpServer.layer` would attach its handler there, and its `upgrade`
 * and `checkContinue` handlers past the admission.
 */
const listening = (server: ApiServer, listen: ListenOptions) =>
  Effect.gen(function*() {
    const { node } = server
    yield* Effect.acquireRelease(
      Effect.callback<void, ServeError>((resume) => {
        const refused = (cause: Error) => resume(Effect.fail(new ServeError({ cause })))
        node.once("error", refused)
        node.listen(listen, () => {
          node.off("error", refused)
          resume(Effect.void)
        })
      }),
      // after a drain nothing is left to close
      () => Effect.callback<void>((resume) => node.listening ? void node.close(() => resume(Effect.void)) : resume(Effect.void))
    )
    const bound = node.address()
    const address = typeof bound === "string" || bound === null
      ? NetAddress.unixPathAddress(String(bound))
      : NetAddress.inetAddressFromIpStringUnsafe(bound.address, bound.port)
    return HttpServer.make({
      address,
      serve: (app, middleware) =>
        Effect.gen(function*() {
          const scope = Scope.forkUnsafe(yield* Effect.scope, "parallel")
          server.serve(yield* NodeHttpServer.makeHandler(app, { middleware, scope }))
          yield* Effect.addFinalizer(() => Effect.sync(() => server.withdraw()))
        })
    })
  })

/**
 * The API's Node server listening on `listen`, also as the platform's `HttpServer` (with its
 * Node services); refused connections are logged as warnings, idle ones closed to make room as
 * information (a shared address at its cap, served).
 */
export const nodeServerLayer = (
  listen: ListenOptions,
  options: Partial<Omit<ServerOptions, "reportRefusals" | "reportIdleClosed">> = {}
) =>
  Layer.effect(HttpServer.HttpServer, Effect.flatMap(NodeServer, (server) => listening(server, listen))).pipe(
    Layer.merge(NodeHttpServer.layerHttpServices),
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
        Effect.andThen(server.drain),
        Effect.andThen(Effect.logInfo("stopped serving"))
      )
    ))
)

/** Each request of the API's Node server logged through `RequestLog`, when one is set. */
export const RequestLoggingLive = Layer.effectDiscard(Effect.gen(function*() {
  const log = yield* RequestLog
  if (log !== undefined) yield* (yield* NodeServer).logRequests(log)
}))
