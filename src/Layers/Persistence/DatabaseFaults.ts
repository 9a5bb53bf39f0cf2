import { Cause, Data, Option } from "effect"
import { SqlError } from "effect/sql"

/** The database did not answer a ping (health, the outage watch): an error, or no answer in time (`timedOut`). */
export class DatabaseUnreachable extends Data.TaggedError("DatabaseUnreachable")<{
  readonly message: string
  readonly timedOut?: boolean
}> {}

/**
 * A failure of the database under a request, not of the request itself: `unreachable` (refused,
 * reset, shut down, a connection killed, a server that will not take writes), or a `deadline`
 * passed (`DATABASE_TIMEOUT_MS`: a statement, a lock, a turn for a connection). Either is answered
 * 503 with `Retry-After`; anything else a statement raises (a constraint, a syntax error) is a fault
 * of ours, answered 500.
 */
export interface DatabaseFault {
  readonly kind: "unreachable" | "deadline"
  readonly reason: string
}

/**
 * What the server or the socket said of a failed statement (`the database system is shutting down`,
 * `connect ECONNREFUSED …`), else the driver's own words. A connection made alone (not by the pool)
 * wraps the driver's error in another.
 */
export const sqlErrorText = (error: SqlError.SqlError): string => {
  let said: unknown = error.reason.cause
  while (SqlError.isSqlError(said)) said = said.reason.cause
  return said instanceof Error && said.message !== "" ? said.message : error.message
}

/** Why `noConnectionInTime` failed a statement, in the driver's words for a connection not made in time. */
const NO_CONNECTION_IN_TIME = "PgConnection: Connection timed out"

/** No connection within the deadline: none free in time (all busy), or none made in time. */
export const noConnectionInTime = (timeoutMs: number) =>
  new SqlError.SqlError({
    reason: new SqlError.ConnectionError({
      cause: new Error(`no connection within ${timeoutMs} ms`),
      message: NO_CONNECTION_IN_TIME,
      operation: "connect"
    })
  })

/** Why `noAnswerInTime` failed a statement: the service's own bound, where the server's may be missing (a pooler). */
const NO_ANSWER_IN_TIME = "PgClient: no answer within the deadline"

/** A statement not answered within the deadline, by the service's own bound (the driver cancels it on the server). */
export const noAnswerInTime = (timeoutMs: number) =>
  new SqlError.SqlError({
    reason: new SqlError.ConnectionError({
      cause: new Error(`no answer within ${timeoutMs} ms`),
      message: NO_ANSWER_IN_TIME,
      operation: "execute"
    })
  })

const SQLSTATE = /^[0-9A-Z]{5}$/

/** PostgreSQL's error codes (SQLSTATE) of a database that cannot serve just now. */
const unreachableCode = (code: string) =>
  code.startsWith("08") || // connection exception
  code.startsWith("53") || // insufficient resources: disk full, out of memory, too many connections
  code.startsWith("58") || // system error (I/O)
  code.startsWith("57P") || // shut down, crashed, starting up, killed by an administrator (pg_terminate_backend)
  code === "25006" // read-only transaction: a standby after a failover

const deadlineCode = (code: string) =>
  code === "57014" || // statement_timeout
  code === "55P03" // lock_timeout

/** What a defect or failure says of the database, if it is a database's fault at all. */
export const databaseFault = (error: unknown): Option.Option<DatabaseFault> => {
  if (!SqlError.isSqlError(error)) return Option.none()
  const said = error.reason.cause
  // a SQLSTATE only on what the server said (it has a severity): a socket's `EPIPE` is five capitals too
  const code = typeof said === "object" && said !== null && "code" in said && "severity" in said ? String(said.code) : ""
  const reason = sqlErrorText(error)
  if (SQLSTATE.test(code)) {
    return unreachableCode(code)
      ? Option.some({ kind: "unreachable", reason })
      : deadlineCode(code)
      ? Option.some({ kind: "deadline", reason })
      : Option.none()
  }
  // no SQLSTATE: the server never answered (a socket error, a connection lost or not made in time),
  // or the driver refused a value of ours, which is no connection's fault
  if (error.reason._tag !== "ConnectionError") return Option.none()
  return Option.some({ kind: error.reason.message === NO_CONNECTION_IN_TIME || error.reason.message === NO_ANSWER_IN_TIME ? "deadline" : "unreachable", reason })
}

/** The first failure or defect of `cause` that is a database's fault, if any. */
export const databaseFaultIn = (cause: Cause.Cause<unknown>): Option.Option<unknown> =>
  Option.fromNullishOr(
    [
      ...cause.reasons.filter(Cause.isDieReason).map((reason) => reason.defect),
      ...cause.reasons.filter(Cause.isFailReason).map((reason) => reason.error)
    ].find((error) => Option.isSome(databaseFault(error)))
  )
