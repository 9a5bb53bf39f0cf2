import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { Context, Data, Deferred, Effect, Layer, Option, Redacted } from "effect"
import { spawn } from "node:child_process"
import pg from "pg"
import { fileURLToPath } from "node:url"
import { AppConfig } from "../Services/AppConfig.js"
import * as Tracing from "./Tracing.js"

/**
 * PGlite is one session: pglite-socket keeps a transaction to its connection but interleaves the
 * protocol messages of concurrent connections outside one (a Parse of one between the Parse and
 * Bind of another: "prepared statement does not exist"). One connection it is; queries queue in the pool.
 */
export const EMBEDDED_MAX_CONNECTIONS = 1
const SERVER_POOL_SIZE = 20

export class EmbeddedDatabaseError extends Data.TaggedError("EmbeddedDatabaseError")<{ readonly message: string }> {}

const embeddedServerScript = fileURLToPath(new URL("./embedded-postgres.mjs", import.meta.url))

/** Starts the embedded PostgreSQL (PGlite) child process for the scope; answers its URL. */
export const embeddedPostgres = Tracing.fn("Database.startEmbedded")(function*(dataDir: string) {
  const ready = yield* Deferred.make<number, EmbeddedDatabaseError>()
  const child = yield* Effect.acquireRelease(
    Effect.sync(() =>
      spawn(process.execPath, [embeddedServerScript, dataDir, String(EMBEDDED_MAX_CONNECTIONS)], {
        stdio: ["pipe", "pipe", "pipe"]
      })
    ),
    (child) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.stdin?.end()
        child.kill("SIGTERM")
      })
  )
  let stderr = ""
  child.stderr?.on("data", (chunk) => (stderr += chunk))
  child.stdout?.on("data", (chunk: Buffer) => {
    const match = /READY (\d+)/.exec(chunk.toString())
    if (match) Deferred.unsafeDone(ready, Effect.succeed(Number(match[1])))
  })
  child.once("exit", (code) =>
    Deferred.unsafeDone(
      ready,
      Effect.fail(new EmbeddedDatabaseError({ message: `embedded database exited (${code}): ${stderr.trim()}` }))
    )
  )
  const port = yield* Deferred.await(ready).pipe(
    Effect.timeoutFail({
      duration: "60 seconds",
      onTimeout: () => new EmbeddedDatabaseError({ message: "embedded database did not start within 60 s" })
    })
  )
  yield* Effect.logInfo(`embedded PostgreSQL (PGlite) in ${dataDir} on 127.0.0.1:${port}`)
  return Redacted.make(`postgres://postgres:postgres@127.0.0.1:${port}/postgres`)
})

const DATE_OID = 1082
const TIMESTAMPTZ_OID = 1184

export const pgClientLayer = (url: Redacted.Redacted, maxConnections: number) =>
  PgClient.layer({
    url,
    maxConnections,
    connectTimeout: "5 seconds",
    // a `date` stays the string `YYYY-MM-DD`: stay dates are local dates, never shifted to UTC;
    // an instant is an ISO string in UTC, formatted with the hotel's offset where it is shown
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") => {
        if (oid === DATE_OID) return (value: string) => value
        if (oid === TIMESTAMPTZ_OID) {
          const parse = pg.types.getTypeParser(oid, "text")
          return (value: string) => (parse(value) as Date).toISOString()
        }
        return pg.types.getTypeParser(oid, format)
      }) as typeof pg.types.getTypeParser
    }
  })

/** The one SQL client: `DATABASE_URL` when set, else the embedded database in `DATA_DIR`. */
export const DatabaseLive = Layer.unwrapScoped(
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (Option.isSome(config.databaseUrl)) return pgClientLayer(config.databaseUrl.value, SERVER_POOL_SIZE)
    const url = yield* embeddedPostgres(config.dataDir)
    return pgClientLayer(url, EMBEDDED_MAX_CONNECTIONS)
  })
)

/** Answers whether the database takes queries. */
export class DatabasePing extends Context.Tag("DatabasePing")<DatabasePing, Effect.Effect<void, SqlError>>() {
  static readonly Live = Layer.effect(
    DatabasePing,
    Effect.map(SqlClient.SqlClient, (sql) => Effect.asVoid(sql`SELECT 1`))
  )
  static readonly InMemory = Layer.succeed(DatabasePing, Effect.void)
}
