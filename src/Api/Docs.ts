import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, Effect, Layer } from "effect"
import { AppConfig } from "../Layers/Platform/AppConfig.js"
import { Api } from "./Api.js"
import { heavyDocument } from "./HeavyDocument.js"

/** The OpenAPI 3.1 document generated from an HttpApi, served at this deployment's base URL. */
export const documentOf = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>
) =>
  Effect.map(AppConfig, ({ publicBaseUrl }) => ({
    ...OpenApi.fromApi(api),
    servers: [{ url: publicBaseUrl, description: "This deployment" }]
  }))

/** `/openapi.json`: the public API's document, compressed at start. */
const openApiDocument = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const text = JSON.stringify(yield* documentOf(Api))
    yield* router.get("/openapi.json", yield* heavyDocument("application/json", new TextEncoder().encode(text)))
  })
)

/**
 * The API reference at `/docs/`, which works offline: Scalar with its script inlined and no web
 * fonts. The script is megabytes of memory, so it is loaded at the first visit, not at every start.
 */
const docsApp = (api: Context.Tag.Service<HttpApi.Api>) =>
  Effect.promise(() => import("@effect/platform/HttpApiScalar")).pipe(
    Effect.flatMap(({ layer }) =>
      Layer.build(layer({ path: "/docs/", scalar: { withDefaultFonts: false } }).pipe(
        Layer.provideMerge(HttpApiBuilder.Router.Live),
        Layer.provide(Layer.succeed(HttpApi.Api, api))
      ))
    ),
    Effect.flatMap((built) => Context.get(built, HttpApiBuilder.Router).router),
    Effect.flatMap(HttpRouter.toHttpApp),
    Effect.scoped
  )

/** The reference page, drawn by the first visit (a GET of `/docs/`) and compressed then, once. */
const drawnReference = (api: Context.Tag.Service<HttpApi.Api>) =>
  Effect.flatMap(Effect.flatten(docsApp(api)), ({ body }) =>
    body._tag === "Uint8Array"
      ? heavyDocument(body.contentType, body.body)
      : Effect.dieMessage(`the API reference is a body of kind ${body._tag}, not bytes`))

const reference = HttpApiBuilder.Router.use((router) =>
  HttpApi.Api.pipe(
    // a first visitor who leaves while the page is drawn must not leave it undrawn for everyone
    Effect.flatMap((api) => Effect.cached(Effect.uninterruptible(drawnReference(api)))),
    Effect.flatMap((answer) => router.get("/docs/", Effect.flatten(answer)))
  )
)

/** The documents about the API: its OpenAPI description and its reference. */
export const DocsLive = Layer.merge(reference, openApiDocument)
