import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import { Context, Effect, Layer } from "effect"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import { documentOf, namingTheHotel, perHotel } from "./AboutTheHotel.js"
import { aboutTheHotel, Api } from "../Contract/Api.js"
import { heavyDocument } from "./HeavyDocument.js"

/** `/openapi.json`: the public API's document, compressed when made. */
const openApiDocument = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const { publicBaseUrl } = yield* AppConfig
    const document = yield* perHotel(aboutTheHotel, (about) =>
      heavyDocument("application/json", new TextEncoder().encode(JSON.stringify(documentOf(Api, about, publicBaseUrl)))))
    yield* router.get("/openapi.json", Effect.flatten(document))
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

/** The reference page, drawn by the first visit (a GET of `/docs/`) and compressed then; again only when it names the hotel otherwise. */
const drawnReference = (api: Context.Tag.Service<HttpApi.Api>) =>
  Effect.flatMap(Effect.flatten(docsApp(api)), ({ body }) =>
    body._tag === "Uint8Array"
      ? heavyDocument(body.contentType, body.body)
      : Effect.dieMessage(`the API reference is a body of kind ${body._tag}, not bytes`))

const reference = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const served = yield* HttpApi.Api
    const page = yield* perHotel(aboutTheHotel, (about) =>
      drawnReference({ ...served, api: namingTheHotel(served.api, about) }))
    yield* router.get("/docs/", Effect.flatten(page))
  })
)

/** The documents about the API: its OpenAPI description and its reference. */
export const DocsLive = Layer.merge(reference, openApiDocument)
