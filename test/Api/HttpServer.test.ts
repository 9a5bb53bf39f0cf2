import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import * as fs from "node:fs"
import { connect } from "node:net"
import * as path from "node:path"
import { createHttpServer } from "../../src/Api/Transport/Server.js"
import type { RequestEntry } from "../../src/Layers/Platform/Logging.js"
import { closing, listening } from "../support/listening.js"

describe("the Node server", () => {
  it("answers a request that arrived before the application attached its handler", async () => {
    const api = createHttpServer()
    const server = api.node
    const port = await listening(server)
    try {
      // sent while the application is still being built
      const answer = fetch(`http://127.0.0.1:${port}/v1/health`).then(async (r) => ({
        status: r.status,
        nosniff: r.headers.get("x-content-type-options"),
        body: await r.text()
      }))
      await new Promise((resolve) => setTimeout(resolve, 200))
      api.serve((request, response) => response.end(`ready: ${request.url}`))
      expect(await answer).toEqual({ status: 200, nosniff: "nosniff", body: "ready: /v1/health" })
      // later requests go straight to the application
      expect(await fetch(`http://127.0.0.1:${port}/v1`).then((r) => r.text())).toBe("ready: /v1")
    } finally {
      await closing(server)
    }
  })

  // found by the fuzzer: Node answered these itself with a bare status and no body
  it("answers a request Node's parser refuses with an Error body: 431 for headers over 16 KiB, 400 for malformed HTTP", async () => {
    const api = createHttpServer()
    const server = api.node
    api.serve((_request, response) => response.end("ok"))
    const port = await listening(server)
    try {
      const long = await fetch(`http://127.0.0.1:${port}/v1/availability?checkin=${"9".repeat(20_000)}`)
      expect({
        status: long.status,
        type: long.headers.get("content-type"),
        nosniff: long.headers.get("x-content-type-options"),
        body: await long.json()
      }).toEqual({
        status: 431,
        type: "application/json",
        nosniff: "nosniff",
        body: { error: { code: "headers_too_large", message: "the request line and headers are larger than 16 KiB" } }
      })
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, "127.0.0.1", () => socket.end("GET /v1/hotel HTTP/1.1\r\nHost: x\r\nContent-Length: zz\r\n\r\n"))
        let answer = ""
        socket.on("data", (chunk) => answer += chunk.toString()).on("end", () => resolve(answer)).on("error", reject)
      })
      expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
      expect(raw).toContain("content-type: application/json")
      expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toEqual({
        error: { code: "invalid_request", message: "the request is not valid HTTP/1.1" }
      })
    } finally {
      await closing(server)
    }
  })

  it("writes no refusal into an answer already under way: a malformed request pipelined behind one only closes the connection", async () => {
    const api = createHttpServer()
    const server = api.node
    // its head and first bytes at once, the rest a while later
    api.serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" }).write("first part;")
      setTimeout(() => response.end("last part"), 200)
    })
    const port = await listening(server)
    try {
      const raw = await new Promise<string>((resolve) => {
        const socket = connect(port, "127.0.0.1", () => socket.write("GET /v1/hotel HTTP/1.1\r\nHost: x\r\n\r\n"))
        let answer = ""
        socket.on("data", (chunk) => {
          answer += chunk.toString()
          // the answer's first bytes are here: the next request is no HTTP
          if (answer.includes("first part;")) socket.write("NOT HTTP AT ALL\r\n\r\n")
        }).on("close", () => resolve(answer)).on("error", () => {})
      })
      expect(raw).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
      expect(raw).toContain("first part;")
      expect(raw).not.toContain("400 Bad Request")
      expect(raw).not.toContain("invalid_request")
    } finally {
      await closing(server)
    }
  })

  it("logs each request once its response is sent, and a request whose client left before its answer as 499", async () => {
    const api = createHttpServer()
    const server = api.node
    const logged: Array<RequestEntry> = []
    const scope = Effect.runSync(Scope.make())
    Effect.runSync(Scope.provide(api.logRequests((entry: RequestEntry) => void logged.push(entry)), scope))
    // each response once closed, the moment its log line is written (the log's listener came first)
    const closed: Array<Promise<void>> = []
    // the reservation endpoint never answers here: its client gives up 100 ms after the server has the
    // request (a client-side timeout would also count the connection's setup, which a loaded machine stretches)
    const givesUp = new AbortController()
    api.serve((request, response) => {
      closed.push(new Promise((resolve) => response.once("close", resolve)))
      if (request.url === "/v1/reservation-public") setTimeout(() => givesUp.abort(), 100)
      else response.writeHead(201, { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" }).end()
    })
    const port = await listening(server)
    try {
      await fetch(`http://127.0.0.1:${port}/v1/quotes?token=secret`, { method: "POST" })
      await fetch(`http://127.0.0.1:${port}/v1/reservation-public`, { signal: givesUp.signal }).catch(() => undefined)
      while (logged.length < 2) await new Promise((resolve) => setTimeout(resolve, 10))
      await fetch(`http://127.0.0.1:${port}/pasted/token`)
      while (logged.length < 3) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(logged.map(({ durationMs: _, ...entry }) => entry)).toEqual([
        { method: "POST", route: "/v1/quotes", status: 201, traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
        { method: "GET", route: "/v1/reservation-public", status: 499, traceparent: undefined },
        { method: "GET", route: "unmatched", status: 201, traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" }
      ])
      expect(logged[1]!.durationMs).toBeGreaterThanOrEqual(90)
      // once the scope is closed, nothing more is logged
      Effect.runSync(Scope.close(scope, Exit.void))
      await fetch(`http://127.0.0.1:${port}/v1/hotel`)
      await closed[3]
      expect(logged).toHaveLength(3)
    } finally {
      await closing(server)
    }
  })

  // Node's private fields and methods change between releases without notice (issue 41)
  it("is built on Node's public API: no private field is read and no method of Node's is overridden", () => {
    const files = fs.readdirSync("src", { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"))
    const found = files.flatMap((file) => {
      const code = fs.readFileSync(path.join("src", file), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|\s)\/\/.*$/gm, "$1")
      // `_tag` is Effect's and `_meta` MCP's, both public
      const privateFields = [...code.matchAll(/\._(?!tag\b|meta\b)[A-Za-z]\w*/g)].map(([field]) => `${file}: ${field}`)
      const overrides = [...code.matchAll(/class \w+ extends (?:Server|Socket|IncomingMessage|ServerResponse)\b/g)].map(([line]) => `${file}: ${line}`)
      return [...privateFields, ...overrides]
    })
    expect(found).toEqual([])
  })
})
