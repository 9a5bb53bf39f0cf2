import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Discovery } from "../Services/Discovery.js"
import { Api } from "./Api.js"

export const DiscoveryHttp = HttpApiBuilder.group(Api, "discovery", (handlers) =>
  Effect.gen(function*() {
    const discovery = yield* Discovery
    return handlers
      .handle("root", () => discovery.root())
      .handle("index", () => discovery.index())
      .handle("apiCatalog", () => discovery.catalog())
      .handle("llmsText", () => discovery.llmsText())
  }))
