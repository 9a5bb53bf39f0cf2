import type { Server, Socket } from "node:net"
import { plainAddress } from "../../Domain/ClientAddress.js"

/** The connections a server holds at once (DESIGN §13): `MAX_CONNECTIONS`, `MAX_CONNECTIONS_PER_ADDRESS`. */
export interface ConnectionLimits {
  readonly maxConnections: number
  readonly maxConnectionsPerAddress: number
  /** The hotel's reverse proxies: every guest comes through them, so no cap per address holds them. */
  readonly trustedProxies: ReadonlyArray<string>
}

/** Connections closed at once since the last report, by the cap they met. */
export interface Refusals {
  readonly overMaxConnections: number
  readonly overMaxConnectionsPerAddress: number
}

const none: Refusals = { overMaxConnections: 0, overMaxConnectionsPerAddress: 0 }

/**
 * `report` at once for the first refusal, then at most once every `everyMs` with what was refused
 * meanwhile: a flood of refusals is one line a minute, not one line a connection.
 */
const reportAtMostEvery = (everyMs: number, report: (refusals: Refusals) => void) => {
  let refused = none
  let timer: ReturnType<typeof setTimeout> | undefined
  const flush = () => {
    timer = undefined
    if (refused === none) return
    report(refused)
    refused = none
    timer = setTimeout(flush, everyMs).unref()
  }
  return (cap: keyof Refusals) => {
    refused = { ...refused, [cap]: refused[cap] + 1 }
    if (timer === undefined) flush()
  }
}

/**
 * Caps the connections `server` holds: one beyond `maxConnections` is closed by Node before it is
 * read (its `drop` event), one beyond `maxConnectionsPerAddress` from its address as soon as it is
 * accepted. Without them 20,000 silent sockets of one client reset every other client's requests.
 */
export const limitConnections = (
  server: Server,
  limits: ConnectionLimits,
  report: { readonly everyMs: number; readonly refusals: (refusals: Refusals) => void }
) => {
  const refused = reportAtMostEvery(report.everyMs, report.refusals)
  const trusted = new Set(limits.trustedProxies)
  const held = new Map<string, number>()
  server.maxConnections = limits.maxConnections
  server.on("drop", () => refused("overMaxConnections"))
  server.on("connection", (socket: Socket) => {
    // no address: the client is already gone
    if (socket.remoteAddress === undefined) return
    const address = plainAddress(socket.remoteAddress)
    if (trusted.has(address)) return
    const count = held.get(address) ?? 0
    if (count >= limits.maxConnectionsPerAddress) {
      socket.destroy()
      return refused("overMaxConnectionsPerAddress")
    }
    held.set(address, count + 1)
    socket.once("close", () => {
      const left = (held.get(address) ?? 1) - 1
      if (left === 0) held.delete(address)
      else held.set(address, left)
    })
  })
}
