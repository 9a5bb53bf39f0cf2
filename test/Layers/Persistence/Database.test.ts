import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, Logger, Option, Queue, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import pg from "pg"
import { DatabaseLive, DatabaseReach } from "../../../src/Layers/Persistence/Database.js"
import { databaseFault, databaseFaultIn } from "../../../src/Layers/Persistence/DatabaseFaults.js"
import { AppConfig } from "../../../src/Layers/Platform/AppConfig.js"
import { poolOn, testDatabaseUrl } from "../../support/database.js"

/** Starts the pool on `url` as `DATABASE_URL`: the warnings logged meanwhile, and the role it connected as. */
const startOn = (url: Redacted.Redacted) =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => {
      if (logLevel === "Warn") warnings.push(String(message))
    })
    const role = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ name: string }>`SELECT current_user AS name`).pipe(
      Effect.provide(DatabaseLive.pipe(
        Layer.provide(AppConfig.InMemory({ databaseUrl: Option.some(url) })),
        Layer.provideMerge(Logger.layer([logger]))
      )),
      Effect.scoped
    )
    return { warnings, role: role[0]?.name }
  })

describe("DatabaseLive with DATABASE_URL", () => {
  it.live("connects as given, and warns at start when that role is a superuser", () =>
    Effect.gen(function*() {
      const url = yield* testDatabaseUrl // the test server's superuser, postgres
      const { role, warnings } = yield* startOn(url)
      expect(warnings).toEqual([
        `DATABASE_URL connects as ${role}, a superuser: connect as a role that owns the service's database and is not a superuser`
      ])
    }), 30_000)

  it.live.skipIf(process.env.TEST_DATABASE_URL === process.env.TEST_POOLER_URL)(
    "on a direct connection: its deadlines kept by each connection, read back and logged at start, LISTEN on it, and its statements prepared once",
    () =>
      Effect.gen(function*() {
        const url = yield* testDatabaseUrl
        const lines: Array<string> = []
        const logger = Logger.make(({ logLevel, message }) => {
          if (logLevel === "Info") lines.push(String(message))
        })
        const { preparedOnce, reach } = yield* Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          // the same statement twice on one connection: parsed once, under a name the session keeps
          const preparedOnce = yield* sql.withTransaction(Effect.gen(function*() {
            for (const n of [1, 2]) yield* sql`SELECT ${n}::int AS prepared_once_probe`
            const [row] = yield* sql<{ count: number }>`
              SELECT count(*)::int AS count FROM pg_prepared_statements WHERE statement LIKE '%AS prepared_once_probe' AND NOT from_sql`
            return row!.count
          }))
          return { preparedOnce, reach: yield* DatabaseReach }
        }).pipe(
          Effect.provide(DatabaseLive.pipe(
            Layer.provide(AppConfig.InMemory({ databaseUrl: Option.some(url), databaseTimeoutMs: 1234 })),
            Layer.provideMerge(Logger.layer([logger]))
          )),
          Effect.scoped
        )
        expect({ pooled: reach.pooled, listens: reach.listens, prepared: reach.prepared }).toEqual({ pooled: false, listens: true, prepared: true })
        expect(preparedOnce).toBe(1)
        expect(lines).toContain("database: deadlines statement_timeout 1234 ms, lock_timeout 1234 ms, kept by each connection")
      }),
    30_000
  )

  // .ci/with-pgbouncer's pooler knows the server's superuser only
  it.live.skipIf(process.env.TEST_DATABASE_URL === process.env.TEST_POOLER_URL)("says nothing of a role that is not a superuser", () =>
    Effect.gen(function*() {
      const url = yield* testDatabaseUrl
      const name = new URL(Redacted.value(url)).pathname.slice(1)
      const roleName = `${name}_app`
      const admin = poolOn(url)
      const asAdmin = (statement: string) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(Effect.provide(admin))
      yield* Effect.acquireRelease(
        asAdmin(`CREATE ROLE ${roleName} LOGIN NOSUPERUSER`),
        () => asAdmin(`DROP ROLE IF EXISTS ${roleName}`).pipe(Effect.orDie)
      )
      const asRole = new URL(Redacted.value(url))
      asRole.username = roleName
      expect(yield* startOn(Redacted.make(asRole.toString()))).toEqual({ role: roleName, warnings: [] })
    }), 30_000)
})

/** A client of its own on the database, outside the service's pool: the operator's psql. */
const operator = (url: Redacted.Redacted) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: Redacted.value(url) })
      client.on("error", () => {})
      await client.connect()
      return client
    }),
    (client) => Effect.promise(() => client.end().catch(() => undefined))
  )

/** The backend serving the pool's statements now. */
const backend = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`).pipe(
  Effect.map((rows) => rows[0]!.pid)
)

/** What the service makes of a statement's failure: a database gone, a deadline passed, or none (a fault of ours). */
const faultOf = <A>(exit: Exit.Exit<A, unknown>) =>
  Exit.isSuccess(exit) ? Option.none() : Option.flatMap(databaseFaultIn(exit.cause), databaseFault)

/** Waits until a statement of the service's runs (or waits for a lock) on `pid`. */
const activeOn = (admin: pg.Client, pid: number) =>
  Effect.promise(async () => {
    for (;;) {
      const { rows } = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'", [pid])
      if (rows.length > 0) return
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })

/** A pool of one connection on a database of the test's own, with a table `probe`; its deadline `timeoutMs`. */
const onePool = (timeoutMs: number) =>
  Effect.gen(function*() {
    const url = yield* testDatabaseUrl
    const pool = yield* Layer.build(poolOn(url, { maxConnections: 1, timeoutMs }))
    yield* Effect.provide(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE TABLE probe (id int PRIMARY KEY)`), pool)
    return { url, pool, admin: yield* operator(url) }
  })

describe("the PostgreSQL client", () => {
  it.live("reads a date as YYYY-MM-DD, an instant as its ISO string in UTC, an int8 exactly; binds a Date as an instant", () =>
    Effect.gen(function*() {
      const { pool } = yield* onePool(30_000)
      const [row] = yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`
          SELECT '2027-03-12'::date AS night, '2027-03-12T10:00:00.123456+02'::timestamptz AS at,
            9007199254740993::int8 AS seq, count(*)::int AS n, 1.50::numeric AS amount,
            ${new Date("2027-01-01T00:00:00.000Z")}::timestamptz + interval '1 hour' AS bound,
            ${"2027-01-02"}::date + 1 AS next_night, '{"a":[1]}'::jsonb AS doc`).pipe(Effect.provide(pool))
      expect(row).toEqual({
        night: "2027-03-12",
        at: "2027-03-12T08:00:00.123Z", // to the millisecond, as ever
        seq: "9007199254740993",
        n: 1,
        amount: "1.50",
        bound: "2027-01-01T01:00:00.000Z",
        next_night: "2027-01-03",
        doc: { a: [1] }
      })
    }), 30_000)

  it.live("reads a value past the driver's 16 MiB: an export reads a whole table as one value", () =>
    Effect.gen(function*() {
      const { pool } = yield* onePool(30_000)
      const [row] = yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ text: string; length: number }>`
          SELECT text, length(text) AS length
          FROM (SELECT coalesce(json_agg(t), '[]')::text AS text FROM (SELECT repeat('x', 1024 * 1024) AS x FROM generate_series(1, 20)) AS t) AS agg`
      ).pipe(Effect.provide(pool))
      expect(row!.length).toBeGreaterThan(20 * 1024 * 1024)
      expect(row!.text.length).toBe(row!.length)
    }), 30_000)

  it.live("a connection killed mid-statement is a database gone, and the next statement runs on a new one", () =>
    Effect.gen(function*() {
      const { admin, pool } = yield* onePool(30_000)
      const killed = yield* backend.pipe(Effect.provide(pool))
      const statement = yield* Effect.forkChild(Effect.exit(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT pg_sleep(10)`)).pipe(
        Effect.provide(pool)
      ))
      yield* activeOn(admin, killed)
      yield* Effect.promise(() => admin.query("SELECT pg_terminate_backend($1)", [killed]))
      expect(Option.map(faultOf(yield* Fiber.join(statement)), (fault) => fault.kind)).toEqual(Option.some("unreachable"))
      const next = yield* backend.pipe(Effect.provide(pool))
      expect(next).not.toBe(killed)
    }), 30_000)

  it.live("a transaction whose connection was killed wrote nothing, and its connection is never handed out again", () =>
    Effect.gen(function*() {
      const { admin, pool } = yield* onePool(30_000)
      const exit = yield* Effect.exit(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO probe VALUES (1)`
          const [{ pid }] = yield* sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
          yield* Effect.promise(() => admin.query("SELECT pg_terminate_backend($1)", [pid]))
          yield* sql`INSERT INTO probe VALUES (2)`
        }))
      }).pipe(Effect.provide(pool)))
      expect(Option.map(faultOf(exit), (fault) => fault.kind)).toEqual(Option.some("unreachable"))
      const { rows } = yield* Effect.promise(() => admin.query("SELECT count(*)::int AS n FROM probe"))
      expect(rows).toEqual([{ n: 0 }])
      const [{ n }] = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM probe`).pipe(
        Effect.provide(pool)
      )
      expect(n).toBe(0)
    }), 30_000)

  it.live("a transaction interrupted mid-statement is cancelled and rolled back, and its connection serves the next one", () =>
    Effect.gen(function*() {
      const { admin, pool } = yield* onePool(30_000)
      const { pooled } = yield* DatabaseReach.pipe(Effect.provide(pool))
      const pid = yield* backend.pipe(Effect.provide(pool))
      const transaction = yield* Effect.forkChild(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql.withTransaction(Effect.andThen(sql`INSERT INTO probe VALUES (1)`, sql`SELECT pg_sleep(10)`))
      }).pipe(Effect.provide(pool)))
      yield* activeOn(admin, pid)
      const started = Date.now()
      yield* Fiber.interrupt(transaction)
      expect(Date.now() - started).toBeLessThan(2000)
      // through a pooler the server connection is the pooler's, which it may be cleaning up still
      if (!pooled) {
        const { rows } = yield* Effect.promise(() => admin.query("SELECT state FROM pg_stat_activity WHERE pid = $1", [pid]))
        expect(rows.every((row) => row.state === "idle")).toBe(true)
      }
      const [{ n }] = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM probe`).pipe(
        Effect.provide(pool)
      )
      expect(n).toBe(0)
    }), 30_000)

  it.live("every wait is bounded: a statement, a lock, a turn for a connection", () =>
    Effect.gen(function*() {
      const { admin, pool } = yield* onePool(500)
      const { pooled } = yield* DatabaseReach.pipe(Effect.provide(pool))
      const run = <A>(statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
        Effect.flatMap(SqlClient.SqlClient, statement).pipe(Effect.provide(pool), Effect.exit)
      const slow = yield* run((sql) => sql`SELECT pg_sleep(5)`)
      // alone through a pooler, a statement has no deadline on the server: the service's own bound ends it
      const reason = pooled ? "no answer within 500 ms" : "canceling statement due to statement timeout"
      expect(faultOf(slow)).toEqual(Option.some({ kind: "deadline", reason }))

      yield* Effect.promise(() => admin.query("BEGIN; LOCK TABLE probe IN ACCESS EXCLUSIVE MODE"))
      const locked = yield* run((sql) => sql`SELECT * FROM probe`)
      yield* Effect.promise(() => admin.query("ROLLBACK"))
      // the statement's deadline and the lock's are the same: either cancels it
      expect(Option.map(faultOf(locked), (fault) => fault.kind)).toEqual(Option.some("deadline"))

      // the only connection held by a transaction that waits on nothing of the server's
      const held = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(run((sql) => sql.withTransaction(Effect.andThen(Deferred.succeed(held, undefined), Effect.sleep("2 seconds")))))
      yield* Deferred.await(held)
      const started = Date.now()
      const waiting = yield* run((sql) => sql`SELECT 1`)
      expect(Date.now() - started).toBeLessThan(1500)
      expect(faultOf(waiting)).toEqual(Option.some({ kind: "deadline", reason: "no connection within 500 ms" }))
      expect(Exit.isSuccess(yield* Fiber.join(holder))).toBe(true)
    }), 30_000)

  it.live("a transaction a failed statement aborted is not reported committed", () =>
    Effect.gen(function*() {
      const { pool } = yield* onePool(30_000)
      const exit = yield* Effect.exit(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO probe VALUES (1)`
          yield* Effect.ignore(sql`INSERT INTO probe VALUES (1)`) // a duplicate: the transaction is aborted
        }))
      }).pipe(Effect.provide(pool)))
      expect(Exit.isFailure(exit) && Cause.pretty(exit.cause)).toContain("COMMIT rolled back an aborted transaction")
      const [{ n }] = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM probe`).pipe(
        Effect.provide(pool)
      )
      expect(n).toBe(0)
    }), 30_000)

  it.live("LISTEN hears a notification, on a connection of its own: the pool's stays free", () =>
    Effect.gen(function*() {
      const { pool } = yield* onePool(30_000)
      // through a pooler no LISTEN at all (Pooler.test.ts)
      if ((yield* DatabaseReach.pipe(Effect.provide(pool))).pooled) return
      const heard = yield* Effect.gen(function*() {
        const client = yield* PgClient.PgClient
        const notifications = yield* client.listen("probe_channel")
        yield* client`SELECT pg_notify('probe_channel', 'hello')` // the pool's only connection
        return yield* Queue.take(notifications)
      }).pipe(Effect.provide(pool), Effect.timeout("5 seconds"))
      expect(heard.payload).toBe("hello")
    }), 30_000)
})
