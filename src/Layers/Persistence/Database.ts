import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import pg from "pg"
import { AppConfig, DEFAULT_DATABASE_TIMEOUT_MS } from "../Platform/AppConfig.js"
import { DatabaseUnreachable, messageOf } from "./DatabaseFaults.js"
import { embeddedDatabase, type EmbeddedDatabaseError } from "./EmbeddedPostgres.js"

/** Connections per instance, whichever PostgreSQL serves it. */
const POOL_SIZE = 20

const DATE_OID = 1082
const TIMESTAMPTZ_OID = 1184

// a `date` stays the string `YYYY-MM-DD`: stay dates are local dates, never shifted to UTC;
// an instant is an ISO string in UTC, formatted with the hotel's offset where it is shown
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === DATE_OID) return (value: string) => value
    if (oid === TIMESTAMPTZ_OID) {
      const parse = pg.types.getTypeParser(oid, "text")
      return (value: string) => (parse(value) as Date).toISOString()
    }
    return pg.types.getTypeParser(oid, format)
  }) as typeof pg.types.getTypeParser
}

/**
 * A connection its server ended (FATAL: killed by `pg_terminate_backend`, a shutdown) is never
 * handed out again. The statement under way hears of it before the connection closes, and the
 * pool would take such a connection back as sound: the next request, a retry, would fail on it.
 * Marked unusable first (the pool drops what is not `_queryable` when it is released).
 */
class EndsOnFatal extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super(config)
    const client = this as unknown as { connection: NodeJS.EventEmitter; _queryable: boolean }
    client.connection.on("errorMessage", (message: { severity?: string }) => {
      if (message.severity === "FATAL") client._queryable = false
    })
  }
}

interface PgPoolOptions {
  readonly maxConnections: number
  readonly timeoutMs: number
  readonly applicationName: string
}

/**
 * A pool whose every wait is bounded by `timeoutMs`: a connection (a new one, or a turn when all
 * are busy), and, on the server, every statement and every lock (PostgreSQL cancels it and the
 * transaction rolls back whole). Settings of the connection, so they cost no round trip.
 */
const makePool = (url: Redacted.Redacted, options: PgPoolOptions) => {
  const pool = new pg.Pool({
    connectionString: Redacted.value(url),
    max: options.maxConnections,
    connectionTimeoutMillis: options.timeoutMs,
    statement_timeout: options.timeoutMs,
    lock_timeout: options.timeoutMs,
    application_name: options.applicationName,
    Client: EndsOnFatal as unknown as new() => pg.ClientBase,
    types
  })
  pool.on("error", () => {}) // an idle connection the server closed: the pool drops it and makes another when needed
  return pool
}

export interface PoolOptions {
  readonly maxConnections?: number
  /** Bounds the wait for a connection, every statement and every lock (`DATABASE_TIMEOUT_MS`). */
  readonly timeoutMs?: number
}

/** The service's pool on `url`: connected (or failed) before it is used. */
export const pgClientLayer = (url: Redacted.Redacted, { maxConnections = POOL_SIZE, timeoutMs = DEFAULT_DATABASE_TIMEOUT_MS }: PoolOptions = {}) =>
  PgClient.layerFromPool({
    acquire: Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const pool = makePool(url, { maxConnections, timeoutMs, applicationName: "hotel-booking-api" })
          try {
            await pool.query("SELECT 1")
            return pool
          } catch (error) {
            await pool.end()
            throw error
          }
        },
        catch: (cause) => new SqlError({ cause, message: `PgClient: failed to connect: ${messageOf(cause)}` })
      }),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
    ),
    types
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
    const options = { timeoutMs: config.databaseTimeoutMs }
    const given = Option.isSome(config.databaseUrl)
    const { givenUp, url } = given
      ? { givenUp: Effect.never, url: config.databaseUrl.value }
      : yield* embeddedDatabase(config.dataDir)
    const client = pgClientLayer(url, options)
    return Layer.merge(
      // the embedded database's role is never a superuser: only a given DATABASE_URL is checked
      given ? Layer.tap(client, (context) => Effect.provide(warnIfSuperuser, context)) : client,
      Layer.succeed(DatabaseSupervision, { givenUp })
    )
  })
)

/** How long a ping may take, connecting included: a load balancer's health check waits no longer. */
const PING_TIMEOUT_MS = 1000

/**
 * Answers whether the database takes queries, within a second. On connections of its own (at most
 * two, made when needed), never the pool's: with every pooled connection busy, the health check
 * still tells a busy instance (200) from one whose database is gone (503).
 */
export class DatabasePing extends Context.Tag("DatabasePing")<DatabasePing, Effect.Effect<void, DatabaseUnreachable>>() {
  static readonly Default = Layer.scoped(
    DatabasePing,
    Effect.gen(function*() {
      const { config } = yield* PgClient.PgClient
      const pool = yield* Effect.acquireRelease(
        Effect.sync(() =>
          makePool(config.url!, { maxConnections: 2, timeoutMs: PING_TIMEOUT_MS, applicationName: "hotel-booking-api health" })
        ),
        (pool) => Effect.promise(() => pool.end())
      )
      // the service is the ping itself, an Effect run on each health check
      // @effect-diagnostics-next-line returnEffectInGen:off
      return Effect.tryPromise({
        try: () => pool.query("SELECT 1"),
        catch: (cause) => new DatabaseUnreachable({ message: messageOf(cause) })
      }).pipe(
        Effect.timeoutFail({
          duration: PING_TIMEOUT_MS,
          onTimeout: () => new DatabaseUnreachable({ message: "no answer within a second", timedOut: true })
        }),
        Effect.asVoid
      )
    })
  )
  static readonly InMemory = Layer.succeed(DatabasePing, Effect.void)
}
