import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer } from "effect"
import { createHttpServer, redactSecretHeaders, ServeApi } from "./Api/Http.js"
import { runEntry } from "./Layers/Entry.js"
import { ServicesLive } from "./Layers/Live.js"
import { AppConfig } from "./Services/AppConfig.js"

const NodeServerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, ({ host, port }) => NodeHttpServer.layer(createHttpServer, { host, port }))
)

const Main = ServeApi.pipe(
  HttpServer.withLogAddress,
  Layer.provide(NodeServerLive),
  Layer.provide(ServicesLive),
  redactSecretHeaders
)

runEntry(Layer.launch(Main))
