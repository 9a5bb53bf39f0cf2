import { SqlError } from "@effect/sql/SqlError"
import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { databaseFault } from "../../../src/Layers/Persistence/DatabaseFaults.js"

/** A failed statement as `@effect/sql-pg` raises it, with the driver's error as its cause. */
const failed = (cause: unknown) => new SqlError({ cause, message: "Failed to execute statement" })
const serverError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: "ERROR" })
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, errno: -111 })
const kindOf = (error: unknown) => Option.map(databaseFault(error), (fault) => fault.kind)

describe("databaseFault", () => {
  it("tells a database gone from a deadline passed, and both from a fault of ours", () => {
    expect(kindOf(failed(serverError("57P01", "terminating connection due to administrator command")))).toEqual(Option.some("unreachable"))
    expect(kindOf(failed(serverError("57P03", "the database system is shutting down")))).toEqual(Option.some("unreachable"))
    expect(kindOf(failed(serverError("08006", "connection failure")))).toEqual(Option.some("unreachable"))
    expect(kindOf(failed(serverError("53300", "sorry, too many clients already")))).toEqual(Option.some("unreachable"))
    expect(kindOf(failed(serverError("25006", "cannot execute INSERT in a read-only transaction")))).toEqual(Option.some("unreachable"))
    expect(kindOf(failed(socketError("ECONNREFUSED")))).toEqual(Option.some("unreachable"))
    expect(kindOf(failed(socketError("ENOENT")))).toEqual(Option.some("unreachable")) // the embedded server's socket gone
    expect(kindOf(failed(socketError("EPIPE")))).toEqual(Option.some("unreachable")) // five capitals, yet no SQLSTATE
    expect(kindOf(failed(new Error("Connection terminated unexpectedly")))).toEqual(Option.some("unreachable"))

    expect(kindOf(failed(serverError("55P03", "canceling statement due to lock timeout")))).toEqual(Option.some("deadline"))
    expect(kindOf(failed(serverError("57014", "canceling statement due to statement timeout")))).toEqual(Option.some("deadline"))
    expect(kindOf(new SqlError({ cause: new Error("timeout exceeded when trying to connect"), message: "Failed to acquire connection" })))
      .toEqual(Option.some("deadline"))

    // a statement of ours that is wrong stays a 500: it must be seen, not retried
    expect(kindOf(failed(serverError("23505", "duplicate key value violates unique constraint")))).toEqual(Option.none())
    expect(kindOf(failed(serverError("42703", "column \"nme\" does not exist")))).toEqual(Option.none())
    expect(kindOf(failed(serverError("40P01", "deadlock detected")))).toEqual(Option.none())
    expect(kindOf(new Error("ECONNREFUSED, but not from the database"))).toEqual(Option.none())
  })
})
