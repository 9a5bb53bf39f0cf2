import type { IncomingMessage, ServerResponse } from "node:http"
import type { Server, Socket } from "node:net"
import { plainAddress } from "../../Domain/ClientAddress.js"

/** The connections a server holds at once (docs/decisions.md#connections): `MAX_CONNECTIONS`, `MAX_CONNECTIONS_PER_ADDRESS`. */
export interface ConnectionLimits {
  readonly maxConnections: number
  readonly maxConnectionsPerAddress: number
  /** The hotel's reverse proxies: every guest comes through them, so no cap per address holds them. */
  readonly trustedProxies: ReadonlyArray<string>
}

/** Connections since the last report, by the cap they met: new ones refused, or idle ones closed to make room. */
export interface CapCounts {
  readonly overMaxConnections: number
  readonly overMaxConnectionsPerAddress: number
}

const none: CapCounts = { overMaxConnections: 0, overMaxConnectionsPerAddress: 0 }

/**
 * `report` at once for the first count, then at most once every `everyMs` with what was counted
 * meanwhile: a flood is one line a minute, not one line a connection.
 */
const reportAtMostEvery = (everyMs: number, report: (counts: CapCounts) => void) => {
  let counted = none
  let timer: ReturnType<typeof setTimeout> | undefined
  const flush = () => {
    timer = undefined
    if (counted === none) return
    report(counted)
    counted = none
    timer = setTimeout(flush, everyMs).unref()
  }
  return (cap: keyof CapCounts) => {
    counted = { ...counted, [cap]: counted[cap] + 1 }
    if (timer === undefined) flush()
  }
}

/**
 * A connection is busy from the moment it is accepted (reading its first request) until its
 * answers are written, and again from the first byte of a next request; idle in between, while
 * the client keeps it open for a next request. Node keeps no public flag of it: requests are
 * counted here from `started` to their response's `close`. The first bytes of a next request
 * raise no event before its headers are whole, so an idle connection whose `bytesRead` grew since
 * it went idle has begun a request: it is busy, never closed as idle.
 */
interface Connection {
  readonly socket: Socket
  /** Its address, as the cap per address counts it; undefined for a trusted proxy. */
  readonly address: string | undefined
  /** Its requests not yet answered in full, in the order they arrived. */
  readonly responses: Set<ServerResponse>
  /** `socket.bytesRead` when it went idle; undefined while it is busy. */
  idleAt: number | undefined
}

/** What one address holds: how many connections, and its idle ones, oldest idle first. */
interface Held {
  count: number
  readonly idle: Set<Connection>
}

/**
 * Caps the connections `server` holds (docs/decisions.md#connections): without caps, 20,000 silent sockets of one
 * client reset every other client's requests. Only busy connections can keep a new one out: many
 * guests share one address, and each browser keeps up to 6 idle keep-alive connections for 65 s
 * (64 of them reset the next guest of that address). When an address holds
 * `maxConnectionsPerAddress`, or the server `maxConnections`, a new connection first closes that
 * address's (or any address's) oldest idle one, the least likely to be reused (clients reuse their
 * most recent); it is refused only when all are busy. A client whose idle connection was closed
 * opens another for its next request, as Node's agent and browsers do.
 *
 * Node's own `server.maxConnections` is not used: it drops a connection before it can be seen, so
 * no idle one could be closed in its place. A connection refused is closed before a byte of it
 * is read.
 */
export const limitConnections = (
  server: Server,
  limits: ConnectionLimits,
  report: {
    readonly everyMs: number
    readonly refusals: (refused: CapCounts) => void
    readonly idleClosed: (closed: CapCounts) => void
  }
) => {
  const refused = reportAtMostEvery(report.everyMs, report.refusals)
  const idleClosed = reportAtMostEvery(report.everyMs, report.idleClosed)
  const trusted = new Set(limits.trustedProxies)
  const connections = new Map<Socket, Connection>()
  /** Every idle connection, oldest idle first (a `Set` iterates in insertion order). */
  const idle = new Set<Connection>()
  const byAddress = new Map<string, Held>()

  const busy = (connection: Connection) => {
    connection.idleAt = undefined
    idle.delete(connection)
    if (connection.address !== undefined) byAddress.get(connection.address)!.idle.delete(connection)
  }
  const forget = (connection: Connection) => {
    if (!connections.delete(connection.socket)) return
    busy(connection)
    if (connection.address === undefined) return
    const held = byAddress.get(connection.address)!
    held.count -= 1
    if (held.count === 0) byAddress.delete(connection.address)
  }
  /** Closes the oldest of `candidates` still idle; false when none is. */
  const closeOldestIdle = (candidates: Set<Connection>) => {
    for (const connection of candidates) {
      if (connection.socket.bytesRead > connection.idleAt!) {
        busy(connection)
        continue
      }
      forget(connection)
      connection.socket.destroy()
      return true
    }
    return false
  }

  /**
   * Makes room for `connection`, already counted, or closes it: decided once the server has read
   * what its connections sent meanwhile (`setImmediate` runs after this turn's reads, before any
   * byte of the new connection is read), so a connection whose next request has just arrived is
   * busy, not closed as idle.
   */
  const makeRoomFor = (connection: Connection) => {
    const fits = (over: boolean, idleOnes: Set<Connection>, cap: keyof CapCounts) => {
      if (!over) return true
      if (closeOldestIdle(idleOnes)) {
        idleClosed(cap)
        return true
      }
      forget(connection)
      connection.socket.destroy()
      refused(cap)
      return false
    }
    // gone meanwhile
    if (!connections.has(connection.socket)) return
    const held = connection.address === undefined ? undefined : byAddress.get(connection.address)!
    if (held !== undefined && !fits(held.count > limits.maxConnectionsPerAddress, held.idle, "overMaxConnectionsPerAddress")) return
    fits(connections.size > limits.maxConnections, idle, "overMaxConnections")
  }

  server.on("connection", (socket: Socket) => {
    // no address: the client is already gone
    if (socket.remoteAddress === undefined) return
    const peer = plainAddress(socket.remoteAddress)
    const connection: Connection = { socket, address: trusted.has(peer) ? undefined : peer, responses: new Set(), idleAt: undefined }
    connections.set(socket, connection)
    if (connection.address !== undefined) {
      const held = byAddress.get(connection.address) ?? { count: 0, idle: new Set() }
      held.count += 1
      byAddress.set(connection.address, held)
    }
    socket.once("close", () => forget(connection))
    setImmediate(() => makeRoomFor(connection))
  })

  return {
    /** The open connections (a refused one only until it is closed, in the same turn). */
    sockets: () => connections.keys(),
    /** The answers `socket` is writing or will write, none once each is over (or for a socket not held). */
    answering: (socket: Socket): Iterable<ServerResponse> => connections.get(socket)?.responses ?? [],
    /** `request` has arrived (Node has parsed its headers): its connection is busy until `response` is over. */
    started: (request: IncomingMessage, response: ServerResponse) => {
      const connection = connections.get(request.socket)
      if (connection === undefined) return
      connection.responses.add(response)
      busy(connection)
      // `on`, not `once`: a response closes once, and a once-listener costs a wrapper and its removal on every request
      response.on("close", () => {
        connection.responses.delete(response)
        // still busy, or closing (its client left, or the answer said `Connection: close`)
        if (connection.responses.size > 0 || !connection.socket.writable) return
        connection.idleAt = connection.socket.bytesRead
        idle.add(connection)
        if (connection.address !== undefined) byAddress.get(connection.address)!.idle.add(connection)
      })
    }
  }
}

/** The connections of a server, as `limitConnections` holds them. */
export type Connections = ReturnType<typeof limitConnections>
