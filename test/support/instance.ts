import { NodeServices } from "@effect/platform-node"
import type { PgClient } from "@effect/sql-pg"
import { Layer } from "effect"
import type { SqlClient } from "effect/sql"
import { Repositories, Services } from "../../src/Composition.js"
import type { DatabaseReach } from "../../src/Layers/Persistence/Database.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { AppSecret } from "../../src/Layers/Platform/AppSecret.js"

export interface InstanceOptions {
  readonly hotelFile: string
  readonly clock: Layer.Layer<never>
  /** Settings other than the defaults. */
  readonly config?: Partial<typeof AppConfig.Service>
}

/**
 * One instance of the service on the pool given, as a process would be. Apart from the test
 * database's helpers (which need vitest), so that a process of its own can start one too.
 */
export const instanceOn = <E>(pool: Layer.Layer<SqlClient.SqlClient | PgClient.PgClient | DatabaseReach, E>, options: InstanceOptions) =>
  Services.pipe(
    Layer.provideMerge(Repositories),
    Layer.provideMerge(pool),
    Layer.provide(Layer.mergeAll(AppConfig.InMemory({ ...options.config, hotelFile: options.hotelFile }), NodeServices.layer, AppSecret.InMemory)),
    // merged, not only provided: the services run on the callers' fibers, which read the clock from their own context
    Layer.provideMerge(options.clock)
  )
