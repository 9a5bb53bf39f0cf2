import { Effect, Layer } from "effect"
import { poolOn, testDatabaseUrl } from "./database.js"
import { instanceOn, type InstanceOptions } from "./instance.js"

/**
 * Two instances of the service on one fresh PostgreSQL database, as two processes would be, each
 * with a pool of its own: for races that only the database's locks may settle. With the database's
 * URL, for an instance started later.
 */
export const twoInstances = (options: InstanceOptions) =>
  Effect.gen(function*() {
    const url = yield* testDatabaseUrl
    const [a, b] = yield* Effect.all([Layer.build(instanceOn(poolOn(url), options)), Layer.build(instanceOn(poolOn(url), options))])
    return { a, b, url }
  })
