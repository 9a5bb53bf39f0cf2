import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Contract/Api.js"
import { Discovery } from "./DiscoveryDocuments.js"

export const DiscoveryHttp = HttpApiBuilder.group(Api, "discovery", (handlers) =>
  Effect.gen(function*() {
    const discovery = yield* Discovery
    return handlers
      .handle("root", () => discovery.root())
      .handle("index", () => discovery.index())
      .handle("apiCatalog", () => discovery.catalog())
      .handle("llmsText", () => discovery.llmsText())
  })).pipe(Layer.provide(Discovery.layer))
