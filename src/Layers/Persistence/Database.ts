import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Option, type Redacted } from "effect"
import pg from "pg"
import { AppConfig } from "../Platform/AppConfig.js"
import { embeddedDatabase, type EmbeddedDatabaseError } from "./EmbeddedPostgres.js"

/** Connections per instance, whichever PostgreSQL serves it. */
const POOL_SIZE = 20

const DATE_OID = 1082
const TIMESTAMPTZ_OID = 1184

export const pgClientLayer = (url: Redacted.Redacted, maxConnections = POOL_SIZE) =>
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

/**
 * The service needs no more than to own its tables; a superuser can also read the server's files
 * and run programs on it, so a flaw in a query would reach that far. Said at start, not refused:
 * `DATABASE_URL` is the operator's choice.
 */
const warnIfSuperuser = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [role] = yield* sql<{ name: string; superuser: boolean }>`
    SELECT rolname AS name, rolsuper AS superuser FROM pg_roles WHERE rolname = current_user`
  if (role?.superuser === true) {
    yield* Effect.logWarning(
      `DATABASE_URL connects as ${role.name}, a superuser: connect as a role that owns the service's database and is not a superuser`
    )
  }
})

/**
 * Fails when the database cannot be kept up: the embedded server died too often to be started
 * again. Never for `DATABASE_URL`, whose server its operator restarts. The entry point stops the
 * service on it, so that the service's own supervisor acts.
 */
export class DatabaseSupervision extends Context.Tag("DatabaseSupervision")<
  DatabaseSupervision,
  { readonly givenUp: Effect.Effect<never, EmbeddedDatabaseError> }
>() {}

/**
 * The one SQL client: `DATABASE_URL` when set (as given), else the embedded database in
 * `DATA_DIR` (as a role of the service's own that is not a superuser).
 */
export const DatabaseLive = Layer.unwrapScoped(
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (Option.isSome(config.databaseUrl)) {
      return pgClientLayer(config.databaseUrl.value).pipe(
        Layer.tap((context) => Effect.provide(warnIfSuperuser, context)),
        Layer.merge(Layer.succeed(DatabaseSupervision, { givenUp: Effect.never }))
      )
    }
    const { givenUp, url } = yield* embeddedDatabase(config.dataDir)
    return pgClientLayer(url).pipe(Layer.merge(Layer.succeed(DatabaseSupervision, { givenUp })))
  })
)

/** Answers whether the database takes queries. */
export class DatabasePing extends Context.Tag("DatabasePing")<DatabasePing, Effect.Effect<void, SqlError>>() {
  static readonly Default = Layer.effect(
    DatabasePing,
    Effect.map(SqlClient.SqlClient, (sql) => Effect.asVoid(sql`SELECT 1`))
  )
  static readonly InMemory = Layer.succeed(DatabasePing, Effect.void)
}
