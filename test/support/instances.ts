import { NodeContext } from "@effect/platform-node"
import { Effect, Layer, type Redacted } from "effect"
import { Repositories, Services } from "../../src/Composition.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { AppSecret } from "../../src/Layers/Platform/AppSecret.js"
import { poolOn, testDatabaseUrl } from "./database.js"

/**
 * Two instances of the service on one fresh PostgreSQL database, as two processes would be, each
 * with a pool of its own: for races that only the database's locks may settle.
 */
export const twoInstances = (options: { readonly hotelFile: string; readonly clock: Layer.Layer<never> }) => {
  const config = Layer.mergeAll(AppConfig.InMemory({ hotelFile: options.hotelFile }), NodeContext.layer, AppSecret.InMemory)
  const instance = (url: Redacted.Redacted) =>
    Services.pipe(Layer.provideMerge(Repositories), Layer.provideMerge(poolOn(url)), Layer.provide(config), Layer.provide(options.clock))
  return Effect.gen(function*() {
    const url = yield* testDatabaseUrl
    const [a, b] = yield* Effect.all([Layer.build(instance(url)), Layer.build(instance(url))])
    return { a, b }
  })
}
