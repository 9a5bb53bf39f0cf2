import { PgClient, PgConnection, PgTypes } from "@effect/sql-pg"
import { Effect, Redacted, Result } from "effect"
import { SqlClient, type SqlConnection, SqlError } from "effect/sql"
import { DEFAULT_DATABASE_TIMEOUT_MS } from "../Platform/AppConfig.js"
import { noConnectionInTime, sqlErrorText } from "./DatabaseFaults.js"

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

/**
 * Connections whose every wait on the server is bounded by `timeoutMs`: every statement and every
 * lock (PostgreSQL cancels it and the transaction rolls back whole), and making the connection.
 * Settings of the connection, so they cost no round trip. A connection its server ended (FATAL:
 * `pg_terminate_backend`, a shutdown) is never handed out again: the driver's pool retires it.
 */
export const connectionsOn = (url: Redacted.Redacted, options: ClientOptions) => ({
  url,
  maxConnections: options.maxConnections,
  connectTimeout: options.timeoutMs,
  applicationName: options.applicationName,
  startupParameters: { statement_timeout: String(options.timeoutMs), lock_timeout: String(options.timeoutMs) },
  types,
  // any message the protocol can carry: an export reads a whole table as one value, past the driver's 16 MiB
  maxMessageSize: 2 ** 31 - 1,
  // unnamed statements, as ever: PostgreSQL plans each for its own values, and a pooler in front
  // (PgBouncer's transaction mode) keeps no statement prepared on one connection for the next
  prepare: false
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
 * The driver's client, with a turn for a connection (the pool's wait when all are busy, or its
 * making of a new one) bounded by `timeoutMs` as well, which its own pool does not bound. Its
 * statements' spans stay `sql.execute`: the driver would name them after the database. A `LISTEN`
 * holds a connection of its own for as long as it listens, never one of the pool's.
 */
const makeClient = (url: Redacted.Redacted, options: ClientOptions) =>
  Effect.gen(function*() {
    const connections = connectionsOn(url, options)
    const driver = yield* PgClient.make(connections)
    const acquirer = driver.reserve.pipe(
      Effect.timeoutOrElse({ duration: options.timeoutMs, orElse: () => Effect.fail(noConnectionInTime(options.timeoutMs)) })
    )
    const sql = yield* SqlClient.make({
      acquirer,
      transactionAcquirer: acquirer,
      compiler: PgClient.makeCompiler(),
      driver: "pg",
      spanAttributes: [],
      commit,
      releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`
    })
    const client: PgClient.PgClient = Object.assign(sql, {
      [PgClient.TypeId]: PgClient.TypeId,
      config: driver.config,
      json: driver.json,
      listen: (channel: string) => Effect.flatMap(PgConnection.make(connections), (connection) => connection.listen(channel)),
      notify: driver.notify
    })
    return client
  })

export interface PoolOptions {
  readonly maxConnections?: number
  /** Bounds the wait for a connection, every statement and every lock (`DATABASE_TIMEOUT_MS`). */
  readonly timeoutMs?: number
}

/** The service's pool on `url`: connected (or failed) before it is used. */
export const pgClientLayer = (url: Redacted.Redacted, { maxConnections = POOL_SIZE, timeoutMs = DEFAULT_DATABASE_TIMEOUT_MS }: PoolOptions = {}) =>
  PgClient.layerFrom(Effect.gen(function*() {
    const client = yield* makeClient(url, { maxConnections, timeoutMs, applicationName: "hotel-booking-api" })
    yield* Effect.scoped(Effect.flatMap(client.reserve, (connection) => connection.executeRaw("SELECT 1", []))).pipe(
      Effect.mapError((error) =>
        new SqlError.SqlError({
          reason: new SqlError.ConnectionError({
            cause: error,
            message: `PgClient: failed to connect: ${sqlErrorText(error)}`,
            operation: "connect"
          })
        })
      )
    )
    return client
  }))
