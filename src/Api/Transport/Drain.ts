import { Effect } from "effect"
import type { Server, ServerResponse } from "node:http"
import { Server as NetServer } from "node:net"
import type { Connections } from "./Connections.js"

/** Requests still unanswered this long after a stop began are cut off: the whole exit stays within 10 s. */
const DRAIN_MS = 8_000
/** A connection that carried no request for this long while nothing is in flight is closed: its client has gone quiet. */
const QUIET_MS = 250

/**
 * A server's graceful stop (docs/operations.md#stopping): once `run` starts, each answer is
 * the last on its connection (`Connection: close`), and `run` waits for the clients to go quiet.
 */
export class Drain {
  #draining = false
  #lastRequestAt = 0

  constructor(private readonly server: Server, private readonly connections: Connections) {}

  /** A request is being admitted: while the server stops, its answer closes its connection. */
  admitted(response: ServerResponse) {
    if (!this.#draining) return
    this.#lastRequestAt = Date.now()
    response.setHeader("connection", "close")
  }

  /**
   * The server accepts no new connection; every request in flight, and every request that still
   * arrives on an open keep-alive connection, is answered with `Connection: close`, so its client
   * learns the connection ends and opens no other. Once nothing is in flight and the clients have
   * gone quiet, the idle connections are closed; after `DRAIN_MS` whatever is left is cut. It
   * resolves when the last connection has closed.
   *
   * `http.Server#close` would close the idle keep-alive connections at once, racing a client that
   * is sending its next request on one (it would see a reset, the request lost): the listening
   * socket alone is closed here, through `net.Server#close`.
   */
  readonly run: Effect.Effect<void> = Effect.callback<void>((resume) => {
    const { connections, server } = this
    if (!server.listening) return resume(Effect.void)
    this.#draining = true
    this.#lastRequestAt = Date.now()
    const answering = function*() {
      for (const socket of connections.sockets()) yield* connections.answering(socket)
    }
    for (const response of answering()) {
      if (!response.headersSent) response.setHeader("connection", "close")
    }
    const startedAt = Date.now()
    const watch = setInterval(() => {
      const now = Date.now()
      if (now - startedAt >= DRAIN_MS) server.closeAllConnections()
      else if (answering().next().done === true && now - this.#lastRequestAt >= QUIET_MS) server.closeIdleConnections()
    }, 50)
    NetServer.prototype.close.call(server, () => {
      clearInterval(watch)
      resume(Effect.void)
    })
  }).pipe(Effect.withSpan("HttpServer.drain"))
}
