import { PgClient, PgConnection, PgTypes } from "@effect/sql-pg"
import { Context, Effect, Layer, Option, Redacted, Result } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { SqlClient, type SqlConnection, SqlError } from "effect/sql"
import { DEFAULT_DATABASE_TIMEOUT_MS } from "../Platform/AppConfig.js"
import { noAnswerInTime, noConnectionInTime, sqlErrorText } from "./DatabaseFaults.js"
import { poolMeter } from "./PoolMetrics.js"

/*
 * The service's PostgreSQL clients: `@effect/sql-pg`'s, with the deadlines, the readings of values
 * and the spans the service relies on.
 */

/** Connections per instance, whichever PostgreSQL serves it. */
const POOL_SIZE = 20

/** The driver reads every column in PostgreSQL's binary format. */
const BINARY = 1

/**
 * The columns read otherwise than the driver would. A `date` stays the driver's `YYYY-MM-DD`: stay
 * dates are local dates, never shifted to UTC. An instant is an ISO string in UTC, to the
 * millisecond, formatted with the hotel's offset where it is shown. An `int8` (a `bigserial`) is
 * its exact decimal string. Parameters are bound as the driver binds them (a `Date` as an instant).
 */
const types = PgTypes.makeRegistry()
types.register<Date | number | string>(PgTypes.OID.timestamptz, {
  encode: (value) => PgTypes.encode(value, PgTypes.OID.timestamptz),
  decode: (bytes) =>
    Result.flatMap(PgTypes.decode(bytes, PgTypes.OID.timestamptz, BINARY), (instant) =>
      instant instanceof Date && !Number.isNaN(instant.getTime())
        ? Result.succeed(instant.toISOString())
        : Result.fail(new PgTypes.CodecError({ message: "an infinite timestamptz has no ISO string" })))
})
types.register<bigint | string>(PgTypes.OID.int8, {
  encode: (value) => PgTypes.encode(value, PgTypes.OID.int8),
  decode: (bytes) => Result.map(PgTypes.decode(bytes, PgTypes.OID.int8, BINARY), String)
})

interface ClientOptions {
  readonly maxConnections: number
  readonly timeoutMs: number
  readonly applicationName: string
}

/** The deadlines as settings of PostgreSQL's: in milliseconds, its unit for both. */
const deadlineSettings = (timeoutMs: number) => ({ statement_timeout: String(timeoutMs), lock_timeout: String(timeoutMs) })

/**
 * Connections whose every wait on the server is bounded by `timeoutMs`: every statement and every
 * lock (PostgreSQL cancels it and the transaction rolls back whole), and making the connection.
 * With `startup` (a direct connection), the deadlines are settings of the connection, so they cost
 * no round trip; a pooler refuses them (PgBouncer: `unsupported startup parameter`), and the pool
 * then sets them in each transaction (`makeClient`). A connection its server ended (FATAL:
 * `pg_terminate_backend`, a shutdown) is never handed out again: the driver's pool retires it.
 */
const connectionsOn = (url: Redacted.Redacted, options: ClientOptions & { readonly startup: boolean; readonly prepared: boolean }) => ({
  url,
  maxConnections: options.maxConnections,
  connectTimeout: options.timeoutMs,
  applicationName: options.applicationName,
  startupParameters: options.startup ? deadlineSettings(options.timeoutMs) : {},
  types,
  // any message the protocol can carry: an export reads a whole table as one value, past the driver's 16 MiB
  maxMessageSize: 2 ** 31 - 1,
  prepare: options.prepared
})

/** PostgreSQL answers `ROLLBACK` to the `COMMIT` of a transaction a failed statement aborted. */
const commit = (connection: SqlConnection.Connection) =>
  Effect.flatMap(connection.executeRaw("COMMIT", []), (result) =>
    // the driver's raw answer, which `SqlConnection` leaves untyped
    (result as PgConnection.Result).command === "ROLLBACK"
      ? Effect.fail(
        new SqlError.SqlError({
          reason: new SqlError.UnknownError({
            cause: new Error("COMMIT rolled back an aborted transaction"),
            message: "PgClient: COMMIT rolled back an aborted transaction",
            operation: "commit"
          })
        })
      )
      : Effect.void)

/**
 * Set around work that may outlast a request's deadline (the migrations, an export or an import,
 * which lift the server's deadlines themselves): the service's own bound on each statement
 * (`Reach.bounded`) then waits as long as they take.
 */
export const NoStatementDeadline = Context.Reference<boolean>("hotel/PgClients/NoStatementDeadline", { defaultValue: () => false })

/**
 * How the pool reaches PostgreSQL, found at its start (`probe`). On a direct connection the
 * deadlines are settings of each connection (`startup`), which cost nothing per statement. Through
 * a pooler, or on connections that do not keep the deadlines: they are set in each transaction
 * (`perTransaction`, one round trip more), and every statement is `bounded` by the service too,
 * since a statement outside a transaction has no deadline on a pooled server connection.
 */
interface Reach {
  readonly pooled: boolean
  readonly startup: boolean
  /**
   * Each statement is prepared once per connection, on a direct connection only: a pooler in front
   * (PgBouncer's transaction mode) keeps no statement prepared on one connection for the next.
   * PostgreSQL then neither parses nor, once a generic plan costs no more than its own for each
   * call's values (its default, `plan_cache_mode` auto), plans it again: the database's CPU a quote
   * at 500 quotes a second 628–645 µs unprepared, 489–505 with a plan for each call, 379–385 so
   * (docs/performance.md). A statement a migration made stale is prepared again by the driver,
   * after failing the transaction it was in, if any (docs/operations.md).
   */
  readonly prepared: boolean
  readonly perTransaction: boolean
  readonly bounded: boolean
}

/** Each statement of `connection` answered within `timeoutMs`, or interrupted (the driver cancels it on the server). */
const boundedStatements = (connection: SqlConnection.Connection, timeoutMs: number): SqlConnection.Connection => {
  const bound = <A>(statement: Effect.Effect<A, SqlError.SqlError>): Effect.Effect<A, SqlError.SqlError> =>
    Effect.flatMap(Effect.service(NoStatementDeadline), (unbounded) =>
      unbounded
        ? statement
        : statement.pipe(Effect.timeoutOrElse({ duration: timeoutMs, orElse: () => Effect.fail(noAnswerInTime(timeoutMs)) })))
  return {
    execute: (sql, params, transformRows) => bound(connection.execute(sql, params, transformRows)),
    executeRaw: (sql, params) => bound(connection.executeRaw(sql, params)),
    executeValues: (sql, params) => bound(connection.executeValues(sql, params)),
    executeValuesUnprepared: (sql, params) => bound(connection.executeValuesUnprepared(sql, params)),
    executeUnprepared: (sql, params, transformRows) => bound(connection.executeUnprepared(sql, params, transformRows)),
    // a stream's rows arrive while its reader works: bounded by the server's deadlines only
    executeStream: (sql, params, transformRows) => connection.executeStream(sql, params, transformRows)
  }
}

/**
 * The driver's client, with a turn for a connection (the pool's wait when all are busy, or its
 * making of a new one) bounded by `timeoutMs` as well, which its own pool does not bound, and
 * measured (`PoolMetrics`). Its
 * statements' spans stay `sql.execute`: the driver would name them after the database. A `LISTEN`
 * holds a connection of its own for as long as it listens, never one of the pool's, and only on
 * `listenUrl` (a direct connection): through a pooler in transaction mode it would listen on a
 * server connection other clients' transactions then use.
 */
const makeClient = (url: Redacted.Redacted, options: ClientOptions, reach: Reach, listenUrl: Option.Option<Redacted.Redacted>) =>
  Effect.gen(function*() {
    const driver = yield* PgClient.make(connectionsOn(url, { ...options, startup: reach.startup, prepared: reach.prepared }))
    const meter = yield* poolMeter(options.applicationName, options.maxConnections)
    const reserve = meter.measure(driver.reserve.pipe(
      Effect.timeoutOrElse({
        duration: options.timeoutMs,
        orElse: () => Effect.andThen(meter.timedOut, Effect.fail(noConnectionInTime(options.timeoutMs)))
      })
    ))
    const acquirer = reach.bounded ? Effect.map(reserve, (connection) => boundedStatements(connection, options.timeoutMs)) : reserve
    const sql = yield* SqlClient.make({
      acquirer,
      transactionAcquirer: acquirer,
      compiler: PgClient.makeCompiler(),
      driver: "pg",
      spanAttributes: [],
      commit,
      releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`
    })
    const setDeadlines = sql`SELECT set_config('statement_timeout', ${String(options.timeoutMs)}, true),
      set_config('lock_timeout', ${String(options.timeoutMs)}, true)`
    const outermost = Effect.map(Effect.serviceOption(sql.transactionService), Option.isNone)
    const { withTransaction: inTransaction } = sql
    const withTransaction = <A, E, R>(work: Effect.Effect<A, E, R>) =>
      Effect.flatMap(outermost, (first) => inTransaction(first ? Effect.andThen(setDeadlines, work) : work))
    const client: PgClient.PgClient = Object.assign(sql, {
      [PgClient.TypeId]: PgClient.TypeId,
      config: driver.config,
      json: driver.json,
      listen: (channel: string) =>
        Option.match(listenUrl, {
          onNone: () => Effect.fail(noDirectConnection),
          onSome: (direct) =>
            Effect.flatMap(PgConnection.make(connectionsOn(direct, { ...options, startup: false, prepared: false })), (connection) => connection.listen(channel))
        }),
      notify: driver.notify
    }, reach.perTransaction ? { withTransaction } : {})
    return client
  })

const noDirectConnection = new SqlError.SqlError({
  reason: new SqlError.ConnectionError({
    cause: new Error("no direct connection to LISTEN on: DATABASE_URL goes through a pooler and DATABASE_LISTEN_URL is unset"),
    message: "PgClient: no direct connection to LISTEN on",
    operation: "listen"
  })
})

/** How the service's pool reaches PostgreSQL, found at its start (docs/decisions.md#behind-a-pooler). */
export class DatabaseReach extends Context.Service<DatabaseReach, {
  /** A pooler stands between the service and PostgreSQL: a server connection is not the service's own. */
  readonly pooled: boolean
  /** `LISTEN` has a direct connection (`DATABASE_LISTEN_URL`, or `DATABASE_URL` when no pooler stands between). */
  readonly listens: boolean
  /** Statements are prepared once per connection: no pooler stands between. */
  readonly prepared: boolean
  /** Connections as the pool's (with or without the startup parameters), for a pool of their own. */
  readonly connectionsOn: (options: ClientOptions) => ReturnType<typeof connectionsOn>
}>()("DatabaseReach") {}

/** PgBouncer's refusal of a startup parameter it does not know (by default, any but a few). */
const refusedStartupParameter = (error: SqlError.SqlError) => sqlErrorText(error).startsWith("unsupported startup parameter")

interface Probed {
  readonly pooled: boolean
  readonly startup: boolean
  readonly statementTimeoutMs: number
  readonly lockTimeoutMs: number
}

/** The deadlines in milliseconds, as PostgreSQL reports them. */
const READ_BACK = `SELECT pg_backend_pid() AS pid,
  (extract(epoch FROM current_setting('statement_timeout')::interval) * 1000)::int AS statement_ms,
  (extract(epoch FROM current_setting('lock_timeout')::interval) * 1000)::int AS lock_ms`

/**
 * One connection at start: whether a pooler stands between (the process id it announced is not its
 * server's, which a pooler hides), and the deadlines a server connection keeps of itself. With the
 * startup parameters first; a pooler that refuses them is connected to without.
 */
const probe = (url: Redacted.Redacted, options: ClientOptions) => {
  const on = (startup: boolean) =>
    Effect.scoped(Effect.gen(function*() {
      const connection = yield* PgConnection.make(connectionsOn(url, { ...options, maxConnections: 1, startup, prepared: false }))
      const { rows: [row] } = yield* connection.query(READ_BACK)
      const { lock_ms, pid, statement_ms } = row as { pid: number; statement_ms: number; lock_ms: number }
      return { pooled: pid !== connection.processId, startup, statementTimeoutMs: statement_ms, lockTimeoutMs: lock_ms } satisfies Probed
    }))
  return on(true).pipe(Effect.catchIf(refusedStartupParameter, () => on(false)))
}

/** The one line at start: the deadlines PostgreSQL reported, and where they are set. */
const deadlinesLine = (probed: Probed, timeoutMs: number, inTransaction: { statement: number; lock: number } | undefined) =>
  inTransaction === undefined
    ? `database: deadlines statement_timeout ${probed.statementTimeoutMs} ms, lock_timeout ${probed.lockTimeoutMs} ms, kept by each connection${
      probed.pooled ? " (through a pooler: its server connections' own)" : ""
    }`
    : `database: deadlines statement_timeout ${inTransaction.statement} ms, lock_timeout ${inTransaction.lock} ms, set in each transaction, and each statement bounded at ${timeoutMs} ms by the service (${
      probed.pooled ? "through a pooler" : "a direct connection"
    } whose connections keep ${probed.statementTimeoutMs} ms and ${probed.lockTimeoutMs} ms)`

export interface PoolOptions {
  readonly maxConnections?: number
  /** Bounds the wait for a connection, every statement and every lock (`DATABASE_TIMEOUT_MS`). */
  readonly timeoutMs?: number
  /** A direct connection for `LISTEN` (`DATABASE_LISTEN_URL`); unset: `url` itself unless a pooler stands between. */
  readonly listenUrl?: Option.Option<Redacted.Redacted>
}

const failedToConnect = (error: SqlError.SqlError) =>
  new SqlError.SqlError({
    reason: new SqlError.ConnectionError({
      cause: error,
      message: `PgClient: failed to connect: ${sqlErrorText(error)}`,
      operation: "connect"
    })
  })

/**
 * The service's pool on `url`: connected (or failed) before it is used, its deadlines read back
 * and logged.
 */
export const pgClientLayer = (
  url: Redacted.Redacted,
  { listenUrl = Option.none(), maxConnections = POOL_SIZE, timeoutMs = DEFAULT_DATABASE_TIMEOUT_MS }: PoolOptions = {}
) =>
  Layer.effectContext(Effect.gen(function*() {
    const options = { maxConnections, timeoutMs, applicationName: "hotel-booking-api" }
    const probed = yield* Effect.mapError(probe(url, options), failedToConnect)
    const kept = probed.statementTimeoutMs === timeoutMs && probed.lockTimeoutMs === timeoutMs
    const reach: Reach = {
      pooled: probed.pooled,
      startup: probed.startup,
      prepared: !probed.pooled,
      perTransaction: !kept,
      bounded: probed.pooled || !kept
    }
    const listenOn = Option.orElse(listenUrl, () => probed.pooled ? Option.none() : Option.some(url))
    const client = yield* makeClient(url, options, reach, listenOn)
    const inTransaction = kept ? undefined : yield* client.withTransaction(
      Effect.map(client.unsafe<{ statement_ms: number; lock_ms: number }>(READ_BACK), ([row]) => ({ statement: row!.statement_ms, lock: row!.lock_ms }))
    ).pipe(Effect.mapError(failedToConnect))
    yield* Effect.logInfo(deadlinesLine(probed, timeoutMs, inTransaction))
    const databaseReach: typeof DatabaseReach.Service = {
      pooled: probed.pooled,
      listens: Option.isSome(listenOn),
      prepared: reach.prepared,
      connectionsOn: (others) => connectionsOn(url, { ...others, startup: reach.startup, prepared: reach.prepared })
    }
    return Context.make(PgClient.PgClient, client).pipe(
      Context.add(SqlClient.SqlClient, client),
      Context.add(DatabaseReach, databaseReach)
    )
  })).pipe(Layer.provide(Reactivity.layer))
