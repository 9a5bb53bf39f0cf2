import { Agent, request, type Server } from "node:http"
import type { ApiServer } from "../../src/Api/Transport/Server.js"

/**
 * Answers `ok` to each request of `server`, the first `count` all together once the last of them
 * has arrived: `count` requests sent at once each get a connection of their own, which stays open,
 * idle, after its answer.
 */
export const answeringTogether = (server: ApiServer, count: number): Server => {
  let waiting = count
  const held: Array<() => void> = []
  server.serve((request, response) =>
    request.resume().on("end", () => {
      if (waiting === 0) return response.end("ok")
      held.push(() => response.end("ok"))
      if (--waiting === 0) held.forEach((answer) => answer())
    }))
  return server.node
}

/**
 * A guest's keep-alive client at `from`, as Node's agent or a browser: connections stay open after
 * an answer for the next request, and one the server closed meanwhile is opened again.
 * `getAtOnce(count)`: `count` GET requests sent at once, their statuses, or the first error.
 */
export const keepAliveClient = (port: number, from: string) => {
  const agent = new Agent({ keepAlive: true, localAddress: from })
  const get = () =>
    new Promise<number>((resolve, reject) =>
      request({ host: "127.0.0.1", port, path: "/", agent }, (response) => response.resume().on("end", () => resolve(response.statusCode!)))
        .on("error", reject)
        .end()
    )
  return { agent, getAtOnce: (count: number) => Promise.all(Array.from({ length: count }, get)) }
}
