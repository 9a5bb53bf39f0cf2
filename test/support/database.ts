import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { EMBEDDED_MAX_CONNECTIONS, embeddedPostgres, pgClientLayer } from "../../src/Layers/Database.js"

/** Whether the tests run on the embedded database (no `TEST_DATABASE_URL`): it takes few connections. */
export const onEmbedded = (process.env.TEST_DATABASE_URL ?? "") === ""

/**
 * A database of this test file's own, for the scope: a fresh database on `TEST_DATABASE_URL`'s
 * server, dropped afterwards, or, when that is unset, a fresh embedded PostgreSQL (PGlite).
 */
export const testDatabaseUrl = Effect.gen(function*() {
  const adminUrl = process.env.TEST_DATABASE_URL
  if (adminUrl === undefined || adminUrl === "") {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "hotel-pglite-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    return yield* embeddedPostgres(dir)
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
  return Redacted.make(url.toString())
})

/** A pool on a test database. */
export const poolOn = (url: Redacted.Redacted) => pgClientLayer(url, onEmbedded ? EMBEDDED_MAX_CONNECTIONS : 10)

export const TestDatabase = Layer.unwrapScoped(Effect.map(testDatabaseUrl, poolOn))
