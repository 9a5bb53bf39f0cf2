/**
 * Load test of the HTTP API, run only on demand (never part of `npm test`):
 *
 *   npm run bench                     # BENCH_SECONDS=10 per target
 *   BENCH_SECONDS=5 BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench
 *
 * Creates a fresh database `hotel_bench_<random>` on BENCH_DATABASE_URL's server (default
 * postgres://postgres@127.0.0.1:5432/test), starts the service on it as `npm start` does (`node --max-semi-space-size=64 --import tsx src/main.ts`)
 * and a bare `node:http` server answering {"ok":true} as the baseline, then runs autocannon
 * (50 connections, 2 s warm-up discarded, BENCH_SECONDS measured) against: the bare server,
 * GET /v1/hotel and POST /v1/quotes (two rooms, check-in today+30 for 3 nights).
 * Prints requests/s, latency p50/p99, non-2xx/errors and the ratio to the bare server, as a text
 * and a Markdown table, plus the service's start-up time (spawn to first healthy /v1/health) and
 * idle RSS. Exits 1 if a service target answered non-2xx or had connection errors.
 * The database, the child processes and the temporary DATA_DIR are removed at the end, also on
 * failure or Ctrl-C.
 */
import autocannon from "autocannon"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const SERVER_URL = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const SECONDS = Number(process.env["BENCH_SECONDS"] ?? "10")
const CONNECTIONS = 50
const WARMUP_SECONDS = 2

const cleanups: Array<() => Promise<void>> = []
let cleaning: Promise<void> | undefined
const cleanup = () =>
  (cleaning ??= (async () => {
    for (const fn of cleanups.reverse()) await fn().catch((e) => console.error("cleanup:", e))
  })())

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer().once("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Spawns a node child, keeps the tail of its output, and registers its kill (SIGTERM, SIGKILL after 5 s). */
const startNode = (args: Array<string>, env: Record<string, string>) => {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
  const tail: Array<string> = []
  const keep = (chunk: Buffer) => {
    tail.push(chunk.toString())
    if (tail.length > 40) tail.shift()
  }
  child.stdout?.on("data", keep)
  child.stderr?.on("data", keep)
  cleanups.push(() => stop(child))
  return { child, tail }
}

const stop = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((r) => child.once("exit", r))
  child.kill("SIGTERM")
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000)
  await exited
  clearTimeout(timer)
}

/** Polls `url` until it answers 200; fails after `timeoutMs` or if the child exits. */
const waitHealthy = async (url: string, child: ChildProcess, tail: Array<string>, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited (${child.exitCode}):\n${tail.join("")}`)
    const ok = await fetch(url).then((r) => r.status === 200, () => false)
    if (ok) return
    await sleep(100)
  }
  throw new Error(`${url}: not healthy after ${timeoutMs / 1000} s:\n${tail.join("")}`)
}

const rssMiB = (pid: number) => {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1])
  return kb / 1024
}

const isoDate = (daysAhead: number) => {
  const d = new Date()
  d.setDate(d.getDate() + daysAhead)
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`
}

interface Target {
  readonly name: string
  readonly service: boolean
  readonly opts: autocannon.Options
}

const main = async () => {
  // 1. A fresh database on the PostgreSQL server.
  const dbName = `hotel_bench_${randomBytes(4).toString("hex")}`
  const admin = new pg.Client({ connectionString: SERVER_URL })
  await admin.connect()
  cleanups.push(() => admin.end())
  await admin.query(`CREATE DATABASE "${dbName}"`)
  cleanups.push(async () => void (await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`)))
  const dbUrl = new URL(SERVER_URL)
  dbUrl.pathname = `/${dbName}`
  const dataDir = mkdtempSync(join(tmpdir(), "hotel-bench-"))
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }))

  // 2. The service, spawned as node itself so that its pid is the server's.
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const spawnedAt = performance.now()
  const service = startNode(["--max-semi-space-size=64", "--import", "tsx", "src/main.ts"], {
    DATABASE_URL: dbUrl.toString(),
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir
  })
  await waitHealthy(`${base}/v1/health`, service.child, service.tail)
  const startupMs = performance.now() - spawnedAt
  await sleep(1000)
  const idleRss = rssMiB(service.child.pid!)

  // 3. The baseline: a bare node:http server in a child of its own.
  const barePort = await freePort()
  const bare = startNode([
    "-e",
    `require("node:http").createServer((q, s) => { q.resume(); s.writeHead(200, { "content-type": "application/json" }); s.end('{"ok":true}') })` +
    `.listen(${barePort}, "127.0.0.1")`
  ], {})
  await waitHealthy(`http://127.0.0.1:${barePort}/`, bare.child, bare.tail)

  // 4. The load.
  const quoteBody = JSON.stringify({
    checkin: isoDate(30),
    checkout: isoDate(33),
    rooms: [{ room_type_id: "double", adults: 2 }, { room_type_id: "twin", adults: 1, children_ages: [5] }]
  })
  const targets: Array<Target> = [
    { name: "bare node:http GET /", service: false, opts: { url: `http://127.0.0.1:${barePort}/` } },
    { name: "GET /v1/hotel", service: true, opts: { url: `${base}/v1/hotel` } },
    {
      name: "POST /v1/quotes",
      service: true,
      opts: { url: `${base}/v1/quotes`, method: "POST", headers: { "content-type": "application/json" }, body: quoteBody }
    }
  ]
  const results: Array<{ target: Target; result: autocannon.Result }> = []
  for (const target of targets) {
    console.error(`${target.name}: warm-up ${WARMUP_SECONDS} s, then ${SECONDS} s…`)
    await autocannon({ ...target.opts, connections: CONNECTIONS, duration: WARMUP_SECONDS })
    const result = await autocannon({ ...target.opts, connections: CONNECTIONS, duration: SECONDS })
    results.push({ target, result })
    if (result.non2xx > 0 || result.errors > 0) {
      const sample = await fetch(target.opts.url, {
        method: target.opts.method ?? "GET",
        ...(target.opts.body === undefined ? {} : { body: String(target.opts.body), headers: { "content-type": "application/json" } })
      }).then(async (r) => `${r.status} ${(await r.text()).slice(0, 300)}`, (e) => String(e))
      console.error(
        `  ${target.name}: ${result.non2xx} non-2xx, ${result.errors} errors (${result.timeouts} timeouts); ` +
          `status codes ${JSON.stringify(result.statusCodeStats ?? {})}; sample answer: ${sample}`
      )
    }
  }

  // 5. The report.
  const bareRps = results[0]!.result.requests.average
  const header = ["target", "req/s (avg)", "p50 (ms)", "p99 (ms)", "non-2xx", "errors", "vs bare"]
  const rows = results.map(({ target, result: r }) => [
    target.name,
    r.requests.average.toFixed(0),
    r.latency.p50.toFixed(1),
    r.latency.p99.toFixed(1),
    String(r.non2xx),
    String(r.errors),
    `${(r.requests.average / bareRps).toFixed(2)}x`
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: Array<string>) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")
  const summary = `${CONNECTIONS} connections, ${SECONDS} s per target after ${WARMUP_SECONDS} s warm-up; ` +
    `start-up ${(startupMs / 1000).toFixed(2)} s (spawn to first healthy /v1/health); idle RSS ${idleRss.toFixed(1)} MiB`
  console.log(`\n${line(header)}\n${rows.map(line).join("\n")}\n\n${summary}\n`)
  console.log(`| ${header.join(" | ")} |\n|${header.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`)
  console.log(rows.map((row) => `| ${row.join(" | ")} |`).join("\n"))
  console.log(`\n${summary}`)

  if (results.some(({ target, result }) => target.service && (result.non2xx > 0 || result.errors > 0))) process.exitCode = 1
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void cleanup().finally(() => process.exit(130)))
}
try {
  await main()
} catch (e) {
  console.error("bench failed:", e)
  process.exitCode = 1
} finally {
  await cleanup()
}
