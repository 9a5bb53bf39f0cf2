import * as NodeServices from "@effect/platform-node/NodeServices"
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { DatabaseLive, pgClientLayer } from "../../../src/Layers/Persistence/Database.js"
import { embeddedPostgres } from "../../../src/Layers/EmbeddedDatabase/EmbeddedPostgres.js"
import { MigrationsLive } from "../../../src/Layers/Persistence/Migrations.js"
import { AppConfig } from "../../../src/Layers/Platform/AppConfig.js"
import { temporaryDataDir } from "../../support/database.js"
import { killHard, ScriptExited, startScript } from "../../support/scriptProcess.js"

const holderScript = fileURLToPath(new URL("../../support/embedded-holder.ts", import.meta.url))
const mainScript = fileURLToPath(new URL("../../../src/main.ts", import.meta.url))
const exportScript = fileURLToPath(new URL("../../../src/bin/db-export.ts", import.meta.url))
const asRoot = process.getuid?.() === 0

/** Runs statements on the embedded server of `dataDir`, started for them and stopped after. */
const query = <A>(dataDir: string, statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.gen(function*() {
    const url = yield* embeddedPostgres(dataDir)
    return yield* Effect.flatMap(SqlClient.SqlClient, statement).pipe(Effect.provide(pgClientLayer(url, { maxConnections: 4 })))
  }).pipe(Effect.scoped)

const keptValues = (dataDir: string) =>
  query(dataDir, (sql) => sql<{ value: string }>`SELECT value FROM kept ORDER BY value`).pipe(Effect.map((rows) => rows.map((r) => r.value)))

/** A service stand-in in a process of its own, holding the server of `dataDir` after storing `value`. */
const startHolder = (dataDir: string, value: string) => startScript(holderScript, [dataDir, value], "READY")

const postmasterLines = (dataDir: string) => fs.readFileSync(path.join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")

const postmasterPid = (dataDir: string) => Number(postmasterLines(dataDir)[0])

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Everything a process prints from now on. */
const outputOf = (child: ChildProcess) => {
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  return () => output
}

/** Its exit code (or signal), once it has exited. */
const exitOf = (child: ChildProcess) =>
  Effect.callback<number | string>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.succeed(child.exitCode ?? child.signalCode!))
    child.once("exit", (code, signal) => resume(Effect.succeed(code ?? signal!)))
  })

/** Stops a process of the tests as a supervisor stops a service (SIGTERM) when the scope closes, if it still runs. */
const stopAtEnd = (child: ChildProcess) =>
  Effect.addFinalizer(() =>
    Effect.suspend(() => {
      if (child.exitCode !== null || child.signalCode !== null) return Effect.void
      child.kill("SIGTERM")
      return Effect.asVoid(exitOf(child))
    })
  )

/** Tries `attempt` every 50 ms until it succeeds; dies after `ms`. */
const within = <A, E>(ms: number, attempt: Effect.Effect<A, E>) =>
  attempt.pipe(
    Effect.retry(Schedule.spaced("50 millis")),
    Effect.orDie,
    Effect.timeoutOrElse({ duration: ms, orElse: () => Effect.die(new Error(`not within ${ms} ms`)) })
  )

/** The rows of `kept` on the server that runs now on `dataDir` (held by another process), through its socket, as its superuser. */
const keptOnRunningServer = (dataDir: string) =>
  Effect.try(() => postmasterLines(dataDir)[4]!).pipe(
    Effect.flatMap((socketDir) =>
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ value: string }>`SELECT value FROM kept ORDER BY value`).pipe(
        Effect.provide(
          PgClient.layer({ url: Redacted.make(`postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}`), maxConnections: 1 })
        )
      )
    ),
    Effect.map((rows) => rows.map((row) => row.value))
  )

/** The pid of a ready server on `dataDir` other than `previous`. */
const readyServerOtherThan = (dataDir: string, previous: number) =>
  Effect.try(() => postmasterLines(dataDir)).pipe(
    Effect.filterOrFail((lines) => Number(lines[0]) !== previous && isAlive(Number(lines[0])) && lines[7]?.trim() === "ready"),
    Effect.map((lines) => Number(lines[0]))
  )

/** The service as a supervisor runs it, on the embedded database of `dataDir`, once it listens. */
const startService = (dataDir: string) =>
  Effect.callback<{ readonly child: ChildProcess; readonly output: () => string }, ScriptExited>((resume) => {
    const { DATABASE_URL: _, ...inherited } = process.env
    // below Linux's ephemeral ports, where the suite's own connections take theirs
    const port = 20_000 + Math.floor(Math.random() * 12_000)
    const child = spawn(process.execPath, ["--import", "tsx", mainScript], {
      env: { ...inherited, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_FORMAT: "json" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const output = outputOf(child)
    child.stdout!.on("data", () => output().includes("Listening on") && resume(Effect.succeed({ child, output })))
    child.once("exit", (code) => resume(Effect.fail(new ScriptExited({ message: `the service exited (${code}):\n${output()}` }))))
  })

describe("embedded PostgreSQL", () => {
  it.live("creates its cluster on the first start and keeps the data across a restart", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDataDir
      yield* query(dir, (sql) => sql`CREATE TABLE kept (value text)`.pipe(Effect.andThen(sql`INSERT INTO kept VALUES ('first')`)))
      expect(fs.existsSync(path.join(dir, "postgres", "PG_VERSION"))).toBe(true)
      expect(yield* keptValues(dir)).toEqual(["first"])
      // stopped cleanly: no server and no claim left behind
      expect(fs.existsSync(path.join(dir, "postgres", "postmaster.pid"))).toBe(false)
      expect(fs.existsSync(path.join(dir, "service.pid"))).toBe(false)
      // a log grown past 10 MiB is set aside at the next start
      fs.appendFileSync(path.join(dir, "postgres.log"), Buffer.alloc(11 * 1024 * 1024, "x"))
      expect(yield* keptValues(dir)).toEqual(["first"])
      expect(fs.statSync(path.join(dir, "postgres.log.1")).size).toBeGreaterThan(10 * 1024 * 1024)
      expect(fs.statSync(path.join(dir, "postgres.log")).size).toBeLessThan(1024 * 1024)
    }).pipe(Effect.scoped), 60_000)

  it.live("serves several connections at once", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDataDir
      const backends = yield* query(dir, (sql) =>
        Effect.all(
          Array.from({ length: 4 }, () => sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.2)`),
          { concurrency: "unbounded" }
        ))
      expect(new Set(backends.map(([row]) => row!.pid)).size).toBe(4)
    }).pipe(Effect.scoped), 60_000)

  it.live("refuses a data folder a live service holds, and recovers the server of a killed one with its data", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDataDir
      const holder = yield* startHolder(dir, "before the crash")
      const error = yield* embeddedPostgres(dir).pipe(Effect.scoped, Effect.flip)
      expect(error.message).toBe(
        `DATA_DIR ${dir} is in use by the service process ${holder.pid}: stop that one, or start this one with another DATA_DIR`
      )

      const orphan = postmasterPid(dir)
      yield* killHard(holder)
      expect(isAlive(orphan)).toBe(true) // the server outlives its service

      expect(yield* keptValues(dir)).toEqual(["before the crash"])
      expect(isAlive(orphan)).toBe(false)
    }).pipe(Effect.scoped), 60_000)

  it.live("the server's environment is what it needs and none of the service's secrets; its log is the user's alone", () =>
    Effect.gen(function*() {
      const secrets = {
        APP_SECRET: "app-secret-that-signs-every-token-0123456789",
        SMTP_URL: "smtp://hotel:smtp-password-0123@mail.example:587",
        DATABASE_URL: "postgres://hotel:db-password-0123@db.example/hotel",
        PMS_TOKEN: "pms-token-0123456789"
      }
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          const before = Object.fromEntries(Object.keys(secrets).map((name) => [name, process.env[name]]))
          Object.assign(process.env, secrets)
          return before
        }),
        (before) =>
          Effect.sync(() => {
            for (const [name, value] of Object.entries(before)) {
              if (value === undefined) delete process.env[name]
              else process.env[name] = value
            }
          })
      )
      const dir = yield* temporaryDataDir
      const log = path.join(dir, "postgres.log")
      fs.writeFileSync(log, "", { mode: 0o644 }) // as an older start left it
      fs.chmodSync(log, 0o644)
      yield* embeddedPostgres(dir)
      const environment = fs.readFileSync(`/proc/${postmasterPid(dir)}/environ`, "utf8").split("\0").filter((entry) => entry !== "")
      const names = environment.map((entry) => entry.slice(0, entry.indexOf("=")))
      expect(names.filter((name) => !["PATH", "TZ", "LC_ALL"].includes(name))).toEqual([])
      expect(environment).toContain("LC_ALL=C")
      for (const secret of Object.values(secrets)) expect(environment.join("\n")).not.toContain(secret)
      expect(fs.statSync(log).mode & 0o777).toBe(0o600)
    }).pipe(Effect.scoped), 60_000)

  it.live("the service connects as a role of its own that is not a superuser, owns its database and migrates it", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDataDir
      // a table made as the superuser, as before this role
      yield* query(dir, (sql) => sql`CREATE TABLE kept (value text)`.pipe(Effect.andThen(sql`INSERT INTO kept VALUES ('older')`)))
      const service = MigrationsLive.pipe(
        Layer.provideMerge(DatabaseLive),
        Layer.provideMerge(AppConfig.InMemory({ dataDir: dir, databaseUrl: Option.none(), hotelFile: path.resolve("data/hotel.json") })),
        Layer.provide(NodeServices.layer)
      )
      for (const start of ["first", "second"]) {
        const seen = yield* Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const [role] = yield* sql<{ name: string; superuser: boolean }>`
            SELECT rolname AS name, rolsuper AS superuser FROM pg_roles WHERE rolname = current_user`
          yield* sql`INSERT INTO kept VALUES (${start})`
          const owners = yield* sql<{ owner: string }>`SELECT DISTINCT tableowner AS owner FROM pg_tables WHERE schemaname = 'public'`
          const [reservations] = yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM reservations`
          return { role, owners: owners.map((row) => row.owner), reservations: reservations?.count }
        }).pipe(Effect.provide(service), Effect.scoped)
        expect(seen).toEqual({ role: { name: "hotel", superuser: false }, owners: ["hotel"], reservations: 0 })
      }
      expect(yield* keptValues(dir)).toEqual(["first", "older", "second"])
    }).pipe(Effect.scoped), 90_000)

  it.live.skipIf(!asRoot)("run as root, runs the server as the postgres user, and names a folder that user cannot enter", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDataDir
      yield* embeddedPostgres(dir)
      const status = fs.readFileSync(`/proc/${postmasterPid(dir)}/status`, "utf8")
      expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).toBe(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim())

      const locked = path.join(dir, "locked")
      fs.mkdirSync(path.join(locked, "data"), { recursive: true, mode: 0o700 })
      fs.chmodSync(locked, 0o700)
      const error = yield* embeddedPostgres(path.join(locked, "data")).pipe(Effect.scoped, Effect.flip)
      expect(error.message).toContain(`cannot enter ${locked} on the way to DATA_DIR ${path.join(locked, "data")}`)
    }).pipe(Effect.scoped), 60_000)

  it.live("a server killed under the service is started again on the same data, and the scope stops the new one", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDataDir
      const holder = yield* startHolder(dir, "committed before the kill")
      yield* stopAtEnd(holder)
      const output = outputOf(holder)
      const killed = postmasterPid(dir)
      process.kill(killed, "SIGKILL")

      expect(yield* within(30_000, keptOnRunningServer(dir))).toEqual(["committed before the kill"])
      const restarted = postmasterPid(dir)
      expect(restarted).not.toBe(killed)
      // the holder's log may reach us after the answer of its server
      yield* within(5_000, Effect.filterOrFail(Effect.sync(output), (text) => text.includes("started again")))
      expect(output()).toContain(`the embedded PostgreSQL (pid ${killed}) stopped (signal SIGKILL)`)
      expect(output()).toContain(`embedded PostgreSQL started again (pid ${restarted})`)

      holder.kill("SIGTERM")
      expect(yield* exitOf(holder)).toBe(0)
      expect(isAlive(restarted)).toBe(false)
    }).pipe(Effect.scoped), 60_000)

  it.live("three deaths of its server within a minute stop the service, through its shutdown, with exit code 1 and the reason", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDataDir
      const service = yield* startService(dir)
      yield* stopAtEnd(service.child)
      let killed = 0
      for (let death = 1; death <= 3; death++) {
        killed = yield* within(30_000, readyServerOtherThan(dir, killed))
        process.kill(killed, "SIGKILL")
      }

      expect(yield* exitOf(service.child).pipe(Effect.timeout("30 seconds"))).toBe(1)
      expect(service.output()).toContain("the embedded PostgreSQL stopped 3 times within a minute")
      expect(service.output()).toContain("stopped serving") // its graceful shutdown ran
      expect(fs.existsSync(path.join(dir, "service.pid"))).toBe(false)
    }).pipe(Effect.scoped), 90_000)

  it.live("db:export reads the embedded database of the service running on DATA_DIR, while it serves", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDataDir
      const service = yield* startService(dir)
      yield* stopAtEnd(service.child)
      const file = path.join(dir, "backup.json")
      const { DATABASE_URL: _, ...inherited } = process.env
      const exported = spawnSync(process.execPath, ["--import", "tsx", exportScript, file], {
        env: { ...inherited, DATA_DIR: dir, LOG_FORMAT: "json" },
        encoding: "utf8"
      })
      expect(exported.status, exported.stderr).toBe(0)
      expect(exported.stdout).toContain(`reading the embedded database of the service running on ${dir} (pid ${service.child.pid})`)
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      const backup = JSON.parse(fs.readFileSync(file, "utf8"))
      expect(backup.tables.hotel).toHaveLength(1)
      expect(backup.tables.room_types.length).toBeGreaterThan(0)
      expect(service.child.exitCode).toBe(null) // still serving
    }).pipe(Effect.scoped), 90_000)
})

