import * as HttpServer from "@effect/platform/HttpServer"
import { Effect, Layer } from "effect"
import { HttpLive } from "./Api/Http.js"
import { redactSecretHeaders } from "./Api/RequestObservation.js"
import { DrainLive, nodeServerLayer } from "./Api/Server.js"
import { ServicesLive } from "./Composition.js"
import { AppConfig } from "./Layers/Platform/AppConfig.js"
import { runEntry } from "./Layers/Platform/Entry.js"
import { LoggingLive } from "./Layers/Platform/Logging.js"

const ServerLive = Layer.unwrapEffect(Effect.map(AppConfig, ({ host, port }) => nodeServerLayer({ host, port })))

// Started in this order, stopped in the reverse one: on SIGTERM the server drains first, while
// the services (database, outbox worker) still run, and the database stops last.
const Main = DrainLive.pipe(
  Layer.provide(HttpLive.pipe(HttpServer.withLogAddress, Layer.provideMerge(ServerLive))),
  Layer.provide(ServicesLive),
  redactSecretHeaders,
  // the log format, for everything from the start on
  Layer.provide(LoggingLive.pipe(Layer.provide(AppConfig.Default)))
)

runEntry(Layer.launch(Main))
