import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { checkBackupHeader, checkBackupTables, insertionOrder, migrationsUpTo } from "../../src/Domain/Backup.js"

const known = ["0001_a", "0002_b", "0003_c"]

describe("backup file checks", () => {
  it("this format and a known schema are read; a newer format or an unknown schema is refused, saying which", () => {
    expect(Result.isSuccess(checkBackupHeader({ format: 1, schema: "0003_c" }, known))).toBe(true)
    expect(Result.isSuccess(checkBackupHeader({ format: 1, schema: "0001_a" }, known))).toBe(true)
    const newer = checkBackupHeader({ format: 2, schema: "0003_c" }, known)
    expect(Result.isFailure(newer) && newer.failure.message).toMatch(/format 2.*format 1/)
    const unknown = checkBackupHeader({ format: 1, schema: "0004_d" }, known)
    expect(Result.isFailure(unknown) && unknown.failure.message).toMatch(/0004_d.*0003_c/)
  })

  it("the migrations up to a file's schema", () => {
    expect(migrationsUpTo(known, "0002_b")).toEqual(["0001_a", "0002_b"])
  })

  it("the file's tables are exactly the schema's", () => {
    expect(Result.isSuccess(checkBackupTables(["b", "a"], ["a", "b"]))).toBe(true)
    const wrong = checkBackupTables(["a", "x"], ["a", "b"])
    expect(Result.isFailure(wrong) && wrong.failure.message).toMatch(/missing: b.*unknown: x/)
  })

  it("parents before children, a table pointing to itself included", () => {
    const order = insertionOrder(
      ["changes", "hotel", "jobs", "reservations", "room_types", "nights"],
      [
        { child: "room_types", parent: "hotel" },
        { child: "nights", parent: "room_types" },
        { child: "jobs", parent: "reservations" },
        { child: "changes", parent: "reservations" },
        { child: "reservations", parent: "reservations" }
      ]
    )
    expect(order).toHaveLength(6)
    const before = (a: string, b: string) => order.indexOf(a) < order.indexOf(b)
    expect(before("hotel", "room_types") && before("room_types", "nights")).toBe(true)
    expect(before("reservations", "jobs") && before("reservations", "changes")).toBe(true)
  })
})
