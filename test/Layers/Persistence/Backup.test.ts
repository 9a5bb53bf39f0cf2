import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Repositories, Services } from "../../../src/Composition.js"
import type { RoomTypeId } from "../../../src/Domain/Ids.js"
import type { LocalDate } from "../../../src/Domain/LocalDate.js"
import { exportTo, importFrom } from "../../../src/Layers/Persistence/Backup.js"
import { ReservationRepo } from "../../../src/Layers/Persistence/ReservationRepo.js"
import { AppConfig } from "../../../src/Layers/Platform/AppConfig.js"
import { AppSecret } from "../../../src/Layers/Platform/AppSecret.js"
import { Quotes } from "../../../src/Services/Quotes.js"
import { ReservationManagement } from "../../../src/Services/ReservationManagement.js"
import { Reservations } from "../../../src/Services/Reservations.js"
import { Tokens } from "../../../src/Services/Tokens.js"
import { makeTestClock } from "../../support/clock.js"
import { poolOn, testDatabaseUrl } from "../../support/database.js"
import { migrationFiles } from "../../../src/Layers/Persistence/migrations/index.js"
import { client, completed } from "../../support/serviceFlow.js"

const clock = makeTestClock("2026-11-22T10:00:00Z")
const Config = Layer.mergeAll(AppConfig.InMemory({ hotelFile: path.resolve("data/hotel.json") }), NodeServices.layer, AppSecret.InMemory)
/** The service's repositories and services on one database (migrated, the hotel imported when it is empty). */
const serviceOn = (url: Redacted.Redacted) =>
  Services.pipe(Layer.provideMerge(Repositories), Layer.provideMerge(poolOn(url)), Layer.provide(Config), Layer.provideMerge(clock.layer))

/** Per table of the service: its rows and a digest of their contents, in a stable order. */
const contents = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ name: string }>`
    SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'effect_sql_migrations' ORDER BY 1`
  return Object.fromEntries(
    yield* Effect.forEach(tables, ({ name }) =>
      sql<{ rows: number; digest: string | null }>`
        SELECT count(*)::int AS rows, md5(string_agg(r, ',' ORDER BY r)) AS digest
        FROM (SELECT row_to_json(t)::text AS r FROM ${sql(name)} AS t) AS s`.pipe(Effect.map(([c]) => [name, c!] as const)))
  )
})

const pendingIntent = (key: string) => Effect.gen(function*() {
  const quote = yield* (yield* Quotes).quoteRooms({
    checkin: "2027-02-01" as LocalDate,
    checkout: "2027-02-03" as LocalDate,
    rooms: [{ room_type_id: "double" as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }]
  }, client)
  const { response } = yield* (yield* Reservations).createIntent(
    { quote_id: quote.quote_id, package_code: quote.package_offers[0]!.package_code, language: "en" },
    client,
    key,
    "192.0.2.1"
  )
  return response.reservation_id
})

const temporaryFolder = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "hotel-backup-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

describe("db:export and db:import", () => {
  it.effect(
    "a completed (with DIRECT12), a cancelled and a pending reservation with their emails move to another database whole; a filled database and a newer format are refused",
    () =>
      Effect.gen(function*() {
        const source = yield* testDatabaseUrl
        const target = yield* testDatabaseUrl
        const file = path.join(yield* temporaryFolder, "hotel.backup.json")

        const before = yield* Effect.gen(function*() {
          const kept = yield* completed("2027-01-10", "2027-01-13", [{ room_type_id: "double" }], "FLEX", "DIRECT12")
          const gone = yield* completed("2027-01-20", "2027-01-22", [{ room_type_id: "double" }])
          yield* (yield* ReservationManagement).act(gone.token, { action: "cancel" }, "192.0.2.1")
          const pending = yield* pendingIntent("before-export")
          const exported = yield* exportTo(file)
          return { kept, pending, exported, contents: yield* contents }
        }).pipe(Effect.provide(serviceOn(source)))

        // the file: 0600, versions, every table of the service, never the secret
        expect(fs.statSync(file).mode & 0o777).toBe(0o600)
        const text = fs.readFileSync(file, "utf8")
        const parsed = JSON.parse(text)
        expect(parsed.format).toBe(1)
        // the schema the export was made on: the last migration
        expect(parsed.schema).toBe(Object.keys(migrationFiles).at(-1))
        expect(Object.keys(parsed.tables).sort()).toEqual(Object.keys(before.contents).sort())
        expect(text).not.toContain("test-secret-test-secret")
        expect(before.contents.reservations!.rows).toBe(3)
        expect(before.contents.outbox_jobs!.rows).toBeGreaterThanOrEqual(3)

        yield* importFrom(file).pipe(Effect.provide(poolOn(target)))

        yield* Effect.gen(function*() {
          // every row as it was, table by table (a digest of each row's JSON)
          expect(yield* contents).toEqual(before.contents)
          // the manage link works with the same secret
          const verified = yield* (yield* Tokens).verify(before.kept.token, "manage")
          expect(verified).toEqual({ reservationId: before.kept.id, expired: false })
          expect(yield* (yield* ReservationRepo).countPromoCodeUses("DIRECT12")).toBe(1)
          const sql = yield* SqlClient.SqlClient
          const jobs = yield* sql<{ kind: string; state: string }>`
            SELECT kind, state FROM outbox_jobs WHERE reservation_id = ${before.kept.id} ORDER BY seq`
          expect(jobs).toContainEqual({ kind: "confirmation_email", state: "pending" })
          expect((yield* sql<{ status: string }>`SELECT status FROM reservations WHERE id = ${before.pending}`)[0]!.status).toBe("PENDING_GUEST")
          // the sequences go on past the imported values
          const [seqs] = yield* sql<{ outbox: boolean; changes: boolean }>`
            SELECT pg_sequence_last_value(pg_get_serial_sequence('outbox_jobs', 'seq')) >= (SELECT max(seq) FROM outbox_jobs) AS outbox,
                   pg_sequence_last_value(pg_get_serial_sequence('reservation_changes', 'seq')) >= (SELECT max(seq) FROM reservation_changes) AS changes`
          expect(seqs).toEqual({ outbox: true, changes: true })
          // and the service goes on there: another reservation is taken
          yield* pendingIntent("after-import")
          expect((yield* contents).reservations!.rows).toBe(4)
        }).pipe(Effect.provide(serviceOn(target)))

        // a database with rows is refused, and left as it was
        const again = yield* Effect.flip(importFrom(file).pipe(Effect.provide(poolOn(target))))
        expect(again._tag).toBe("BackupRefused")
        expect(again.message).toContain("the database is not empty")
        expect((yield* contents.pipe(Effect.provide(poolOn(target)))).reservations!.rows).toBe(4)

        // a newer format is refused, saying which
        const newer = path.join(path.dirname(file), "newer.json")
        fs.writeFileSync(newer, JSON.stringify({ ...parsed, format: 2 }))
        const third = yield* testDatabaseUrl
        const refused = yield* Effect.flip(importFrom(newer).pipe(Effect.provide(poolOn(third))))
        expect(refused._tag).toBe("BackupRefused")
        expect(refused.message).toContain("format 2")
        expect(refused.message).toContain("format 1")

        // a file of an older schema (before the reservation feed) goes into that schema, then the rest migrates
        const older = path.join(path.dirname(file), "older.json")
        const { intents_by_address: _intents, reservation_changes: _, ...olderTables } = parsed.tables
        fs.writeFileSync(older, JSON.stringify({ ...parsed, schema: "0010_channel", sequences: {}, tables: olderTables }))
        const loaded = yield* importFrom(older).pipe(Effect.provide(poolOn(third)))
        expect(loaded.tables.map((t) => t.table)).not.toContain("reservation_changes")
        const migrated = yield* contents.pipe(Effect.provide(poolOn(third)))
        expect(migrated.reservation_changes!.rows).toBe(0)
        expect(migrated.reservations).toEqual(before.contents.reservations)
      }),
    60_000
  )
})

describe("db:import of rows the schema refuses", () => {
  it.effect("says in one line, without a stack, which table and row, exits non-zero, and leaves nothing behind", () =>
    Effect.gen(function*() {
      const source = yield* testDatabaseUrl
      const target = yield* testDatabaseUrl
      const file = path.join(yield* temporaryFolder, "duplicate.backup.json")
      const id = yield* Effect.gen(function*() {
        const id = yield* pendingIntent("exported")
        yield* exportTo(file)
        return id
      }).pipe(Effect.provide(serviceOn(source)))
      // the same reservation twice: its key is taken by the first
      const parsed = JSON.parse(fs.readFileSync(file, "utf8"))
      parsed.tables.reservations.push(parsed.tables.reservations[0])
      fs.writeFileSync(file, JSON.stringify(parsed))

      const run = spawnSync(process.execPath, ["--import", "tsx", "src/bin/db-import.ts", file], {
        env: { PATH: process.env.PATH, DATABASE_URL: Redacted.value(target), APP_SECRET: "test-secret-test-secret-test-secret", LOG_FORMAT: "json" },
        encoding: "utf8"
      })
      expect(run.status).not.toBe(0)
      const lines = run.stderr.trim().split("\n")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toContain("table reservations")
      expect(lines[0]).toContain(`Key (id)=(${id}) already exists`)
      expect(run.stderr + run.stdout).not.toMatch(/\n\s+at /)
      const [left] = yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ tables: number }>`SELECT count(*)::int AS tables FROM pg_tables WHERE schemaname = current_schema()`
      ).pipe(Effect.provide(poolOn(target)))
      expect(left!.tables).toBe(0)
    }), 60_000)
})
