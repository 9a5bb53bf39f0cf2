/**
 * `npm run bench:instructions`: the instructions a request of the service runs, counted by
 * valgrind's callgrind (Debian's `valgrind`), which the host's drift does not move: the same build
 * counts the same within 2–4 %, where its CPU time moves by a third within minutes. The kernel's
 * share (the socket writes) is not counted. For GET /v1/hotel and the two-room quote, the service
 * (`npm start`'s node flags, on a database of its own, the rate limit on as deployed) starts under
 * callgrind with nothing counted; `BENCH_COUNT` requests (default 3,000; a third as many quotes)
 * warm it up, 4 at a time, then as many are counted. With `BENCH_BASELINE=/path/to/an/older/checkout`
 * (built with `npm run build`) the two versions alternate, `BENCH_ROUNDS` times (default 1), each
 * version as often first as second. `BENCH_ONLY=GET` (or `quotes`): the targets whose name holds it.
 * Start-up under valgrind takes 30–40 s, a quote some 35 ms.
 */
import autocannon from "autocannon"
import { execFileSync, spawn } from "node:child_process"
import { closeSync, openSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { table, twoRoomQuote } from "./load.js"
import {
  cleanups,
  freePort,
  freshDatabase,
  runBench,
  serviceEnv,
  startArguments,
  stop,
  temporaryDataDir,
  waitHealthy
} from "./service.js"

const COUNT = Number(process.env["BENCH_COUNT"] ?? "3000")
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? "1")
const BASELINE = process.env["BENCH_BASELINE"]
const ONLY = process.env["BENCH_ONLY"]
/** The service's own address setting, which valgrind also names its control pipes after: `callgrind_control` is given the same. */
const HOST = "127.0.0.1"

const callgrindControl = (pid: number, ...args: Array<string>) =>
  execFileSync("callgrind_control", [...args, String(pid)], { env: { ...process.env, HOST }, stdio: "ignore" })

/** `amount` requests of `opts`, 4 at a time, all answered 2xx. */
const send = (opts: autocannon.Options, amount: number) =>
  new Promise<void>((resolve, reject) =>
    autocannon({ ...opts, amount, connections: 4 }, (error, result) => {
      if (error) return reject(error)
      if (result.non2xx > 0 || result.errors > 0) return reject(new Error(`${opts.url}: ${result.non2xx} non-2xx, ${result.errors} errors`))
      resolve()
    })
  )

/** The instructions a request of `target` runs in the service built in `cwd`. */
const count = async (cwd: string, target: (base: string) => autocannon.Options, amount: number) => {
  const port = await freePort()
  const dataDir = temporaryDataDir()
  const out = join(dataDir, "callgrind")
  const log = openSync(join(dataDir, "valgrind.log"), "a")
  const child = spawn("valgrind", [
    "--tool=callgrind",
    "--instr-atstart=no",
    `--callgrind-out-file=${out}.%p`,
    process.execPath,
    ...startArguments(cwd)
  ], { cwd, env: { ...process.env, ...serviceEnv(await freshDatabase(), port, dataDir, { RATE_LIMIT_PER_MINUTE: "1000000", HOST }) }, stdio: ["ignore", log, log] })
  closeSync(log)
  cleanups.push(() => stop(child))
  const base = `http://${HOST}:${port}`
  await waitHealthy(`${base}/v1/health`, child, () => readFileSync(join(dataDir, "valgrind.log"), "utf8").slice(-2000), 180_000)
  const opts = target(base)
  await send(opts, amount)
  callgrindControl(child.pid!, "--instr=on")
  await send(opts, amount)
  callgrindControl(child.pid!, "--instr=off")
  callgrindControl(child.pid!, "--dump")
  await stop(child)
  // the dump holds what was counted; the file written at exit, nothing more
  const totals = readdirSync(dataDir).filter((file) => file.startsWith(`callgrind.${child.pid}`)).map((file) =>
    Number(/^totals: (\d+)$/m.exec(readFileSync(join(dataDir, file), "utf8"))?.[1] ?? 0)
  )
  return Math.max(0, ...totals) / amount
}

const TARGETS = [
  ["GET /v1/hotel", (base: string) => ({ url: `${base}/v1/hotel` }), COUNT],
  ["POST /v1/quotes (2 rooms)", twoRoomQuote, Math.ceil(COUNT / 3)]
] as const

runBench(async () => {
  execFileSync("valgrind", ["--version"], { stdio: "ignore" }) // Debian: apt-get install valgrind
  const versions: Array<readonly [string, string]> = BASELINE === undefined
    ? [["this version", process.cwd()]]
    : [["baseline", BASELINE], ["this version", process.cwd()]]
  const rows: Array<Array<string>> = []
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [target, make, amount] of TARGETS.filter(([target]) => ONLY === undefined || target.includes(ONLY))) {
      for (const [version, cwd] of round % 2 === 1 ? versions : [...versions].reverse()) {
        console.error(`round ${round}, ${version}: ${target}, ${amount} warm-up then ${amount} counted…`)
        const instructions = await count(cwd, make, amount)
        rows.push([target, version, String(round), Math.round(instructions).toLocaleString("en-US")])
      }
    }
  }
  const result = table(["target", "version", "round", "instructions a request"], rows)
  console.log(`${result.text}\n\n${result.markdown}`)
})
