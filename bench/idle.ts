/**
 * `npx tsx bench/idle.ts`: guests behind one address (docs/decisions.md#connections), in this
 * process on loopback. A keep-alive client of 127.0.0.1 makes `idle` requests at once, so it
 * leaves as many idle connections; then 20 new guests of the same address, one after another, each
 * on a connection of its own: the status lines they got, how long each waited for its answer (ms:
 * min, median, max), and how many of the first client's next `idle` requests failed (its agent
 * reopens what was closed). Three cases: 64 idle connections under the default caps, 500 under a
 * total cap of 500 (`MAX_CONNECTIONS`), and 500 under a cap per address of 500.
 */
import { type AddressInfo, connect } from "node:net"
import { createHttpServer, type ServerOptions } from "../src/Api/Transport/Server.js"
import { answeringTogether, keepAliveClient } from "../test/support/keepAlive.js"

const GUESTS = 20

/** One request with `Connection: close` from `from`: the status line of its answer ("" when reset). */
const newGuest = (port: number, from: string) =>
  new Promise<string>((resolve) => {
    let answer = ""
    const socket = connect({ port, host: "127.0.0.1", localAddress: from }, () =>
      socket.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
    socket.on("data", (chunk) => answer += chunk).on("error", () => {}).on("close", () => resolve(answer.split("\r\n")[0]!))
  })

const measure = async (idle: number, limits: Partial<ServerOptions>) => {
  const server = answeringTogether(createHttpServer(limits), idle)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  const client = keepAliveClient(port, "127.0.0.1")
  await client.getAtOnce(idle)
  const ms: Array<number> = []
  const statuses = new Set<string>()
  for (let i = 0; i < GUESTS; i++) {
    const started = performance.now()
    statuses.add(await newGuest(port, "127.0.0.1"))
    ms.push(performance.now() - started)
  }
  const again = await Promise.allSettled(Array.from({ length: idle }, () => client.getAtOnce(1)))
  ms.sort((a, b) => a - b)
  console.log(JSON.stringify({
    idle,
    limits,
    newGuests: [...statuses],
    ms: { min: ms[0]!.toFixed(2), median: ms[GUESTS / 2]!.toFixed(2), max: ms[GUESTS - 1]!.toFixed(2) },
    firstClientFailedAfter: again.filter((outcome) => outcome.status === "rejected").length
  }))
  client.agent.destroy()
  server.closeAllConnections()
  server.close()
}

await measure(64, {})
await measure(500, { maxConnections: 500, maxConnectionsPerAddress: 1_000 })
await measure(500, { maxConnectionsPerAddress: 500 })
