import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { PRIVATE_FILE } from "../Platform/PrivateFiles.js"
import { fail } from "./EmbeddedDatabaseError.js"

/* Processes seen through /proc, and the pid file by which one service claims its data folder. */

export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** `/proc/PID/stat`'s parent pid, where there is a /proc. */
export const parentOf = (pid: number): number | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
  } catch {
    return undefined
  }
}

/** A live process that is a Node.js program (after a reboot a stale pid may name anything). */
export const isLiveNode = (pid: number) => {
  if (!isAlive(pid)) return false
  try {
    return /node/.test(fs.readFileSync(`/proc/${pid}/cmdline`, "utf8"))
  } catch {
    return true // no /proc: trust the pid
  }
}

export const inUse = (dataDir: string, owner: number) =>
  fail(`DATA_DIR ${dataDir} is in use by the service process ${owner}: stop that one, or start this one with another DATA_DIR`)

export const ownerOf = (file: string): number | undefined => {
  try {
    const pid = Number(fs.readFileSync(file, "utf8"))
    return pid > 0 ? pid : undefined // a file cut short by a crash names nobody
  } catch {
    return undefined // removed meanwhile by its service
  }
}

/** One service per data folder: `DATA_DIR/service.pid` names the live one, for the scope. */
export const claimDataDir = (dataDir: string) => {
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

/** A pause in wall-clock time, whatever clock the caller runs on (a test clock would never move). */
export const pause = (millis: number) =>
  Effect.callback<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), millis)
    return Effect.sync(() => clearTimeout(timer))
  })

export const waitForExit = (pid: number, within: number) =>
  Effect.gen(function*() {
    const until = Date.now() + within
    while (isAlive(pid) && Date.now() < until) yield* pause(25)
    return !isAlive(pid)
  })
