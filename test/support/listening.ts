import type { Server } from "node:http"
import type { AddressInfo } from "node:net"

/** `server` listening on the loopback, on a port of its own: that port. */
export const listening = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return (server.address() as AddressInfo).port
}

/** `server` closed, with every connection it still held. */
export const closing = async (server: Server) => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
}
