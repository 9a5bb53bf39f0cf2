import { NodeServices } from "@effect/platform-node"
import type { PgClient } from "@effect/sql-pg"
import { layer, type Vitest } from "@effect/vitest"
import { Layer } from "effect"
import type { SqlClient } from "effect/sql"
import * as path from "node:path"
import type { DatabaseReach } from "../../src/Layers/Persistence/Database.js"
import { MigrationsLive } from "../../src/Layers/Persistence/Migrations.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { TestDatabase } from "./database.js"

/** A database of the test file's own, migrated, with the demo hotel of `data/hotel.json` imported. */
const Migrated = MigrationsLive.pipe(
  Layer.provideMerge(TestDatabase),
  Layer.provide(Layer.merge(AppConfig.InMemory({ hotelFile: path.resolve("data/hotel.json") }), NodeServices.layer))
)

/**
 * A repository's contract: the same suite run against its in-memory layer (which the service and
 * HTTP tests use) and its PostgreSQL layer, so that the two cannot drift apart. Each run has a
 * store of its own, shared by the suite's tests, holding the demo hotel.
 */
export const contract = <R, E>(
  name: string,
  layers: {
    readonly inMemory: Layer.Layer<R>
    readonly postgres: Layer.Layer<R, E, SqlClient.SqlClient | PgClient.PgClient | DatabaseReach>
  },
  suite: (it: Vitest.MethodsNonLive<R>) => void
) => {
  layer(layers.inMemory, { excludeTestServices: true })(`${name} in memory`, suite)
  layer(layers.postgres.pipe(Layer.provide(Migrated)), { excludeTestServices: true, timeout: 60_000 })(
    `${name} on PostgreSQL`,
    suite
  )
}
