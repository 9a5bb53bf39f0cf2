import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { EMBEDDED_MAX_CONNECTIONS, embeddedPostgres, pgClientLayer } from "../../src/Layers/Database.js"

const query = <A>(dataDir: string, statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.gen(function*() {
    const url = yield* embeddedPostgres(dataDir)
    return yield* Effect.flatMap(SqlClient.SqlClient, statement).pipe(Effect.provide(pgClientLayer(url, EMBEDDED_MAX_CONNECTIONS)))
  }).pipe(Effect.scoped)

describe("embedded PostgreSQL (PGlite in a child process)", () => {
  it.live("keeps its data across a restart", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hotel-embedded-"))
      yield* query(dir, (sql) => sql`CREATE TABLE kept (n int)`.pipe(Effect.zipRight(sql`INSERT INTO kept VALUES (42)`)))
      const rows = yield* query(dir, (sql) => sql<{ n: number }>`SELECT n FROM kept`)
      expect(rows).toEqual([{ n: 42 }])
      fs.rmSync(dir, { recursive: true, force: true })
    }), 60_000)

  it.live("refuses a data folder that another process is serving", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hotel-embedded-"))
      yield* embeddedPostgres(dir)
      const error = yield* embeddedPostgres(dir).pipe(Effect.flip)
      expect(error.message).toMatch(/in use by process \d+/)
    }).pipe(Effect.scoped), 60_000)
})
