import * as HttpServer from "@effect/platform/HttpServer"
import { Effect, Layer } from "effect"
import { DrainOnShutdown, nodeServerLayer, redactSecretHeaders, ServeApi } from "./Api/Http.js"
import { ServicesLive } from "./Composition.js"
import { AppConfig } from "./Layers/Platform/AppConfig.js"
import { runEntry } from "./Layers/Platform/Entry.js"
import { LoggingLive } from "./Layers/Platform/Logging.js"

const ServerLive = Layer.unwrapEffect(Effect.map(AppConfig, ({ host, port }) => nodeServerLayer({ host, port })))

// Started in this order, stopped in the reverse one: on SIGTERM the server drains first, while
// the services (database, outbox worker) still run, and the database stops last.
const Main = DrainOnShutdown.pipe(
  Layer.provide(ServeApi.pipe(HttpServer.withLogAddress, Layer.provideMerge(ServerLive))),
  Layer.provide(ServicesLive),
  redactSecretHeaders,
  // the log format, for everything from the start on
  Layer.provide(LoggingLive.pipe(Layer.provide(AppConfig.Default)))
)

runEntry(Layer.launch(Main))
