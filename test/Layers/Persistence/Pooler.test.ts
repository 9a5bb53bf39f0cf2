import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Logger, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as path from "node:path"
import pg from "pg"
import { DatabaseLive, DatabaseReach } from "../../../src/Layers/Persistence/Database.js"
import { databaseFault, databaseFaultIn } from "../../../src/Layers/Persistence/DatabaseFaults.js"
import { MigrationsLive, STARTUP_LOCK } from "../../../src/Layers/Persistence/Migrations.js"
import { OutboxRepo } from "../../../src/Layers/Persistence/OutboxRepo.js"
import { AppConfig } from "../../../src/Layers/Platform/AppConfig.js"
import { testDatabaseUrl } from "../../support/database.js"

/*
 * The service behind PgBouncer in transaction mode with its default settings (docs/decisions.md#behind-a-pooler, "behind a
 * connection pooler"): `.ci/with-pgbouncer` starts one and names it and the server behind it.
 */
const poolerUrl = process.env.TEST_POOLER_URL
const serverUrl = process.env.TEST_POOLER_SERVER_URL

const TIMEOUT_MS = 1000
/** A deadline kept, on two busy cores, as against none (the lock is held far longer). */
const MARGIN_MS = 1500

/** `database`'s URL on the server `through` names (the pooler, or the server behind it). */
const on = (through: string, database: Redacted.Redacted) => {
  const url = new URL(through)
  url.pathname = new URL(Redacted.value(database)).pathname
  return Redacted.make(url.toString())
}

/** The service's database layer on `url` as `DATABASE_URL`, its info lines kept in `lines`. */
const serviceOn = (url: Redacted.Redacted, lines: Array<string>, listenUrl: Option.Option<Redacted.Redacted> = Option.none()) =>
  DatabaseLive.pipe(
    Layer.provide(AppConfig.InMemory({ databaseUrl: Option.some(url), databaseListenUrl: listenUrl, databaseTimeoutMs: TIMEOUT_MS })),
    Layer.provideMerge(Logger.layer([Logger.make(({ logLevel, message }) => {
      if (logLevel === "Info") lines.push(String(message))
    })]))
  )

/** A client of the operator's (or another instance's): holds a lock in a transaction (`take`) until the scope ends. */
const lockHeld = (url: Redacted.Redacted, take: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: Redacted.value(url) })
      client.on("error", () => {})
      await client.connect()
      await client.query(`BEGIN; ${take}`)
      return client
    }),
    (client) => Effect.promise(() => client.query("ROLLBACK").then(() => client.end()).catch(() => undefined))
  )

/** How long `statement` took, and what the service makes of its failure. */
const timed = <A, E, R>(statement: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const started = Date.now()
    const exit = yield* Effect.exit(statement)
    return {
      ms: Date.now() - started,
      fault: Exit.isSuccess(exit) ? Option.none() : Option.map(Option.flatMap(databaseFaultIn(exit.cause), databaseFault), (f) => f.kind)
    }
  })

if (poolerUrl === undefined || serverUrl === undefined) {
  describe("the service behind PgBouncer", () => {
    it.skip("skipped: TEST_POOLER_URL and TEST_POOLER_SERVER_URL unset (.ci/with-pgbouncer sets them)", () => {})
  })
} else {
  describe("the service behind PgBouncer in transaction mode, with its default settings", () => {
    it.live("starts, sets its deadlines in each transaction, logs the ones PostgreSQL reports, and prepares nothing", () =>
      Effect.gen(function*() {
        const pooled = on(poolerUrl, yield* testDatabaseUrl)
        const lines: Array<string> = []
        const { reach, setting } = yield* Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const [row] = yield* sql.withTransaction(sql<{ statement: string; lock: string }>`
            SELECT current_setting('statement_timeout') AS statement, current_setting('lock_timeout') AS lock`)
          return { reach: yield* DatabaseReach, setting: row }
        }).pipe(Effect.provide(serviceOn(pooled, lines)), Effect.scoped)
        expect({ pooled: reach.pooled, prepared: reach.prepared }).toEqual({ pooled: true, prepared: false })
        expect(setting).toEqual({ statement: "1s", lock: "1s" })
        expect(lines).toContain(
          "database: deadlines statement_timeout 1000 ms, lock_timeout 1000 ms, set in each transaction, and each statement " +
            "bounded at 1000 ms by the service (through a pooler whose connections keep 0 ms and 0 ms)"
        )
      }), 30_000)

    it.live("a lock held for ever is a deadline within DATABASE_TIMEOUT_MS, in a transaction and outside one", () =>
      Effect.gen(function*() {
        const database = yield* testDatabaseUrl
        const pooled = on(poolerUrl, database)
        yield* Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql`CREATE TABLE probe (id int)`
          yield* lockHeld(on(serverUrl, database), "LOCK TABLE probe IN ACCESS EXCLUSIVE MODE")
          const inTransaction = yield* timed(sql.withTransaction(sql`SELECT * FROM probe`))
          const alone = yield* timed(sql`SELECT * FROM probe`)
          for (const { fault, ms } of [inTransaction, alone]) {
            expect(fault).toEqual(Option.some("deadline"))
            expect(ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS)
          }
        }).pipe(Effect.provide(serviceOn(pooled, [])), Effect.scoped)
      }), 30_000)

    it.live("start-up migrations wait past the deadline for another instance's", () =>
      Effect.gen(function*() {
        const database = yield* testDatabaseUrl
        const config = AppConfig.InMemory({
          databaseUrl: Option.some(on(poolerUrl, database)),
          databaseTimeoutMs: TIMEOUT_MS,
          hotelFile: path.resolve("data/hotel.json")
        })
        const migrated = MigrationsLive.pipe(Layer.provideMerge(DatabaseLive), Layer.provide(Layer.merge(config, NodeServices.layer)))
        const started = Date.now()
        const [, exit] = yield* Effect.all([
          // the other instance migrating: twice the deadline
          Effect.scoped(Effect.andThen(lockHeld(on(serverUrl, database), `SELECT pg_advisory_xact_lock(${STARTUP_LOCK})`), Effect.sleep(2 * TIMEOUT_MS))),
          Effect.exit(Effect.scoped(Layer.build(migrated))).pipe(Effect.delay(100))
        ], { concurrency: "unbounded" })
        expect(Exit.isSuccess(exit)).toBe(true)
        expect(Date.now() - started).toBeGreaterThanOrEqual(2 * TIMEOUT_MS)
      }), 30_000)

    it.live("never LISTENs through the pooler: the outbox polls, or listens on DATABASE_LISTEN_URL when given", () =>
      Effect.gen(function*() {
        const database = yield* testDatabaseUrl
        const pooled = on(poolerUrl, database)
        const wakeUps = (listenUrl: Option.Option<Redacted.Redacted>) =>
          Effect.map(OutboxRepo, (outbox) => Option.isSome(outbox.wakeUps)).pipe(
            Effect.provide(OutboxRepo.layer.pipe(Layer.provideMerge(serviceOn(pooled, [], listenUrl)))),
            Effect.scoped
          )
        expect(yield* wakeUps(Option.none())).toBe(false)
        expect(yield* wakeUps(Option.some(on(serverUrl, database)))).toBe(true)
      }), 30_000)
  })
}
