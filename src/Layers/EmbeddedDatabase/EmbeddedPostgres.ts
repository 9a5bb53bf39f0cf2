import { Deferred, Effect, Option, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Tracing from "../Platform/Tracing.js"
import { type EmbeddedDatabaseError, fail } from "./EmbeddedDatabaseError.js"
import { blockedFolder, serverUser } from "./ServerUser.js"
import { claimDataDir, isAlive, isLiveNode, ownerOf } from "./Processes.js"
import { binaries, initialise, keepLogSmall, postmasterFile, socketFolder, socketUrl, spawnServer, stopOrphan } from "./Cluster.js"
import { runServer } from "./Supervisor.js"

/* The embedded PostgreSQL for the scope, when DATABASE_URL is not set; the SQL asked of it is Persistence's (ApplicationRole.ts). */

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
export const APPLICATION_ROLE = "hotel"

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
