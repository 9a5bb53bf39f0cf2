/**
 * The service under a bench: a database of its own, the service spawned as `npm start` runs it,
 * and the guest's calls (quote, intent, completion). Everything started is removed by `cleanup`.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const SERVER_URL = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"

export const cleanups: Array<() => Promise<void>> = []
let cleaning: Promise<void> | undefined
const cleanup = () =>
  (cleaning ??= (async () => {
    for (const fn of cleanups.reverse()) await fn().catch((e) => console.error("cleanup:", e))
  })())

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer().once("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })

/** The node arguments of `npm start` in the checkout `cwd`, so that the bench runs each version exactly as it is run. */
export const startArguments = (cwd = ROOT): Array<string> => {
  const start: string = JSON.parse(readFileSync(join(cwd, "package.json"), "utf8")).scripts.start
  const [command, ...args] = start.split(/\s+/)
  if (command !== "node") throw new Error(`npm start is not a plain node command: ${start}`)
  return args
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Where a service's stdout goes: to a file by default, as a deployment writes its log (each write
 * a system call that returns once the kernel has the bytes), or to a pipe the bench reads
 * (`BENCH_STDOUT=pipe`, or a bench that reads the log). A pipe the reader keeps draining costs the
 * service less than a file, so figures taken on a pipe flatter the request log.
 */
export type Output = "file" | "pipe"
export const DEFAULT_OUTPUT: Output = process.env["BENCH_STDOUT"] === "pipe" ? "pipe" : "file"

/**
 * `BENCH_PROFILE=DIR`: each service runs with `--cpu-prof`, its profile written into DIR when it
 * stops (open it in Chrome's DevTools, or summarise it with `npx tsx bench/profileTop.ts DIR/x.cpuprofile`).
 */
const PROFILE_DIR = process.env["BENCH_PROFILE"]

/**
 * `BENCH_NODE_ARGS`: node flags for each service besides `npm start`'s, such as `--trace-gc`
 * (which NODE_OPTIONS refuses): its lines go to the service's stdout file.
 */
const NODE_ARGS = process.env["BENCH_NODE_ARGS"]?.split(/\s+/).filter((flag) => flag !== "") ?? []

/**
 * `BENCH_PIN=CPU`: every server the bench starts (the service, the bare ones) runs on that CPU
 * alone (`taskset -c`), the bench itself started on the others, e.g. `BENCH_PIN=0 taskset -c 1 npm
 * run bench:side`. The load generator then never takes the server's core, and a profile
 * (`BENCH_PROFILE`) samples what the server spends, not the time it waited for a core: GET
 * /v1/hotel's `writev` took 53 % of the samples unpinned, 39 % pinned, the kernel's share of its
 * CPU (docs/performance.md).
 */
const PIN = process.env["BENCH_PIN"]

/**
 * Spawns a node child in `cwd` (this checkout by default), its stdout to a file in `outputDir`
 * (when given) or to a pipe, keeps the tail of what it says, and registers its kill (SIGTERM,
 * SIGKILL after 5 s). `output()`: the last lines of stderr and of stdout.
 */
export const startNode = (args: Array<string>, env: Record<string, string>, cwd = ROOT, outputDir?: string) => {
  const stdoutFile = outputDir === undefined ? undefined : join(outputDir, "stdout.log")
  const stdoutFd = stdoutFile === undefined ? "pipe" : openSync(stdoutFile, "a")
  const [command, commandArgs] = PIN === undefined ? [process.execPath, args] : ["taskset", ["-c", PIN, process.execPath, ...args]]
  const child = spawn(command, commandArgs, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", stdoutFd, "pipe"] })
  if (typeof stdoutFd === "number") closeSync(stdoutFd)
  const tail: Array<string> = []
  const keep = (chunk: Buffer) => {
    tail.push(chunk.toString())
    if (tail.length > 40) tail.shift()
  }
  child.stdout?.on("data", keep)
  child.stderr?.on("data", keep)
  cleanups.push(() => stop(child))
  const output = () => {
    const stdout = stdoutFile === undefined ? "" : readFileSync(stdoutFile, "utf8").split("\n").slice(-40).join("\n")
    return `${tail.join("")}${stdout}`
  }
  return { child, tail, output, stdoutFile }
}

/** Stops a child now (SIGTERM, SIGKILL after 5 s); its registered cleanup then has nothing to do. */
export const stop = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((r) => child.once("exit", r))
  child.kill("SIGTERM")
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000)
  await exited
  clearTimeout(timer)
}

/** Polls `url` until it answers 200; fails after `timeoutMs` or if the child exits. */
export const waitHealthy = async (url: string, child: ChildProcess, output: () => string, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited (${child.exitCode}):\n${output()}`)
    const ok = await fetch(url).then((r) => r.status === 200, () => false)
    if (ok) return
    await sleep(100)
  }
  throw new Error(`${url}: not healthy after ${timeoutMs / 1000} s:\n${output()}`)
}

/** The date `daysAhead` days after today in the hotel's time (Europe/Paris), as YYYY-MM-DD. */
export const isoDate = (daysAhead: number) => {
  const d = new Date(`${new Date().toLocaleDateString("en-CA", { timeZone: "Europe/Paris" })}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + daysAhead)
  return d.toISOString().slice(0, 10)
}

/** What a bare server answers every request with: its headers (Node adds Date and Connection) and body. */
export interface BareAnswer {
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/**
 * A bare `node:http` server answering `answer` ({"ok":true} by default), in a child of its own:
 * the baseline every ratio is to; its URL. `spinMicros`: the CPU it spends on each request before
 * answering, in a busy loop (`bench/budget.ts`), none by default.
 */
export const startBare = (spinMicros = 0, answer: BareAnswer = { headers: { "content-type": "application/json" }, body: `{"ok":true}` }) => {
  const spin = spinMicros === 0 ? "" : `const until = performance.now() + ${spinMicros / 1000}; while (performance.now() < until);`
  return startHttpChild((port) => [
    "-e",
    `const headers = ${JSON.stringify(answer.headers)}; const body = ${JSON.stringify(answer.body)};` +
    `require("node:http").createServer((q, s) => { q.resume(); ${spin}s.writeHead(200, headers); s.end(body) })` +
    `.listen(${port}, "127.0.0.1")`
  ])
}

/** A node child (`args` for a free port) serving HTTP on 127.0.0.1 at that port, once `/` answers; with its URL. */
export const startHttpChild = async (args: (port: number) => Array<string>) => {
  const port = await freePort()
  const server = startNode(args(port), {})
  const url = `http://127.0.0.1:${port}/`
  await waitHealthy(url, server.child, server.output)
  return { ...server, url }
}

/** Runs `fn` on every item with at most `concurrency` calls in flight; the results in item order. */
export const pool = async <A, B>(items: ReadonlyArray<A>, concurrency: number, fn: (item: A) => Promise<B>) => {
  const results: Array<B> = []
  let next = 0
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await fn(items[i]!)
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker))
  return results
}

/** The nearest-rank percentile `p` (0–100) of some numbers. */
export const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}

/** A JSON call to the service: its status and parsed body (`error` on non-2xx answers; status 0 if fetch failed). */
export interface Answer {
  readonly status: number
  readonly body: Record<string, unknown> & { readonly error?: { readonly code: string; readonly details?: { readonly new_total?: number } } }
}
export const call = async (url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
  const r = await fetch(url, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  }).catch((e: Error) => e)
  if (r instanceof Error) return { status: 0, body: { error: { code: `fetch failed: ${String(r.cause ?? r)}` } } }
  const text = await r.text()
  try {
    return { status: r.status, body: JSON.parse(text) }
  } catch {
    return { status: r.status, body: { error: { code: `non-JSON: ${text.slice(0, 200)}` } } }
  }
}

export interface Stay {
  readonly checkin: string
  readonly checkout: string
  readonly room_type_id: string
}

/** A reservation waiting for its guest: the guest-link token and the FLEX total the guest saw. */
export interface Pending {
  readonly token: string
  readonly total: number
}

/** Quote (FLEX offer), then intent: a pending reservation of one room for 2 adults. */
export const prepare = async (base: string, stay: Stay): Promise<Pending> => {
  const { checkin, checkout, room_type_id } = stay
  const quote = await call(`${base}/v1/quotes`, { checkin, checkout, rooms: [{ room_type_id, adults: 2 }] })
  const offer = (quote.body["package_offers"] as Array<{ rate_code: string; package_code: string; price: { total: number } }> | undefined)
    ?.find((o) => o.rate_code === "FLEX")
  if (quote.status !== 200 || offer === undefined) throw new Error(`quote ${JSON.stringify(stay)}: ${quote.status} ${JSON.stringify(quote.body)}`)
  const intent = await call(`${base}/v1/reservation-intents`, { quote_id: quote.body["quote_id"], package_code: offer.package_code })
  const token = /#token=(.+)$/.exec(String(intent.body["continue_url"]))?.[1]
  if (intent.status !== 200 || token === undefined) throw new Error(`intent ${JSON.stringify(stay)}: ${intent.status} ${JSON.stringify(intent.body)}`)
  return { token, total: offer.price.total }
}

/** Completes a pending reservation as its guest, once more at the new total after a 409 price_changed. */
export const complete = async (base: string, termsVersion: string, pending: Pending, email = "bench.guest@example.com") => {
  const started = performance.now()
  const send = (expected_total: number) =>
    call(`${base}/v1/reservation-complete`, {
      first_name: "Bench",
      last_name: "Guest",
      email,
      phone: "+33 6 12 34 56 78",
      accept_terms: true,
      terms_version: termsVersion,
      expected_total
    }, { "x-reservation-token": pending.token })
  let answer = await send(pending.total)
  const repriced = answer.status === 409 && answer.body.error?.code === "price_changed"
  if (repriced) answer = await send(answer.body.error?.details?.new_total ?? Number.NaN)
  return { answer, repriced, ms: performance.now() - started }
}

/** A fresh database on the PostgreSQL server, dropped at cleanup; its URL. */
export const freshDatabase = async (): Promise<string> => {
  const dbName = `hotel_bench_${randomBytes(4).toString("hex")}`
  const admin = new pg.Client({ connectionString: SERVER_URL })
  await admin.connect()
  cleanups.push(() => admin.end())
  await admin.query(`CREATE DATABASE "${dbName}"`)
  cleanups.push(async () => void (await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`)))
  const dbUrl = new URL(SERVER_URL)
  dbUrl.pathname = `/${dbName}`
  return dbUrl.toString()
}

/**
 * Makes the PostgreSQL server write out what the runs before left dirty (CHECKPOINT), so that it
 * does not land on the next run: thousands of quotes stored by one version otherwise cost the
 * version measured after it (a side-by-side run's second version looked up to twice as dear a
 * quote). Needs a superuser, as the default server's `postgres`; skipped without one.
 */
export const settleDatabase = async () => {
  const admin = new pg.Client({ connectionString: SERVER_URL })
  await admin.connect()
  try {
    await admin.query("CHECKPOINT").catch(() => undefined)
  } finally {
    await admin.end()
  }
}

/** A temporary DATA_DIR, removed at cleanup. */
export const temporaryDataDir = () => {
  const dataDir = mkdtempSync(join(tmpdir(), "hotel-bench-"))
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }))
  return dataDir
}

/**
 * The service as `npm start` runs it, on a fresh database and DATA_DIR, once it answers
 * /v1/health; `env` adds settings. `startupMs`: from the spawn to the first healthy answer.
 * The benches make and complete hundreds of reservations from one address, most for one guest's
 * email: `INTENT_LIMIT_PER_HOUR`, `BOOKING_LIMIT_PER_HOUR`, `ROOM_NIGHTS_PER_ADDRESS_PER_DAY` and
 * `MAIL_LIMIT_PER_RECIPIENT_PER_DAY` are off (0), so that every completion is made and every email sent, as before these limits, and
 * the figures compare; so is `RATE_LIMIT_PER_MINUTE`, which thousands of requests a second from
 * one address would exhaust.
 * Without SMTP_URL in `env`, its emails are .eml files under `dataDir`/mail. `cwd`: the checkout
 * whose build runs (another one's, for a bench side by side with an older version). `output`:
 * its stdout to `dataDir`/stdout.log (the default, as deployed) or to a pipe the bench reads.
 */
export const startService = async (env: Record<string, string> = {}, cwd = ROOT, output = DEFAULT_OUTPUT) =>
  startServiceOn(await freshDatabase(), env, cwd, output)

/** As `startService`, on the database at `databaseUrl`, from the checkout in `cwd` (this one by default: another's `dist/`). */
export const startServiceOn = async (databaseUrl: string, env: Record<string, string> = {}, cwd = ROOT, output = DEFAULT_OUTPUT) => {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const dataDir = temporaryDataDir()
  const spawnedAt = performance.now()
  const flags = [...NODE_ARGS, ...(PROFILE_DIR === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`])]
  const service = startNode([...flags, ...startArguments(cwd)], serviceEnv(databaseUrl, port, dataDir, env), cwd, output === "file" ? dataDir : undefined)
  await waitHealthy(`${base}/v1/health`, service.child, service.output)
  return { ...service, base, databaseUrl, dataDir, startupMs: performance.now() - spawnedAt }
}

/** The settings of a bench's service (`startServiceOn`) on `databaseUrl`, `port` and `dataDir`, `env` over them. */
export const serviceEnv = (databaseUrl: string, port: number, dataDir: string, env: Record<string, string> = {}) => ({
  DATABASE_URL: databaseUrl,
  APP_SECRET: randomBytes(32).toString("base64url"), // required with DATABASE_URL
  PORT: String(port),
  HOST: "127.0.0.1",
  DATA_DIR: dataDir,
  INTENT_LIMIT_PER_HOUR: "0",
  BOOKING_LIMIT_PER_HOUR: "0",
  ROOM_NIGHTS_PER_ADDRESS_PER_DAY: "0",
  MAIL_LIMIT_PER_RECIPIENT_PER_DAY: "0",
  RATE_LIMIT_PER_MINUTE: "0",
  ...env
})

/** The version of the terms a guest accepts, from the public view of a pending reservation. */
export const termsVersion = async (base: string, token: string) => {
  const publicView = await call(`${base}/v1/reservation-public`, undefined, { "x-reservation-token": token })
  return String((publicView.body["terms"] as { version?: string } | undefined)?.version)
}

/** Runs a bench: exit code 1 if it throws; everything started is cleaned up, also on Ctrl-C. */
export const runBench = async (main: () => Promise<void>) => {
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
}
