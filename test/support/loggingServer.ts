// A service stand-in for the request log's crash tests: the API's Node server with the request log
// of `LOG_FORMAT=json`, its stdout wherever the test put it. Each request is answered with the
// status its query asks (`?status=201`), after an Effect log line "answering <status>"; `then=throw`
// throws an uncaught error, `then=exit` calls process.exit(3), both as soon as the answer is sent.
// Prints "READY <port>" on stderr; SIGTERM stops it as the service stops (its scope closes).
import { Effect, Layer } from "effect"
import type { AddressInfo } from "node:net"
import { createHttpServer } from "../../src/Api/Transport/Server.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { runEntry } from "../../src/Layers/Platform/Entry.js"
import { LoggingLive, RequestLog } from "../../src/Layers/Platform/Logging.js"

Effect.gen(function*() {
  const api = createHttpServer()
  const server = api.node
  const log = yield* RequestLog
  if (log === undefined) return yield* Effect.die(new Error("LOG_FORMAT=json sets a request log"))
  yield* api.logRequests(log)
  const run = Effect.runSyncWith(yield* Effect.context<never>())
  api.serve((request, response) => {
    const query = new URL(request.url ?? "/", "http://stand-in").searchParams
    const status = Number(query.get("status") ?? "200")
    run(Effect.logInfo(`answering ${status}`))
    response.once("close", () => {
      // after the request log's own listener: its line is waiting in the buffer
      if (query.get("then") === "throw") throw new Error("an uncaught error right after an answer")
      if (query.get("then") === "exit") process.exit(3)
    })
    response.writeHead(status, { connection: "close" }).end()
  })
  yield* Effect.acquireRelease(
    Effect.callback<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
    () => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
  )
  process.stderr.write(`READY ${(server.address() as AddressInfo).port}\n`)
  return yield* Effect.never
}).pipe(
  Effect.scoped,
  Effect.provide(LoggingLive.pipe(Layer.provide(AppConfig.InMemory({ logFormat: "json" })))),
  runEntry
)
