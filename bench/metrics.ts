/**
 * `BENCH_BASELINE=/path/to/an/older/checkout npm run bench:metrics`: what collecting the metrics
 * costs a request. GET /v1/hotel and POST /v1/quotes (2 rooms, 3 nights) on this build, with
 * `METRICS_TOKEN` set and scraped once a second as Prometheus would (more often than its usual 15 s),
 * against the baseline checkout (built with `npm run build`, before the metrics), in `BENCH_PAIRS`
 * alternating pairs: CPU µs of the service process per request, req/s and latency.
 */
import type { ChildProcess } from "node:child_process"
import { readFileSync } from "node:fs"
import type autocannon from "autocannon"
import { measure, table, twoRoomQuote } from "./load.js"
import { runBench, startService } from "./service.js"

const BASELINE = process.env["BENCH_BASELINE"]
const PAIRS = Number(process.env["BENCH_PAIRS"] ?? "3")
const CONNECTIONS = 10
const METRICS_TOKEN = "bench-metrics-token-0123456789-0123456789"
/** Linux counts a process's CPU time in ticks of 1/100 s (USER_HZ). */
const MICROS_PER_TICK = 10_000

const cpuMicros = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ")
  return (Number(fields[11]) + Number(fields[12])) * MICROS_PER_TICK
}

runBench(async () => {
  if (BASELINE === undefined) throw new Error("BENCH_BASELINE: the path of a checkout built before the metrics")
  const routes = (base: string): Array<readonly [string, autocannon.Options]> => [
    ["GET /v1/hotel", { url: `${base}/v1/hotel` }],
    ["POST /v1/quotes", twoRoomQuote(base)]
  ]
  const load = async (child: ChildProcess, opts: autocannon.Options) => {
    const before = cpuMicros(child.pid!)
    const measured = await measure(opts, CONNECTIONS)
    return { micros: (cpuMicros(child.pid!) - before) / measured.result.requests.total, ...measured }
  }
  const metrics = await startService({ METRICS_TOKEN })
  const baseline = await startService({}, BASELINE)
  const scraper = setInterval(() => {
    void fetch(`${metrics.base}/internal/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then((r) => r.text())
  }, 1000)
  try {
    for (const target of [metrics, baseline]) {
      for (const [name, opts] of routes(target.base)) {
        console.error(`${name} (warm-up)…`)
        await load(target.child, opts)
      }
    }
    const rows: Array<Array<string>> = []
    for (let pair = 1; pair <= PAIRS; pair++) {
      const order = [["metrics", metrics], ["baseline", baseline]] as const
      for (const [label, target] of pair % 2 === 1 ? order : [order[1], order[0]]) {
        for (const [name, opts] of routes(target.base)) {
          console.error(`pair ${pair}, ${label}: ${name}…`)
          const m = await load(target.child, opts)
          rows.push([`${name}, ${label}, pair ${pair}`, m.micros.toFixed(0), m.rps.toFixed(0), m.p50.toFixed(1), m.p99.toFixed(1), String(m.non2xx)])
        }
      }
    }
    const result = table(["target", "CPU µs/request", "req/s", "p50 (ms)", "p99 (ms)", "non-2xx"], rows)
    console.log(`${result.text}\n\n${result.markdown}`)
  } finally {
    clearInterval(scraper)
  }
})
