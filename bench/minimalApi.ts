/**
 * The smallest server of the service's framework, for `bench/budget.ts`: Effect's `HttpApi` on
 * `NodeHttpServer`, one endpoint (`GET /`, answering {"ok":true} by its schema), no middleware, no
 * log, on the port its first argument names. What the framework alone costs a request, beside the service's own stack.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer, Schema } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { createServer } from "node:http"

const Api = HttpApi.make("minimal").add(
  HttpApiGroup.make("minimal").add(HttpApiEndpoint.get("ok", "/", { success: Schema.Struct({ ok: Schema.Boolean }) }))
)
const MinimalLive = HttpApiBuilder.group(Api, "minimal", (handlers) => handlers.handle("ok", () => Effect.succeed({ ok: true })))

HttpRouter.serve(HttpApiBuilder.layer(Api).pipe(Layer.provide(MinimalLive)), { disableLogger: true, disableListenLog: true }).pipe(
  Layer.provide(NodeHttpServer.layer(createServer, { port: Number(process.argv[2]), host: "127.0.0.1" })),
  Layer.launch,
  NodeRuntime.runMain
)
