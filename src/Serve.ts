// The service: the live composition served on the API's Node server until a signal stops it
// (started by main.ts, once V8's compile cache is on).
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { HttpLive } from "./Api/Transport/Http.js"
import { redactSecretHeaders } from "./Api/Transport/RequestObservation.js"
import { DrainLive, nodeServerLayer } from "./Api/Transport/Server.js"
import { ServicesLive } from "./Composition.js"
import { DatabaseSupervision } from "./Layers/Persistence/Database.js"
import { AppConfig } from "./Layers/Platform/AppConfig.js"
import { npmStartGone, runEntry } from "./Layers/Platform/Entry.js"
import { LoggingLive } from "./Layers/Platform/Logging.js"

const ServerLive = Layer.unwrap(
  Effect.map(
    AppConfig,
    ({ host, maxConnections, maxConnectionsPerAddress, port, trustedProxies }) =>
      nodeServerLayer({ host, port }, { maxConnections, maxConnectionsPerAddress, trustedProxies })
  )
)

// Started in this order, stopped in the reverse one: on SIGTERM the server drains first, while
// the services (database, outbox worker) still run, and the database stops last.
const Main = DrainLive.pipe(
  Layer.provide(HttpLive.pipe(HttpServer.withLogAddress, Layer.provideMerge(ServerLive))),
  Layer.provideMerge(ServicesLive),
  redactSecretHeaders,
  // the log format, for everything from the start on (the supervision's failure too)
  Layer.provideMerge(LoggingLive.pipe(Layer.provide(AppConfig.layer)))
)

// Serves until a signal stops it or the `npm start` that started it is gone (a clean stop), or
// until the embedded database cannot be kept up: then it stops as on SIGTERM and exits 1 with the
// reason, so that its own supervisor acts.
runEntry(Effect.flatMap(DatabaseSupervision, ({ givenUp }) => Effect.raceFirst(givenUp, npmStartGone)).pipe(Effect.provide(Main)))
