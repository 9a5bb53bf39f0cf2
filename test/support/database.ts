import { PgClient } from "@effect/sql-pg"
import { afterAll } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pgClientLayer, type PoolOptions } from "../../src/Layers/Persistence/Database.js"
import { embeddedPostgres } from "../../src/Layers/EmbeddedDatabase/EmbeddedPostgres.js"

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
 * The embedded PostgreSQL of this test file, when `TEST_DATABASE_URL` is unset: started at its first
 * use (with the services of the test that first asks), stopped and its folder removed after the file's
 * last test (an afterAll of the file that imports this module: vitest runs it after the file's
 * own afterAll hooks, which drop the databases). Answers its URL, a server-wide one as
 * `TEST_DATABASE_URL`'s.
 */
const fileScope = Effect.runSync(Scope.make())
afterAll(() => Effect.runPromise(Scope.close(fileScope, Exit.void)))
let embeddedServer: Promise<string> | undefined
const embeddedServerUrl = Effect.flatMap(Effect.context<never>(), (context) =>
  Effect.promise(() =>
    embeddedServer ??= Effect.runPromiseWith(context)(
      Effect.flatMap(temporaryDataDir, embeddedPostgres).pipe(Effect.map(Redacted.value), Scope.provide(fileScope))
    )
  ))

/**
 * A database of this test file's own, for the scope: a fresh database on `TEST_DATABASE_URL`'s
 * server, or, when that is unset, on this file's embedded PostgreSQL; dropped afterwards.
 */
export const testDatabaseUrl = Effect.gen(function*() {
  const fromEnv = process.env.TEST_DATABASE_URL
  const adminUrl = fromEnv === undefined || fromEnv === "" ? yield* embeddedServerUrl : fromEnv
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

/**
 * A pool on a test database. Its deadlines are longer than the service's default: two cores under
 * the whole suite may run a statement slowly, and only the fault tests are about deadlines.
 */
export const poolOn = (url: Redacted.Redacted, options: PoolOptions = {}) =>
  pgClientLayer(url, { maxConnections: 10, timeoutMs: 30_000, ...options })

export const TestDatabase = Layer.unwrap(Effect.map(testDatabaseUrl, poolOn))
