import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as os from "node:os"
import * as path from "node:path"
import { fail } from "./EmbeddedDatabaseError.js"

/* The system user the embedded server runs as (made when the service runs as root), and the environment of what it runs. */

/** The system user the server runs as: the service's own, or `postgres` when the service is root. */
export interface ServerUser {
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
export const serverEnvironment = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
  ...(process.env.TZ === undefined ? {} : { TZ: process.env.TZ }),
  LC_ALL: "C"
})

export const run = (command: string, args: ReadonlyArray<string>, user?: ServerUser) =>
  spawnSync(command, args, { encoding: "utf8", uid: user?.uid, gid: user?.gid, env: serverEnvironment() })

export const idOf = (flag: "-u" | "-g") => {
  const result = run("id", [flag, "postgres"])
  return result.status === 0 ? Number(result.stdout.trim()) : undefined
}

/** PostgreSQL refuses to run as root: then it runs as the system user `postgres`, created if missing. */
export const serverUser = Effect.gen(function*() {
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
export const blockedFolder = (dir: string, user: ServerUser): string | undefined => {
  if (user.uid === undefined || run("test", ["-x", dir], user).status === 0) return undefined
  const ancestors: Array<string> = []
  for (let at = dir; ; at = path.dirname(at)) {
    ancestors.unshift(at)
    if (at === path.dirname(at)) break
  }
  return ancestors.find((folder) => run("test", ["-x", folder], user).status !== 0)
}
