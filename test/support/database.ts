import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { EMBEDDED_MAX_CONNECTIONS, embeddedPostgres, pgClientLayer } from "../../src/Layers/Database.js"

/**
 * A database of this test file's own: a fresh database on `TEST_DATABASE_URL`'s server, dropped
 * afterwards, or, when that is unset, a fresh embedded PostgreSQL (PGlite) in a temporary folder.
 */
export const TestDatabase = Layer.unwrapScoped(
  Effect.gen(function*() {
    const adminUrl = process.env.TEST_DATABASE_URL
    if (adminUrl === undefined || adminUrl === "") {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "hotel-pglite-"))),
        (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
      )
      return pgClientLayer(yield* embeddedPostgres(dir), EMBEDDED_MAX_CONNECTIONS)
    }
    const name = `hotel_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
    const admin = PgClient.layer({ url: Redacted.make(adminUrl), maxConnections: 1 })
    const runAdmin = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Effect.provide(effect, admin)
    yield* Effect.acquireRelease(
      runAdmin(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE DATABASE ${name}`))),
      () => runAdmin(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))).pipe(Effect.orDie)
    ).pipe(Effect.orDie)
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    return pgClientLayer(Redacted.make(url.toString()), 10)
  })
)
