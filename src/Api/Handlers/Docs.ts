import { Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { type HttpApi, type HttpApiGroup, HttpApiScalar } from "effect/http-api"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import { aboutTheHotel, Api } from "../Contract/Api.js"
import { documentOf, namingTheHotel, perHotel } from "./AboutTheHotel.js"
import { heavyDocument } from "./HeavyDocument.js"

/** `/openapi.json`: the public API's document, compressed when made. */
const openApiDocument = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const { publicBaseUrl } = yield* AppConfig
    const document = yield* perHotel(aboutTheHotel, (about) =>
      heavyDocument("application/json", new TextEncoder().encode(JSON.stringify(documentOf(Api, about, publicBaseUrl)))))
    yield* router.add("GET", "/openapi.json", Effect.flatten(document))
  })
)

/**
 * The API reference at `/docs/`, which works offline: Scalar with its script inlined and no web
 * fonts, drawn for the request being answered (a GET of `/docs/`). The script is megabytes of
 * memory: the framework loads it when its routes are built, here at the first visit, not at every start.
 */
const drawnPage = <Id extends string, Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<Id, Groups>) =>
  Effect.scoped(Effect.flatten(
    HttpRouter.toHttpEffect(HttpApiScalar.layer(api, { path: "/docs/", scalar: { withDefaultFonts: false } }))
  ))

/** The reference page, drawn by the first visit and compressed then; again only when it names the hotel otherwise. */
const drawnReference = <Id extends string, Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<Id, Groups>) =>
  Effect.flatMap(drawnPage(api), ({ body }) =>
    body._tag === "Uint8Array"
      ? heavyDocument(body.contentType, body.body)
      : Effect.die(new Error(`the API reference is a body of kind ${body._tag}, not bytes`)))

const reference = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const page = yield* perHotel(aboutTheHotel, (about) => drawnReference(namingTheHotel(Api, about)))
    yield* router.add("GET", "/docs/", Effect.flatten(page))
  })
)

/** The documents about the API: its OpenAPI description and its reference. */
export const DocsLive = Layer.merge(reference, openApiDocument)
