import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { SqlError } from "effect/sql"
import { databaseFault, noConnectionInTime } from "../../../src/Layers/Persistence/DatabaseFaults.js"

/**
 * A failed statement as `@effect/sql-pg` raises it: its reason classified by the SQLSTATE, with
 * what the server said (its fields, a severity among them) as the reason's cause.
 */
const failed = (reason: SqlError.SqlErrorReason) => new SqlError.SqlError({ reason })
const serverError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: "ERROR" })
const query = { message: "PgConnection: Query failed", operation: "query" }
const unknown = (cause: unknown) => failed(new SqlError.UnknownError({ cause, ...query }))
/** The socket's error, or the driver's own words for a connection lost: no SQLSTATE. */
const connection = (cause: unknown) => failed(new SqlError.ConnectionError({ cause, message: "PgConnection: Socket error", operation: "query" }))
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, errno: -111 })
const kindOf = (error: unknown) => Option.map(databaseFault(error), (fault) => fault.kind)

describe("databaseFault", () => {
  it("tells a database gone from a deadline passed, and both from a fault of ours", () => {
    expect(kindOf(unknown(serverError("57P01", "terminating connection due to administrator command")))).toEqual(Option.some("unreachable"))
    expect(kindOf(unknown(serverError("57P03", "the database system is shutting down")))).toEqual(Option.some("unreachable"))
    expect(kindOf(failed(new SqlError.ConnectionError({ cause: serverError("08006", "connection failure"), ...query }))))
      .toEqual(Option.some("unreachable"))
    expect(kindOf(unknown(serverError("53300", "sorry, too many clients already")))).toEqual(Option.some("unreachable"))
    expect(kindOf(unknown(serverError("25006", "cannot execute INSERT in a read-only transaction")))).toEqual(Option.some("unreachable"))
    expect(kindOf(connection(socketError("ECONNREFUSED")))).toEqual(Option.some("unreachable"))
    expect(kindOf(connection(socketError("ENOENT")))).toEqual(Option.some("unreachable")) // the embedded server's socket gone
    expect(kindOf(connection(socketError("EPIPE")))).toEqual(Option.some("unreachable")) // five capitals, yet no SQLSTATE
    expect(kindOf(connection(new Error("Connection closed")))).toEqual(Option.some("unreachable"))

    expect(kindOf(failed(new SqlError.LockTimeoutError({ cause: serverError("55P03", "canceling statement due to lock timeout"), ...query }))))
      .toEqual(Option.some("deadline"))
    expect(kindOf(failed(new SqlError.StatementTimeoutError({ cause: serverError("57014", "canceling statement due to statement timeout"), ...query }))))
      .toEqual(Option.some("deadline"))
    expect(kindOf(noConnectionInTime(1000))).toEqual(Option.some("deadline"))
    expect(kindOf(failed(new SqlError.ConnectionError({ cause: new Error("Connection timed out"), message: "PgConnection: Connection timed out", operation: "connect" }))))
      .toEqual(Option.some("deadline"))

    // a statement of ours that is wrong stays a 500: it must be seen, not retried
    expect(kindOf(failed(new SqlError.UniqueViolation({ cause: serverError("23505", "duplicate key value violates unique constraint"), constraint: "k", ...query }))))
      .toEqual(Option.none())
    expect(kindOf(failed(new SqlError.SqlSyntaxError({ cause: serverError("42703", "column \"nme\" does not exist"), ...query })))).toEqual(Option.none())
    expect(kindOf(failed(new SqlError.DeadlockError({ cause: serverError("40P01", "deadlock detected"), ...query })))).toEqual(Option.none())
    // a value the driver cannot bind is no database's fault either
    expect(kindOf(unknown(new Error("Cannot infer a PostgreSQL type for [object Object]")))).toEqual(Option.none())
    expect(kindOf(new Error("ECONNREFUSED, but not from the database"))).toEqual(Option.none())
  })

  it("says what the server or the socket said", () => {
    expect(databaseFault(unknown(serverError("57P03", "the database system is shutting down"))))
      .toEqual(Option.some({ kind: "unreachable", reason: "the database system is shutting down" }))
    expect(databaseFault(connection(socketError("ECONNREFUSED"))))
      .toEqual(Option.some({ kind: "unreachable", reason: "connect ECONNREFUSED 127.0.0.1:5432" }))
    expect(databaseFault(noConnectionInTime(1000))).toEqual(Option.some({ kind: "deadline", reason: "no connection within 1000 ms" }))
  })
})
