import { Context, Effect, Layer, Option } from "effect"
import { constTrue } from "effect/Function"
import { HttpMiddleware, HttpRouter, HttpServer, HttpServerRequest } from "effect/http"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import { untracedWithoutCollector } from "../../Layers/Platform/Tracing.js"
import { ApiMiddlewareLive, RoutesLive } from "../Handlers/Groups.js"
import { McpHttp } from "../Mcp/Transport.js"
import { answer, noResource } from "./ErrorAnswers.js"
import { makeErrorsAsBodies } from "./Middleware.js"
import { makeRateLimit } from "./RateLimit.js"
import { isRoute, pathOf, traceRequests } from "./RequestObservation.js"
import { RequestLoggingLive } from "./Server.js"

/**
 * The whole HTTP application on the server: the API's routes and the others of the handlers
 * (documents, guest pages, the channel interface), and MCP's, on one router, behind the
 * transport's steps. A path is served only as its route spells it; each request is counted by
 * the rate limit, then answered with its body bounded and every failure as an `Error` body.
 * These steps are plain functions around the router, not the platform's middleware: the
 * platform runs a request that has no middleware in one step, and any middleware, even one that
 * does nothing, costs 3 µs a request, a fifth of a bare server's (docs/performance.md).
 *
 * Without a trace collector no span is made at all, not even the request's own: nobody would read
 * them, and they cost a share of every request. With one, each request's server span is
 * `traceRequests`'s, never the platform's (which records the full URL and every header). Every
 * request is logged (`RequestLoggingLive`). Needs the services and the Node server.
 */
export const HttpLive = untracedWithoutCollector(Layer.unwrap(Effect.gen(function*() {
  const { otlpEndpoint } = yield* AppConfig
  const router = yield* HttpRouter.toHttpEffect(Layer.mergeAll(RoutesLive, McpHttp))
  const errorsAsBodies = yield* makeErrorsAsBodies
  const rateLimit = yield* makeRateLimit
  const app = Effect.withFiber((fiber) => {
    const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
    const path = pathOf(request.url)
    return rateLimit.route(isRoute(path) ? errorsAsBodies(router, request, path) : answer(noResource(request)), request, path)
  })
  return HttpServer.serve(Option.isSome(otlpEndpoint) ? traceRequests(app) : app)
})).pipe(Layer.provide(ApiMiddlewareLive))).pipe(
  Layer.provide(Layer.succeed(HttpMiddleware.TracerDisabledWhen, constTrue)),
  Layer.merge(RequestLoggingLive)
)
