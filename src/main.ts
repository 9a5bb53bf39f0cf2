import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { HttpAppLive, redactSecretHeaders, securityHeaders } from "./Api/Http.js"
import { ServicesLive } from "./Layers/Live.js"
import { AppConfig } from "./Services/AppConfig.js"

const ServerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, ({ host, port }) => NodeHttpServer.layer(createServer, { host, port }))
)

const Main = HttpApiBuilder.serve(securityHeaders).pipe(
  HttpServer.withLogAddress,
  Layer.provide(HttpAppLive),
  Layer.provide(ServerLive),
  Layer.provide(ServicesLive),
  redactSecretHeaders
)

Layer.launch(Main).pipe(NodeRuntime.runMain({ disablePrettyLogger: false }))
