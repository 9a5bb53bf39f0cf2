import { SqlError } from "@effect/sql/SqlError"
import { Cause, Data, Option } from "effect"

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

/** An error's own message, or what it is when it has none. */
export const messageOf = (error: unknown): string =>
  error instanceof Error && error.message !== "" ? error.message : String(error)

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

/** The pool's own words when no connection came within its deadline (`connectionTimeoutMillis`). */
const NO_CONNECTION_IN_TIME = "timeout exceeded when trying to connect"

/** What a defect or failure says of the database, if it is a database's fault at all. */
export const databaseFault = (error: unknown): Option.Option<DatabaseFault> => {
  if (!(error instanceof SqlError)) return Option.none()
  const cause = error.cause
  // a SQLSTATE only on what the server said (it has a severity): a socket's `EPIPE` is five capitals too
  const code = typeof cause === "object" && cause !== null && "code" in cause && "severity" in cause ? String(cause.code) : ""
  const reason = cause === undefined ? error.message : messageOf(cause)
  if (SQLSTATE.test(code)) {
    return unreachableCode(code)
      ? Option.some({ kind: "unreachable", reason })
      : deadlineCode(code)
      ? Option.some({ kind: "deadline", reason })
      : Option.none()
  }
  // no SQLSTATE: the server never answered (a socket error, a connection lost or not made in time)
  return Option.some({ kind: reason.includes(NO_CONNECTION_IN_TIME) ? "deadline" : "unreachable", reason })
}

/** The first failure or defect of `cause` that is a database's fault, if any. */
export const databaseFaultIn = (cause: Cause.Cause<unknown>): Option.Option<unknown> =>
  Option.fromNullable([...Cause.defects(cause), ...Cause.failures(cause)].find((error) => Option.isSome(databaseFault(error))))
