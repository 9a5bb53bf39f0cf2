import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Logger, References } from "effect"
import type { Server } from "node:http"
import { type AddressInfo, connect, type Socket } from "node:net"
import type { CapCounts } from "../../src/Api/Transport/Connections.js"
import { type ApiServer, createHttpServer, defaultServerOptions, NodeServer, nodeServerLayer } from "../../src/Api/Transport/Server.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { RequestLog, type RequestEntry } from "../../src/Layers/Platform/Logging.js"
import { eventually } from "../support/eventually.js"
import { answeringTogether, keepAliveClient } from "../support/keepAlive.js"
import { baseUrl, TestApp } from "../support/TestApp.js"
import { closing, listening } from "../support/listening.js"

/*
 * The server's own defences (docs/decisions.md#abuse), attacked on raw sockets. Linux routes all of 127/8 to
 * the loopback: a socket bound to 127.0.0.2 is another client address.
 */

const until = async (check: () => boolean | Promise<boolean>) => {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10))
}
const connectionsOf = (server: Server) => new Promise<number>((resolve) => server.getConnections((_, count) => resolve(count)))

/** A connection from `from`, open once the server has accepted it. */
const open = (port: number, from = "127.0.0.1") =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", localAddress: from }, () => resolve(socket))
    socket.on("error", reject)
  })

/** Resolves when `socket` is closed by the server (or fails): what it read until then. */
const closedBy = (socket: Socket) =>
  new Promise<string>((resolve) => {
    let answer = ""
    socket.on("data", (chunk) => answer += chunk.toString()).on("error", () => {}).on("close", () => resolve(answer))
  })

/** One request with `Connection: close` on a connection from `from`: the whole answer. */
const exchange = async (port: number, from: string, path = "/") => {
  const socket = await open(port, from)
  const answer = closedBy(socket)
  socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
  return answer
}

/** Answers `ok` once it has read the request, as the application does. */
const served = (server: ApiServer): Server => {
  server.serve((request, response) => request.resume().on("end", () => response.end("ok")))
  return server.node
}

describe("connections held at once", () => {
  it("one more than MAX_CONNECTIONS_PER_ADDRESS busy ones from one address is closed at once; other addresses and the trusted proxies are served", async () => {
    const refusals: Array<CapCounts> = []
    const server = served(createHttpServer({
      maxConnectionsPerAddress: 3,
      trustedProxies: ["127.0.0.3"],
      reportRefusals: (refused) => void refusals.push(refused)
    }))
    const port = await listening(server)
    try {
      const held = await Promise.all([1, 2, 3].map(() => open(port)))
      const beyond = await open(port)
      expect(await closedBy(beyond)).toBe("")
      expect(await exchange(port, "127.0.0.2")).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nok$/)
      // a proxy carries every guest: it is held to no cap of its own
      const proxied = await Promise.all([1, 2, 3, 4, 5].map(() => exchange(port, "127.0.0.3")))
      expect(proxied.map((answer) => answer.slice(0, 15))).toEqual(Array(5).fill("HTTP/1.1 200 OK"))
      expect(refusals).toEqual([{ overMaxConnections: 0, overMaxConnectionsPerAddress: 1 }])
      // once one closes, the address has room again
      held[0]!.destroy()
      let answer = ""
      while (!answer.startsWith("HTTP/1.1 200")) answer = await exchange(port, "127.0.0.1")
      held.forEach((socket) => socket.destroy())
    } finally {
      await closing(server)
    }
  })

  it("one more than MAX_CONNECTIONS busy ones in all is closed at once", async () => {
    const refusals: Array<CapCounts> = []
    const server = served(createHttpServer({ maxConnections: 2, reportRefusals: (refused) => void refusals.push(refused) }))
    const port = await listening(server)
    try {
      const held = [await open(port, "127.0.0.1"), await open(port, "127.0.0.2")]
      expect(await exchange(port, "127.0.0.3")).toBe("")
      expect(refusals).toEqual([{ overMaxConnections: 1, overMaxConnectionsPerAddress: 0 }])
      held.forEach((socket) => socket.destroy())
    } finally {
      await closing(server)
    }
  })

  it.live("a refusal is logged at once, the next ones counted in one line a while later", () => {
    const lines: Array<{ level: string; message: unknown; annotations: Record<string, unknown> }> = []
    const capture = Logger.make(({ fiber, logLevel, message }) =>
      lines.push({ level: logLevel.toUpperCase(), message, annotations: { ...fiber.getRef(References.CurrentLogAnnotations) } })
    )
    return Effect.gen(function*() {
      const { port } = (yield* NodeServer).node.address() as AddressInfo
      const held = yield* Effect.promise(() => open(port))
      yield* Effect.promise(() => closedBy(connect(port, "127.0.0.1")))
      expect(lines).toHaveLength(1)
      yield* Effect.promise(() => Promise.all([1, 2].map(() => closedBy(connect(port, "127.0.0.1")))))
      yield* eventually(Effect.sync(() => lines.length === 2))
      held.destroy()
      const said = {
        level: "WARN",
        message: ["connections refused: MAX_CONNECTIONS or MAX_CONNECTIONS_PER_ADDRESS reached"],
        annotations: { over_max_connections: 0, over_max_connections_per_address: 1 }
      }
      expect(lines).toEqual([said, { ...said, annotations: { ...said.annotations, over_max_connections_per_address: 2 } }])
    }).pipe(
      Effect.provide(
        nodeServerLayer({ host: "127.0.0.1", port: 0 }, { maxConnectionsPerAddress: 1, capReportMs: 1_000 }).pipe(
          Layer.provide(Logger.layer([capture]))
        )
      )
    )
  })
})

/** Connections of `server` (the server's side), as it accepts them. */
const acceptedBy = (server: Server) => {
  const sockets: Array<Socket> = []
  server.on("connection", (socket: Socket) => void sockets.push(socket))
  return sockets
}

/** A keep-alive connection from `from` that has had one request answered, and is left open. */
const idleAfterOneRequest = async (port: number, from: string) => {
  const socket = await open(port, from)
  await new Promise<void>((resolve) => {
    socket.on("data", (chunk) => chunk.toString().endsWith("ok") && resolve())
    socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
  })
  return socket
}

/** A request head that never ends, sent one byte at a time (a slowloris); `stop` ends the dripping. */
const drip = (socket: Socket, everyMs = 50) => {
  socket.write("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
  const timer = setInterval(() => socket.write("a"), everyMs)
  return () => clearInterval(timer)
}

describe("guests behind one address (docs/decisions.md#connections)", () => {
  it.each([
    { sockets: 64, limits: {} },
    // as many as the server holds in all: the new guest's room comes from MAX_CONNECTIONS
    { sockets: 500, limits: { maxConnections: 500, maxConnectionsPerAddress: 1_000 } }
  ])("$sockets idle keep-alive connections of one address never keep its next guest out; their client reconnects", async ({ limits, sockets }) => {
    const closed: Array<CapCounts> = []
    const server = answeringTogether(createHttpServer({ ...limits, reportIdleClosed: (counts) => void closed.push(counts) }), sockets)
    const port = await listening(server)
    const client = keepAliveClient(port, "127.0.0.1")
    try {
      expect(await client.getAtOnce(sockets)).toEqual(Array(sockets).fill(200))
      expect(await connectionsOf(server)).toBe(sockets)
      // another guest of the same address, and then another
      expect((await exchange(port, "127.0.0.1")).slice(0, 15)).toBe("HTTP/1.1 200 OK")
      expect((await exchange(port, "127.0.0.1")).slice(0, 15)).toBe("HTTP/1.1 200 OK")
      expect(closed).toHaveLength(1)
      // the first guest's connections that were closed are opened again, the others reused
      expect(await client.getAtOnce(sockets)).toEqual(Array(sockets).fill(200))
    } finally {
      client.agent.destroy()
      await closing(server)
    }
  }, 30_000)

  it("a connection that has begun its next request is busy: a slowloris stays capped, its address refused, another served", async () => {
    const refusals: Array<CapCounts> = []
    const server = served(createHttpServer({ maxConnectionsPerAddress: 3, reportRefusals: (refused) => void refusals.push(refused) }))
    const accepted = acceptedBy(server)
    const port = await listening(server)
    const stops: Array<() => void> = []
    try {
      // one connection answered once, then half a next request; two new ones dripping their heads
      const halfway = await idleAfterOneRequest(port, "127.0.0.1")
      const read = accepted[0]!.bytesRead
      halfway.write("GET / HTTP/1.1\r\nHo")
      await until(() => accepted[0]!.bytesRead > read)
      const slow = await Promise.all([1, 2].map(() => open(port)))
      stops.push(...slow.map((socket) => drip(socket)))
      expect(await closedBy(await open(port))).toBe("")
      expect(refusals).toEqual([{ overMaxConnections: 0, overMaxConnectionsPerAddress: 1 }])
      expect(accepted.slice(0, 3).map((socket) => socket.destroyed)).toEqual([false, false, false])
      expect((await exchange(port, "127.0.0.2")).slice(0, 15)).toBe("HTTP/1.1 200 OK")
      ;[halfway, ...slow].forEach((socket) => socket.destroy())
    } finally {
      stops.forEach((stop) => stop())
      await closing(server)
    }
  })

  it("a request that arrives together with a new connection is served: its connection is busy, not closed as idle", async () => {
    const refusals: Array<CapCounts> = []
    const api = createHttpServer({ maxConnectionsPerAddress: 1, reportRefusals: (refused) => void refusals.push(refused) })
    // answered a moment later, as a real handler is: the request is under way when the newcomer is decided on
    api.serve((_, response) => setTimeout(() => response.end("ok"), 20))
    const server = api.node
    const port = await listening(server)
    try {
      const reused = await idleAfterOneRequest(port, "127.0.0.1")
      const answer = closedBy(reused)
      const newcomer = closedBy(connect({ port, host: "127.0.0.1", localAddress: "127.0.0.1" }))
      // after the connect, which Node makes on the next tick: the server is told of both at once, the connection first
      process.nextTick(() => reused.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
      expect((await answer).slice(0, 15)).toBe("HTTP/1.1 200 OK")
      expect(await newcomer).toBe("")
      expect(refusals).toEqual([{ overMaxConnections: 0, overMaxConnectionsPerAddress: 1 }])
    } finally {
      await closing(server)
    }
  })

  it.live("closing idle connections is logged for each cap: at once, then counted in one line a while later; the oldest idle goes first", () => {
    const lines: Array<{ level: string; message: unknown; annotations: Record<string, unknown> }> = []
    const capture = Logger.make(({ fiber, logLevel, message }) =>
      lines.push({ level: logLevel.toUpperCase(), message, annotations: { ...fiber.getRef(References.CurrentLogAnnotations) } })
    )
    const closedIdle = (overMaxConnections: number, overMaxConnectionsPerAddress: number) => ({
      level: "INFO",
      message: ["idle keep-alive connections closed to make room: MAX_CONNECTIONS or MAX_CONNECTIONS_PER_ADDRESS reached"],
      annotations: { over_max_connections: overMaxConnections, over_max_connections_per_address: overMaxConnectionsPerAddress }
    })
    return Effect.gen(function*() {
      const server = served(yield* NodeServer)
      const { port } = server.address() as AddressInfo
      const [older, newer] = yield* Effect.promise(async () => {
        const older = await idleAfterOneRequest(port, "127.0.0.1")
        return [older, await idleAfterOneRequest(port, "127.0.0.1")] as const
      })
      // the address holds 2: its oldest idle one makes room
      const third = yield* Effect.promise(() => open(port, "127.0.0.1"))
      yield* Effect.promise(() => closedBy(older))
      expect(lines).toEqual([closedIdle(0, 1)])
      // the server holds 3: the oldest idle of any address makes room, then none is left to close
      const others = yield* Effect.promise(() => Promise.all([open(port, "127.0.0.2"), open(port, "127.0.0.3")]))
      yield* Effect.promise(() => closedBy(newer))
      expect(yield* Effect.promise(() => closedBy(connect({ port, host: "127.0.0.1", localAddress: "127.0.0.4" })))).toBe("")
      yield* eventually(Effect.sync(() => lines.length === 3))
      expect(lines).toEqual([closedIdle(0, 1), expect.objectContaining({ level: "WARN" }), closedIdle(1, 0)])
      ;[third, ...others].forEach((socket) => socket.destroy())
    }).pipe(
      Effect.provide(
        nodeServerLayer({ host: "127.0.0.1", port: 0 }, { maxConnections: 3, maxConnectionsPerAddress: 2, capReportMs: 1_000 }).pipe(
          Layer.provide(Logger.layer([capture]))
        )
      )
    )
  })
})

describe("timeouts", () => {
  it("the documented defaults: 15 s for headers, 30 s for a request, 30 s unread, checked every second; 2,000 connections, 64 an address", () =>
    Effect.gen(function*() {
      const server = createHttpServer().node as Server & { connectionsCheckingInterval: number }
      expect({
        headers: server.headersTimeout,
        request: server.requestTimeout,
        unread: server.timeout,
        checkedEvery: server.connectionsCheckingInterval,
        keepAlive: server.keepAliveTimeout
      }).toEqual({ headers: 15_000, request: 30_000, unread: 30_000, checkedEvery: 1_000, keepAlive: 65_000 })
      expect(defaultServerOptions).toMatchObject({ maxConnections: 2_000, maxConnectionsPerAddress: 64, capReportMs: 60_000 })
      // what the service is started with, unless MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS say otherwise
      const config = yield* AppConfig
      expect([config.maxConnections, config.maxConnectionsPerAddress]).toEqual([2_000, 64])
    }).pipe(Effect.provide(AppConfig.InMemory()), Effect.runPromise))

  // Node looks every 30 s by default: a 15 s header timeout answered after 26 s, 30 s for a body after 56 s
  it("a request whose headers or body stall is answered 408 within about a second of its timeout", async () => {
    const server = served(createHttpServer({ headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 }))
    const port = await listening(server)
    try {
      const stall = async (partial: string) => {
        const socket = await open(port)
        const answer = closedBy(socket)
        const start = Date.now()
        socket.write(partial)
        return { answer: (await answer).split("\r\n")[0], ms: Date.now() - start }
      }
      const [headers, body] = await Promise.all([
        stall("GET /v1/hotel HTTP/1.1\r\nHost: x\r\n"),
        stall("POST /v1/quotes HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{\"a\"")
      ])
      expect(headers.answer).toBe("HTTP/1.1 408 Request Timeout")
      expect(body.answer).toBe("HTTP/1.1 408 Request Timeout")
      // generous bounds, far under Node's own 30 s
      expect(headers.ms).toBeLessThan(10_000)
      expect(body.ms).toBeLessThan(12_000)
    } finally {
      await closing(server)
    }
  }, 40_000)
})

/** A server answering `bytes` per request; how many requests it started, and ran at once on one connection at most. */
const answering = (bytes: number, options: Parameters<typeof createHttpServer>[0]) => {
  const api = createHttpServer(options)
  const running = new Map<unknown, number>()
  const counts = { mostAtOnce: 0, started: 0 }
  api.serve((request, response) => {
    const connection = request.socket
    const now = (running.get(connection) ?? 0) + 1
    running.set(connection, now)
    counts.started += 1
    counts.mostAtOnce = Math.max(counts.mostAtOnce, now)
    // running until its answer is written in full, before Node's own listener goes on to the next request
    response.prependOnceListener("finish", () => running.set(connection, running.get(connection)! - 1))
    // answered a moment later, as a real handler is: every request parsed meanwhile could start
    setImmediate(() => response.end(Buffer.alloc(bytes, "x")))
  })
  return { server: api.node, counts }
}

/** What `socket`, paused so far, reads once the server has closed every connection. */
const readAfterServerClosed = async (server: Server, socket: Socket) => {
  await until(async () => (await connectionsOf(server)) === 0)
  const read = closedBy(socket)
  socket.resume()
  return read
}

describe("a client that does not read", () => {
  it("its unread answer closes the connection after the write timeout", async () => {
    const { server } = answering(16 * 1024 * 1024, { writeTimeoutMs: 500 })
    const port = await listening(server)
    try {
      const socket = await open(port)
      socket.pause()
      socket.write("GET /docs/ HTTP/1.1\r\nHost: x\r\n\r\n")
      const read = await readAfterServerClosed(server, socket)
      expect(read.length).toBeGreaterThan(0)
      expect(read.length).toBeLessThan(16 * 1024 * 1024)
    } finally {
      await closing(server)
    }
  }, 20_000)

  it("its pipelined requests run one at a time, each once the answer before it is written in full; others are served meanwhile", async () => {
    const { counts, server } = answering(1024 * 1024, { writeTimeoutMs: 500 })
    const port = await listening(server)
    try {
      const socket = await open(port)
      socket.pause()
      socket.write("GET /v1/calendar HTTP/1.1\r\nHost: x\r\n\r\n".repeat(200))
      expect((await exchange(port, "127.0.0.2", "/v1/hotel")).slice(0, 15)).toBe("HTTP/1.1 200 OK")
      await readAfterServerClosed(server, socket)
      expect(counts.mostAtOnce).toBe(1)
      // held back: the loopback's buffers take a few answers of 1 MiB, never 200
      expect(counts.started).toBeLessThan(100)
    } finally {
      await closing(server)
    }
  }, 20_000)
})

const requestLog: Array<RequestEntry> = []
layer(TestApp().pipe(Layer.provide(Layer.succeed(RequestLog, (entry) => void requestLog.push(entry)))), { excludeTestServices: true })(
  "a request with Upgrade",
  (it) => {
    it.effect("answers 400 invalid_request with the hardening headers and a log line, as a WebSocket handshake or any other upgrade", () =>
      Effect.gen(function*() {
        const { port } = new URL(yield* baseUrl)
        const upgrades = [
          "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
          "Upgrade: h2c"
        ]
        for (const headers of upgrades) {
          const answer = yield* Effect.promise(async () => {
            const socket = await open(Number(port))
            const answer = closedBy(socket)
            socket.write(`GET /v1/hotel HTTP/1.1\r\nHost: x\r\n${headers}\r\n\r\n`)
            return answer
          })
          const [head, body] = answer.split("\r\n\r\n")
          expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
          expect(head).toMatch(/\r\nx-content-type-options: nosniff\r\n/i)
          expect(head).toMatch(/\r\nreferrer-policy: no-referrer\r\n/i)
          expect(head).toMatch(/\r\ncontent-type: application\/json\r\n/i)
          expect(JSON.parse(body!)).toEqual({
            error: { code: "invalid_request", message: "this server upgrades no connection: send the request without Upgrade" }
          })
        }
        yield* eventually(Effect.sync(() => requestLog.length === 2))
        expect(requestLog.map(({ method, route, status }) => ({ method, route, status }))).toEqual(
          Array(2).fill({ method: "GET", route: "/v1/hotel", status: 400 })
        )
      }))
  }
)
