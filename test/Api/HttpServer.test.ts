import { describe, expect, it } from "@effect/vitest"
import type { AddressInfo } from "node:net"
import { createHttpServer } from "../../src/Api/Http.js"

describe("the Node server", () => {
  it("answers a request that arrived before the application attached its handler", async () => {
    const server = createHttpServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = server.address() as AddressInfo
      // sent while the application is still being built
      const answer = fetch(`http://127.0.0.1:${port}/v1/health`).then(async (r) => ({
        status: r.status,
        nosniff: r.headers.get("x-content-type-options"),
        body: await r.text()
      }))
      await new Promise((resolve) => setTimeout(resolve, 200))
      server.on("request", (request, response) => response.end(`ready: ${request.url}`))
      expect(await answer).toEqual({ status: 200, nosniff: "nosniff", body: "ready: /v1/health" })
      // later requests go straight to the application
      expect(await fetch(`http://127.0.0.1:${port}/v1`).then((r) => r.text())).toBe("ready: /v1")
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
