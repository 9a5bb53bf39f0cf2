import { Deferred, Effect, Result } from "effect"
import type { ChildProcess } from "node:child_process"
import * as Tracing from "../Platform/Tracing.js"
import { type EmbeddedDatabaseError, fail } from "./EmbeddedDatabaseError.js"
import { pause } from "./Processes.js"
import { logTail, postmasterFile } from "./Cluster.js"

/* The server process kept up: started, awaited, restarted when it dies, given up on when it keeps dying. */

export const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null

export const exited = (child: ChildProcess) =>
  Effect.callback<void>((resume) => {
    if (hasExited(child)) return resume(Effect.void)
    const onExit = () => resume(Effect.void)
    child.once("exit", onExit)
    return Effect.sync(() => child.off("exit", onExit))
  })

export const stopServer = (child: ChildProcess) =>
  Effect.suspend(() => {
    if (hasExited(child)) return Effect.void
    const killer = setTimeout(() => child.kill("SIGKILL"), 30_000)
    child.kill("SIGINT") // fast shutdown: the pool is closed by now
    return exited(child).pipe(Effect.andThen(Effect.sync(() => clearTimeout(killer))))
  })

export const awaitReady = (child: ChildProcess, pgData: string, logFile: string) =>
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
export interface Server {
  child: ChildProcess
}

/** Something that kills the server this often (memory, disk, an operator) is beyond a restart: the service's own supervisor must act. */
export const DEATHS_TO_GIVE_UP = 3
export const DEATHS_WINDOW_MS = 60_000

/**
 * Its backends may outlive a killed server by a few milliseconds and hold its shared memory, which
 * a new server refuses ("pre-existing shared memory block is still in use"): the start is tried
 * again until they are gone, for this long.
 */
export const RESTART_WITHIN_MS = 30_000

export const restart = (server: Server, start: () => ChildProcess, pgData: string, logFile: string) =>
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
export const supervise = (server: Server, start: () => ChildProcess, pgData: string, logFile: string) =>
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
export const runServer = (start: () => ChildProcess, pgData: string, logFile: string, givenUp?: Deferred.Deferred<never, EmbeddedDatabaseError>) =>
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
