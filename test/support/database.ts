import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pgClientLayer } from "../../src/Layers/Database.js"
import { embeddedPostgres } from "../../src/Layers/EmbeddedPostgres.js"

/**
 * A fresh data folder for the scope, removed afterwards. Readable by others, as an ordinary folder
 * is: run as root, the embedded server runs as the `postgres` user, which must enter it.
 */
export const temporaryDataDir = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hotel-data-"))
    fs.chmodSync(dir, 0o755)
    return dir
  }),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/**
 * A database of this test file's own, for the scope: a fresh database on `TEST_DATABASE_URL`'s
 * server, dropped afterwards, or, when that is unset, a fresh embedded PostgreSQL.
 */
export const testDatabaseUrl = Effect.gen(function*() {
  const adminUrl = process.env.TEST_DATABASE_URL
  if (adminUrl === undefined || adminUrl === "") return yield* embeddedPostgres(yield* temporaryDataDir)
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
export const poolOn = (url: Redacted.Redacted) => pgClientLayer(url, 10)

export const TestDatabase = Layer.unwrapScoped(Effect.map(testDatabaseUrl, poolOn))
