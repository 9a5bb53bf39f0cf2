// The embedded default database: PGlite served over the PostgreSQL wire protocol by
// @electric-sql/pglite-socket, in a process of its own so that its queries never block the
// service's event loop. The parent reads "READY <port>" from stdout; this process ends when
// the parent closes its stdin (also when the parent dies), on SIGTERM or on SIGINT.
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import * as fs from "node:fs"
import * as path from "node:path"

const [dataDir, maxConnections = "4"] = process.argv.slice(2)
const pidFile = path.join(dataDir, "postmaster.owner")

fs.mkdirSync(dataDir, { recursive: true })
try {
  const owner = Number(fs.readFileSync(pidFile, "utf8"))
  process.kill(owner, 0)
  console.error(`embedded database ${dataDir} is in use by process ${owner}`)
  process.exit(2)
} catch {
  // no owner, or the owner is gone: the directory is ours
}
fs.writeFileSync(pidFile, String(process.pid))

const db = await PGlite.create(path.join(dataDir, "pgdata"))
const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: Number(maxConnections) })
server.addEventListener("listening", (event) => process.stdout.write(`READY ${event.detail.port}\n`))
await server.start()

let stopping = false
const stop = async () => {
  if (stopping) return
  stopping = true
  await server.stop()
  await db.close()
  fs.rmSync(pidFile, { force: true })
  process.exit(0)
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
process.stdin.on("end", stop)
process.stdin.on("close", stop)
process.stdin.resume()
