/**
 * The service when its database fails (docs/operations.md#when-the-database-fails), run only on
 * demand (never part of `npm test`):
 *
 *   npm run bench:outage
 *   BENCH_COMPARE_WITH=/tmp/old-build npm run bench:outage     # part 4 too, against that checkout's dist/
 *   BENCH_OUTAGE_PARTS=restart,lock npm run bench:outage       # some parts only
 *
 * 1. "restart": a PostgreSQL server of the bench's own (the embedded binaries, in a temporary folder,
 *    on a Unix socket) that it stops and starts; the built service on a database of it (as a role that
 *    is not a superuser). Quotes are sent at a steady pace (one every 50 ms, at most 4 in flight: a
 *    tick with 4 in flight sends none) for 3 s, through an 8 s stop (fast shutdown, as `pg_ctl stop -m
 *    fast`) and for 5 s after the start call returned; GET /v1/hotel and GET /v1/health once a second
 *    meanwhile. Prints each phase's answers by status with min/p50/p99/max (a quote in flight at the
 *    stop counts as sent during the outage), the Retry-After values, and the time from the start
 *    call's return to the first 200.
 * 2. "lock": the service on a fresh database of BENCH_DATABASE_URL's server (as `npm run bench`);
 *    an operator's client holds `LOCK TABLE inventory_nights IN ACCESS EXCLUSIVE MODE` for 12 s while
 *    30 quotes are sent at once, 3 more at 2, 5 and 8 s, and GET /v1/health at 1, 3, 6 and 9 s; then
 *    5 quotes after the lock is gone. Prints each kind's statuses, min/p50/p99/max.
 * 3. "export": 1,000 reservations completed over HTTP (quote, intent, completion; one room for one
 *    night, each room type on 420 nights from tomorrow), the outbox left to finish, then
 *    `npm run db:export -- FILE` timed as an operator runs it (tsx's start included), `exportTo`
 *    timed in this process, `npm run db:import -- FILE` into another fresh database, `importFrom`
 *    into a third, and `npm run db:export` with no file (npm and tsx starting, its usage message).
 * 4. "compare" (only with BENCH_COMPARE_WITH, a checkout of other code with its `dist/` built and its
 *    node_modules): POST /v1/quotes under autocannon (50 connections, 2 s warm-up, BENCH_SECONDS
 *    measured) on that code and on this one, each on a fresh database, alternately,
 *    BENCH_COMPARE_ROUNDS pairs (default 3), as the machine drifts by minutes. Prints each run's
 *    req/s, p50, p99 and the service's CPU per quote (from /proc, warm-up included), which a busy
 *    machine moves less than req/s, and this code's ratios to the other's, round by round.
 * The service's log is read throughout: any ERROR or WARN line but the expected ones (the outage's
 * `database unavailable`, a deadline's warning, a 503's request line) and any line with a `cause`
 * (a stack) is a failure, printed with when it came.
 * Exits 1 on a 500 (or any answer but 200 and 503 `unavailable` during a fault), a 503 without
 * Retry-After, a wait past its bound, no 200 within 10 s of the database's return, or a failed
 * export or import. The databases, the embedded server, the child processes and the temporary
 * folders are removed at the end, also on failure or Ctrl-C; the embedded server and its folder
 * also when this process is killed (`watchdog`).
 */
import { Effect, Exit, Redacted, References, Scope } from "effect"
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chmodSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { exportTo, importFrom } from "../src/Layers/Persistence/Backup.js"
import { pgClientLayer } from "../src/Layers/Persistence/Database.js"
import { embeddedPostgres } from "../src/Layers/EmbeddedDatabase/EmbeddedPostgres.js"
import { measure, type Measured, SECONDS, table } from "./load.js"
import { outboxIdle } from "./pdfs.js"
import {
  cleanups,
  complete,
  freshDatabase,
  isoDate,
  percentile,
  pool,
  prepare,
  runBench,
  sleep,
  startServiceOn,
  startService,
  type Stay,
  stop,
  temporaryDataDir,
  termsVersion
} from "./service.js"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const PARTS = new Set(
  (process.env["BENCH_OUTAGE_PARTS"] ?? `restart,lock,export${process.env["BENCH_COMPARE_WITH"] ? ",compare" : ""}`).split(",")
)
const COMPARE_WITH = process.env["BENCH_COMPARE_WITH"]
const COMPARE_ROUNDS = Number(process.env["BENCH_COMPARE_ROUNDS"] ?? "3")
/** The service's `DATABASE_TIMEOUT_MS` (its default). */
const TIMEOUT_MS = 5000

const failures: Array<string> = []

/** When the part's fault began (the stop, the lock): times are said in seconds from it. */
let faultAt = 0
const at = (t: number) => `${((t - faultAt) / 1000).toFixed(2)} s`

const quoteBody = {
  checkin: isoDate(30),
  checkout: isoDate(33),
  rooms: [{ room_type_id: "double", adults: 2 }, { room_type_id: "twin", adults: 1, children_ages: [5] }]
}

/** One request's answer: when it was sent (ms since the bench began), how long it took, its status and what a 503 said. */
interface Shot {
  readonly kind: string
  readonly sentAt: number
  readonly answeredAt: number
  readonly ms: number
  readonly status: number
  readonly code: string | undefined
  readonly retryAfter: string | undefined
  readonly retryAfterDetail: unknown
  /** The body's `status` (health's `ok` or `degraded`). */
  readonly bodyStatus: unknown
}

const shoot = async (kind: string, url: string, body?: unknown): Promise<Shot> => {
  const sentAt = performance.now()
  const answer = await fetch(url, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    signal: AbortSignal.timeout(60_000),
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  }).then(async (r) => ({ r, text: await r.text() }), (e: Error) => e)
  const answeredAt = performance.now()
  const ms = answeredAt - sentAt
  if (answer instanceof Error) {
    return { kind, sentAt, answeredAt, ms, status: 0, code: `fetch failed: ${String(answer.cause ?? answer)}`, retryAfter: undefined, retryAfterDetail: undefined, bodyStatus: undefined }
  }
  const { r, text } = answer
  let parsed: { status?: unknown; error?: { code?: string; details?: { retry_after_seconds?: unknown } } } = {}
  try {
    parsed = JSON.parse(text)
  } catch {
    // a page, not JSON
  }
  return {
    kind,
    sentAt,
    answeredAt,
    ms,
    status: r.status,
    code: parsed.error?.code,
    retryAfter: r.headers.get("retry-after") ?? undefined,
    retryAfterDetail: parsed.error?.details?.retry_after_seconds,
    bodyStatus: parsed.status
  }
}

/** `status code` counts, e.g. "503 unavailable ×160, 200 ×2". */
const statuses = (shots: ReadonlyArray<Shot>) => {
  const counts = new Map<string, number>()
  for (const s of shots) {
    const key = s.status === 200 ? "200" : `${s.status} ${s.code ?? ""}`.trim()
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return [...counts].map(([k, n]) => `${k} ×${n}`).join(", ") || "none"
}

const ms = (value: number) => (Number.isNaN(value) ? "–" : value.toFixed(value < 10 ? 1 : 0))

/** A row: what, how many, statuses, min, p50, p99, max. */
const shotRow = (name: string, shots: ReadonlyArray<Shot>) => {
  const times = shots.map((s) => s.ms)
  return [name, String(shots.length), statuses(shots), ms(times.length === 0 ? Number.NaN : Math.min(...times)), ms(percentile(times, 50)), ms(percentile(times, 99)), ms(times.length === 0 ? Number.NaN : Math.max(...times))]
}
const SHOT_HEADER = ["requests", "count", "answers", "min (ms)", "p50 (ms)", "p99 (ms)", "max (ms)"]

/** Every 503 must say when to come back, in the header and the body alike, 1–30 s. */
const checkUnavailable = (where: string, shots: ReadonlyArray<Shot>) => {
  for (const s of shots) {
    if (s.status === 200) continue
    if (s.status !== 503 || s.code !== "unavailable") {
      failures.push(`${where}: ${s.kind} sent at ${at(s.sentAt)} answered ${s.status} ${s.code ?? ""} in ${ms(s.ms)} ms`)
    } else if (!(Number(s.retryAfter) >= 1 && Number(s.retryAfter) <= 30) || Number(s.retryAfter) !== s.retryAfterDetail) {
      failures.push(`${where}: ${s.kind} answered 503 with Retry-After ${s.retryAfter} and retry_after_seconds ${String(s.retryAfterDetail)}`)
    }
  }
}

const checkBound = (where: string, shots: ReadonlyArray<Shot>, boundMs: number) => {
  for (const s of shots.filter((s) => s.ms > boundMs)) {
    failures.push(`${where}: ${s.kind} sent at ${at(s.sentAt)} waited ${ms(s.ms)} ms (bound ${boundMs} ms), answered ${s.status} ${s.code ?? ""}`)
  }
}

/**
 * The service's log from now on, but its ordinary request lines (those of a 5xx but 503 are kept): what
 * it says about the outage, and anything else it says that is an ERROR, a WARN or has a stack.
 */
const logOf = (child: { stdout: NodeJS.ReadableStream | null; stderr: NodeJS.ReadableStream | null }) => {
  const lines: Array<{ at: number; text: string; level: string; msg: string; hasCause: boolean }> = []
  const partial = { stdout: "", stderr: "" }
  const read = (stream: "stdout" | "stderr") => (chunk: Buffer) => {
    const split = (partial[stream] + chunk.toString()).split("\n")
    partial[stream] = split.pop() ?? ""
    for (const line of split) {
      if (line === "") continue
      let entry: { level?: string; msg?: string; status?: number; cause?: string } = {}
      try {
        entry = JSON.parse(line)
      } catch {
        // stderr, or anything not JSON: kept whole
      }
      if (entry.msg === "request" && ((entry.status ?? 0) < 500 || entry.status === 503)) continue
      lines.push({ at: performance.now(), text: line, level: entry.level ?? stream, msg: entry.msg ?? line, hasCause: entry.cause !== undefined })
    }
  }
  child.stdout?.on("data", read("stdout"))
  child.stderr?.on("data", read("stderr"))
  return lines
}

/** The lines that say something unexpected, each once with how many times it came. */
const oddLines = (lines: ReturnType<typeof logOf>, expected: RegExp) => {
  const odd = new Map<string, { first: number; n: number }>()
  for (const line of lines) {
    if ((line.level === "INFO" || line.level === "DEBUG") && !line.hasCause) continue
    if (expected.test(line.msg) && !line.hasCause) continue
    const key = line.text.replace(/"time":"[^"]+",?/, "").slice(0, 4000)
    const seen = odd.get(key)
    odd.set(key, { first: seen?.first ?? line.at, n: (seen?.n ?? 0) + 1 })
  }
  return [...odd].map(([text, { first, n }]) => `at ${at(first)}${n > 1 ? ` (×${n})` : ""}: ${text}`)
}

/** Sends `send` every `everyMs` while fewer than `maxInFlight` are in flight. */
const steadily = (send: () => Promise<unknown>, everyMs: number, maxInFlight: number) => {
  let inFlight = 0
  let skipped = 0
  const timer = setInterval(() => {
    if (inFlight >= maxInFlight) return void skipped++
    inFlight++
    void send().finally(() => inFlight--)
  }, everyMs)
  return {
    skipped: () => skipped,
    stop: async () => {
      clearInterval(timer)
      while (inFlight > 0) await sleep(10)
    }
  }
}

/**
 * Stops the embedded server and removes its folder if this process dies without its cleanup: tsx
 * kills its child (SIGKILL) when the child does not answer a Ctrl-C within 30 ms, as on a busy
 * machine, and the server, in a process group of its own, would run on. A watcher of its own
 * process group, which polls this process and goes when it does.
 */
const watchdog = (dataDir: string) => {
  const script = `
    const fs = require("node:fs"), path = require("node:path")
    const [parent, dir] = process.argv.slice(1)
    const alive = (pid) => { try { process.kill(pid, 0); return true } catch (e) { return e.code === "EPERM" } }
    const timer = setInterval(async () => {
      if (alive(Number(parent))) return
      clearInterval(timer)
      let server = Number.NaN
      try { server = Number(fs.readFileSync(path.join(dir, "postgres", "postmaster.pid"), "utf8").split("\\n")[0]) } catch {}
      if (server > 0 && alive(server)) {
        process.kill(server, "SIGINT")
        for (let i = 0; i < 300 && alive(server); i++) await new Promise((r) => setTimeout(r, 100))
      }
      fs.rmSync(dir, { recursive: true, force: true })
    }, 500)`
  spawn(process.execPath, ["-e", script, String(process.pid), dataDir], { detached: true, stdio: "ignore" }).unref()
}

/** Runs an Effect of the service's code here, its info lines quiet. */
const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.provideService(effect, References.MinimumLogLevel, "Warn"))

// 1. A database restart.
const restartPart = async () => {
  // run as root, the embedded server runs as the postgres user, which must enter the folder
  const dataDir = temporaryDataDir()
  chmodSync(dataDir, 0o755)
  watchdog(dataDir)
  let serverScope = await run(Scope.make())
  cleanups.push(() => run(Scope.close(serverScope, Exit.void)))
  const superuser = Redacted.value(await run(embeddedPostgres(dataDir).pipe(Scope.provide(serverScope))))
  const admin = new pg.Client({ connectionString: superuser })
  await admin.connect()
  try {
    await admin.query(`CREATE ROLE hotel LOGIN NOSUPERUSER`)
    await admin.query(`CREATE DATABASE outage OWNER hotel`)
  } finally {
    await admin.end()
  }
  const url = new URL(superuser)
  url.username = "hotel"
  url.pathname = "/outage"
  const service = await startServiceOn(url.toString(), { APP_SECRET: randomBytes(32).toString("base64url") }, undefined, "pipe")
  const log = logOf(service.child)
  const { base } = service
  console.error(`restart: quotes every 50 ms for 3 s…`)
  const quotes: Array<Shot> = []
  const pace = steadily(async () => quotes.push(await shoot("POST /v1/quotes", `${base}/v1/quotes`, quoteBody)), 50, 4)
  await sleep(3000)

  console.error(`restart: the database stopped for 8 s…`)
  const stopCalled = performance.now()
  faultAt = stopCalled
  await run(Scope.close(serverScope, Exit.void))
  const stopReturned = performance.now()
  const probes: Array<Shot> = []
  const probing = (async () => {
    for (let i = 0; i < 8; i++) {
      await sleep(stopReturned + 500 + i * 1000 - performance.now())
      probes.push(...await Promise.all([shoot("GET /v1/hotel", `${base}/v1/hotel`), shoot("GET /v1/health", `${base}/v1/health`)]))
    }
  })()
  await sleep(stopReturned + 8000 - performance.now())
  await probing

  serverScope = await run(Scope.make())
  const startCalled = performance.now()
  await run(embeddedPostgres(dataDir).pipe(Scope.provide(serverScope)))
  const back = performance.now()
  console.error(`restart: the database back; quotes for 5 s more…`)
  await sleep(5000)
  await pace.stop()
  const afterBack = [await shoot("GET /v1/hotel", `${base}/v1/hotel`), await shoot("GET /v1/health", `${base}/v1/health`)]

  // a quote in flight when the stop began may be answered either way: it counts as during
  const before = quotes.filter((s) => s.answeredAt < stopCalled)
  const during = quotes.filter((s) => s.answeredAt >= stopCalled && s.sentAt < back)
  const after = quotes.filter((s) => s.sentAt >= back)
  const first200 = quotes.filter((s) => s.answeredAt >= back && s.status === 200).sort((a, b) => a.answeredAt - b.answeredAt)[0]
  const retryAfter = new Map<string, number>()
  for (const s of [...during, ...after].filter((s) => s.status === 503)) retryAfter.set(String(s.retryAfter), (retryAfter.get(String(s.retryAfter)) ?? 0) + 1)
  const lastDuringAnswer = Math.max(...during.map((s) => s.answeredAt))
  const unavailableAfterBack = [...during, ...after].filter((s) => s.answeredAt >= back && s.status !== 200)

  checkUnavailable("restart, during", during)
  for (const s of probes.filter((p) => p.kind === "GET /v1/health" && !(p.status === 503 && p.bodyStatus === "degraded"))) {
    failures.push(`restart: GET /v1/health sent at ${at(s.sentAt)} answered ${s.status} ${String(s.bodyStatus)}`)
  }
  for (const s of [...before, ...after, ...afterBack, ...probes.filter((p) => p.kind === "GET /v1/hotel")]) {
    if (s.status !== 200) failures.push(`restart: ${s.kind} sent at ${at(s.sentAt)} (the database back at ${at(back)}) answered ${s.status} ${s.code ?? ""}`)
  }
  checkBound("restart, during", during, TIMEOUT_MS + 1000)
  checkBound("restart, health", probes.filter((p) => p.kind === "GET /v1/health"), 1500)
  if (first200 === undefined || first200.answeredAt - back > 10_000) failures.push(`restart: no 200 within 10 s of the database's return`)

  const odd = oddLines(log, /^database unavailable: |^database available again after /)
  const said = log.filter((l) => /^database (unavailable|available again)/.test(l.msg)).map((l) => `at ${at(l.at)}: ${l.level} ${l.msg}`)
  if (said.filter((l) => l.includes("unavailable")).length !== 1) failures.push(`restart: "database unavailable" logged ${said.filter((l) => l.includes("unavailable")).length} times`)
  for (const line of odd) failures.push(`restart: the service logged ${line}`)
  await stop(service.child)

  const rows = [
    shotRow("quotes before the stop", before),
    shotRow("quotes while the database is down", during),
    shotRow("quotes after its return", after),
    shotRow("GET /v1/hotel while down (1/s)", probes.filter((p) => p.kind === "GET /v1/hotel")),
    shotRow("GET /v1/health while down (1/s)", probes.filter((p) => p.kind === "GET /v1/health")),
    shotRow("GET /v1/hotel, /v1/health after", afterBack)
  ]
  const facts = [
    `the stop (fast shutdown) took ${ms(stopReturned - stopCalled)} ms, the start ${ms(back - startCalled)} ms; down ${ms(back - stopReturned)} ms`,
    `first 200 after the database's return (its start call returning): ${first200 === undefined ? "none" : `${ms(first200.answeredAt - back)} ms (sent ${ms(Math.abs(first200.sentAt - back))} ms ${first200.sentAt < back ? "before" : "after"} it)`}`,
    `non-200 answered after the return: ${unavailableAfterBack.length === 0 ? "none" : statuses(unavailableAfterBack)}; the last answer to a quote sent while down came ${ms(Math.abs(lastDuringAnswer - back))} ms ${lastDuringAnswer < back ? "before" : "after"} it`,
    `Retry-After seen on the 503s: ${[...retryAfter].sort(([a], [b]) => Number(a) - Number(b)).map(([v, n]) => `${v} s ×${n}`).join(", ") || "none"}`,
    `ticks skipped with 4 in flight: ${pace.skipped()}`,
    `the service said: ${said.join("; ") || "nothing"}`
  ]
  return { table: table(SHOT_HEADER, rows), facts }
}

// 2. A lock held.
const lockPart = async () => {
  const service = await startService({}, undefined, "pipe")
  const log = logOf(service.child)
  const { base } = service
  const warm = await Promise.all(Array.from({ length: 5 }, () => shoot("warm-up", `${base}/v1/quotes`, quoteBody)))
  if (warm.some((s) => s.status !== 200)) failures.push(`lock: a quote before the lock answered ${statuses(warm)}`)
  const locker = new pg.Client({ connectionString: service.databaseUrl })
  await locker.connect()
  cleanups.push(() => locker.end().catch(() => undefined))

  console.error(`lock: inventory_nights locked for 12 s, 30 quotes at once…`)
  await locker.query(`BEGIN`)
  await locker.query(`LOCK TABLE inventory_nights IN ACCESS EXCLUSIVE MODE`)
  const locked = performance.now()
  faultAt = locked
  const after = (ms: number) => sleep(locked + ms - performance.now())
  const burst = Promise.all(Array.from({ length: 30 }, () => shoot("30 quotes at once", `${base}/v1/quotes`, quoteBody)))
  const later = Promise.all([2000, 5000, 8000].map(async (t) => {
    await after(t)
    return Promise.all(Array.from({ length: 3 }, () => shoot(`3 quotes at ${t / 1000} s`, `${base}/v1/quotes`, quoteBody)))
  })).then((s) => s.flat())
  const health = Promise.all([1000, 3000, 6000, 9000].map(async (t) => {
    await after(t)
    return shoot("GET /v1/health", `${base}/v1/health`)
  }))
  await after(12_000)
  await locker.query(`ROLLBACK`)
  const released = performance.now()
  const [burstShots, laterShots, healthShots] = await Promise.all([burst, later, health])
  const afterShots = await Promise.all(Array.from({ length: 5 }, () => shoot("quotes after the lock", `${base}/v1/quotes`, quoteBody)))

  checkUnavailable("lock", [...burstShots, ...laterShots])
  // a turn for a connection, then the lock: each bounded by DATABASE_TIMEOUT_MS
  checkBound("lock", [...burstShots, ...laterShots], 2 * TIMEOUT_MS + 1000)
  checkBound("lock, health", healthShots, 1500)
  for (const s of [...healthShots, ...afterShots]) {
    if (s.status !== 200) failures.push(`lock: ${s.kind} sent at ${at(s.sentAt)} answered ${s.status} ${s.code ?? String(s.bodyStatus)} in ${ms(s.ms)} ms`)
  }
  const answeredAfterRelease = [...burstShots, ...laterShots].filter((s) => s.answeredAt > released)
  const odd = oddLines(log, /^database deadline of \d+ ms passed: /)
  for (const line of odd) failures.push(`lock: the service logged ${line}`)
  const warnings = log.filter((l) => l.msg.startsWith("database deadline"))
  await stop(service.child)

  const shotsByKind = [...burstShots, ...laterShots]
  const rows = [
    shotRow("30 quotes at once", burstShots),
    ...[2, 5, 8].map((t) => shotRow(`3 quotes at ${t} s`, shotsByKind.filter((s) => s.kind === `3 quotes at ${t} s`))),
    shotRow("GET /v1/health at 1, 3, 6, 9 s", healthShots),
    shotRow("5 quotes after the lock", afterShots)
  ]
  const retryAfter = [...new Set(shotsByKind.filter((s) => s.status === 503).map((s) => s.retryAfter))].join(", ")
  const facts = [
    `Retry-After on the 503s: ${retryAfter || "none"}; answered after the lock went (12 s): ${answeredAfterRelease.length}`,
    `deadline warnings logged: ${warnings.length} (${[...new Set(warnings.map((w) => w.msg.replace(/\d+/g, "N")))].join("; ")})`
  ]
  return { table: table(SHOT_HEADER, rows), facts }
}

/** An npm script in this checkout with `env`, timed; its output. */
const npmRun = (args: Array<string>, env: Record<string, string>) =>
  new Promise<{ ms: number; code: number | null; output: string }>((resolve, reject) => {
    const started = performance.now()
    const child = spawn("npm", ["run", "--silent", ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (c: Buffer) => (output += c.toString()))
    child.stderr.on("data", (c: Buffer) => (output += c.toString()))
    child.once("error", reject)
    child.once("exit", (code) => resolve({ ms: performance.now() - started, code, output }))
  })

const countRows = async (databaseUrl: string, query: string) => {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    return (await client.query<{ n: number }>(query)).rows[0]!.n
  } finally {
    await client.end()
  }
}

// 3. Export of 1,000 reservations.
const RESERVATIONS = 1000
const exportPart = async () => {
  const service = await startService()
  const { base } = service
  const types = ["double", "twin", "deluxe"]
  // one room of each type a night, on 420 nights from tomorrow
  const stays: Array<Stay> = Array.from({ length: RESERVATIONS }, (_, i) => ({
    checkin: isoDate(1 + (i % 420)),
    checkout: isoDate(2 + (i % 420)),
    room_type_id: types[Math.floor(i / 420)]!
  }))
  console.error(`export: ${RESERVATIONS} reservations, quote, intent, completion…`)
  const made = performance.now()
  const pending = await pool(stays, 10, (stay) => prepare(base, stay))
  const terms = await termsVersion(base, pending[0]!.token)
  const done = await pool(pending, 10, (p) => complete(base, terms, p))
  const madeMs = performance.now() - made
  const completed = done.filter((d) => d.answer.status === 200).length
  if (completed !== RESERVATIONS) failures.push(`export: ${completed} of ${RESERVATIONS} completions succeeded`)
  console.error(`export: waiting for the outbox (${RESERVATIONS} confirmations, each a PDF)…`)
  await outboxIdle(service.databaseUrl)
  const folder = temporaryDataDir()
  const file = join(folder, "hotel.json")
  const env = { DATABASE_URL: service.databaseUrl, APP_SECRET: randomBytes(32).toString("base64url"), DATA_DIR: folder }

  console.error(`export: npm run db:export…`)
  const exported = await npmRun(["db:export", "--", file], env)
  if (exported.code !== 0) failures.push(`export: db:export exited ${exported.code}: ${exported.output}`)
  const bytes = exported.code === 0 ? statSync(file).size : Number.NaN
  const exportedSaid = /exported [^"\n]+/.exec(exported.output)?.[0] ?? exported.output.trim()

  const inProcess = join(folder, "in-process.json")
  const started = performance.now()
  const written = await run(exportTo(inProcess).pipe(Effect.provide(pgClientLayer(Redacted.make(service.databaseUrl), { maxConnections: 1 }))))
  const inProcessMs = performance.now() - started

  console.error(`export: npm run db:import into another fresh database…`)
  const target = await freshDatabase()
  const imported = await npmRun(["db:import", "--", file], { ...env, DATABASE_URL: target })
  if (imported.code !== 0) failures.push(`export: db:import exited ${imported.code}: ${imported.output}`)
  const importedSaid = /imported [^"\n]+/.exec(imported.output)?.[0] ?? imported.output.trim()
  const completedIn = (url: string) => countRows(url, `SELECT count(*)::int AS n FROM reservations WHERE status = 'GUEST_COMPLETED'`)
  const [there, here] = [await completedIn(service.databaseUrl), imported.code === 0 ? await completedIn(target) : Number.NaN]
  if (there !== here) failures.push(`export: ${there} completed reservations exported, ${here} imported`)
  const importStarted = performance.now()
  await run(importFrom(file).pipe(Effect.provide(pgClientLayer(Redacted.make(await freshDatabase()), { maxConnections: 1 }))))
  const importInProcessMs = performance.now() - importStarted
  // what npm and tsx take to start a command and load the service's modules: the usage message
  const usage = await npmRun(["db:export"], env)
  await stop(service.child)

  const mb = (n: number) => (n / 1e6).toFixed(2)
  const rows = [
    ["npm run db:export -- FILE (tsx's start included)", ms(exported.ms), String(bytes), mb(bytes)],
    ["exportTo in this process", ms(inProcessMs), String(written.bytes), mb(written.bytes)],
    ["npm run db:import -- FILE into an empty database", ms(imported.ms), String(bytes), mb(bytes)],
    ["importFrom in this process, into an empty database", ms(importInProcessMs), String(bytes), mb(bytes)],
    ["npm run db:export with no FILE (its usage message: npm and tsx starting)", ms(usage.ms), "", ""]
  ]
  const facts = [
    `${completed} reservations completed over HTTP in ${(madeMs / 1000).toFixed(1)} s (10 in flight), then the outbox left to finish`,
    `db:export said: ${exportedSaid}`,
    `db:import said: ${importedSaid}; completed reservations: ${there} in the source, ${here} in the import`
  ]
  return { table: table(["backup", "time (ms)", "file (bytes)", "file (MB)"], rows), facts }
}

// 4. Quote throughput, other code against this code, alternately.
/** A process's CPU time so far (user and system, all its threads), in ms: `/proc/PID/stat`, in ticks of 10 ms. */
const cpuMs = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const comparePart = async (otherCheckout: string) => {
  const other = await startServiceOn(await freshDatabase(), {}, otherCheckout)
  const current = await startService()
  const runs: Array<{ code: "other" | "this"; m: Measured; cpuUs: number }> = []
  for (let round = 0; round < COMPARE_ROUNDS; round++) {
    for (const [code, service] of [["other", other], ["this", current]] as const) {
      console.error(`compare round ${round + 1}: POST /v1/quotes on ${code} code, ${SECONDS} s…`)
      const cpuBefore = cpuMs(service.child.pid!)
      const m = await measure({ url: `${service.base}/v1/quotes`, method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(quoteBody) }, 50)
      // the service's CPU per answer over the whole run, warm-up included: what the machine's drift moves least
      const cpuUs = ((cpuMs(service.child.pid!) - cpuBefore) * 1000) / m.result.requests.total
      if (m.non2xx > 0 || m.result.errors > 0) failures.push(`compare: ${code} code, round ${round + 1}: ${m.non2xx} non-2xx, ${m.result.errors} errors`)
      runs.push({ code, m, cpuUs })
    }
  }
  await stop(other.child)
  await stop(current.child)
  const median = (xs: Array<number>) => percentile(xs, 50)
  const label = (code: "other" | "this") => (code === "other" ? `other (${otherCheckout})` : "this")
  const rows = runs.map(({ code, cpuUs, m }, i) => [
    `round ${Math.floor(i / 2) + 1}, ${label(code)}`,
    m.rps.toFixed(0),
    m.p50.toFixed(1),
    m.p99.toFixed(1),
    cpuUs.toFixed(0),
    String(m.non2xx)
  ])
  for (const code of ["other", "this"] as const) {
    const mine = runs.filter((r) => r.code === code)
    rows.push([
      `median, ${label(code)}`,
      median(mine.map((r) => r.m.rps)).toFixed(0),
      median(mine.map((r) => r.m.p50)).toFixed(1),
      median(mine.map((r) => r.m.p99)).toFixed(1),
      median(mine.map((r) => r.cpuUs)).toFixed(0),
      ""
    ])
  }
  const ratios = Array.from({ length: COMPARE_ROUNDS }, (_, round) => runs[2 * round + 1]!.m.rps / runs[2 * round]!.m.rps)
  const cpuRatios = Array.from({ length: COMPARE_ROUNDS }, (_, round) => runs[2 * round + 1]!.cpuUs / runs[2 * round]!.cpuUs)
  const facts = [
    `this code's req/s against the other's, round by round: ${ratios.map((r) => r.toFixed(2)).join(", ")} (median ${median(ratios).toFixed(2)})`,
    `its CPU per quote against the other's: ${cpuRatios.map((r) => r.toFixed(2)).join(", ")} (median ${median(cpuRatios).toFixed(2)})`
  ]
  return { table: table(["POST /v1/quotes, 50 connections", "req/s", "p50 (ms)", "p99 (ms)", "CPU µs/quote", "non-2xx"], rows), facts }
}

const main = async () => {
  const reports: Array<{ title: string; table: ReturnType<typeof table>; facts: Array<string> }> = []
  if (PARTS.has("restart")) reports.push({ title: "1. A database restart (stopped 8 s)", ...await restartPart() })
  if (PARTS.has("lock")) reports.push({ title: `2. LOCK TABLE inventory_nights held 12 s (DATABASE_TIMEOUT_MS ${TIMEOUT_MS})`, ...await lockPart() })
  if (PARTS.has("export")) reports.push({ title: `3. Export of ${RESERVATIONS} reservations`, ...await exportPart() })
  if (PARTS.has("compare")) {
    if (COMPARE_WITH === undefined) throw new Error("the compare part needs BENCH_COMPARE_WITH, a checkout with its dist/ built")
    reports.push({ title: `4. Quote throughput, ${SECONDS} s per run after 2 s warm-up`, ...await comparePart(COMPARE_WITH) })
  }
  for (const r of reports) console.log(`\n${r.title}\n\n${r.table.text}\n${r.facts.map((f) => `- ${f}`).join("\n")}`)
  console.log("")
  for (const r of reports) console.log(`**${r.title}**\n\n${r.table.markdown}\n\n${r.facts.map((f) => `- ${f}`).join("\n")}\n`)
  if (failures.length > 0) {
    console.error(`\n${failures.length} failures:\n${failures.map((f) => `- ${f}`).join("\n")}`)
    process.exitCode = 1
  }
}

await runBench(main)
