/**
 * `BENCH_BASELINE=/path/to/a/checkout[,/another] npm run bench:metrics`: what collecting the
 * metrics costs a request. GET /v1/hotel (no database) and POST /v1/quotes (2 rooms, 3 nights: the
 * database pool's metrics at each turn for a connection) on this build and on each baseline checkout
 * (built with `npm run build`: one from before the metrics, say, and one from before a change to
 * them), each with `METRICS_TOKEN` set and scraped once a second as Prometheus would (more often
 * than its usual 15 s; a build without the metrics answers the scrape 404), in `BENCH_PAIRS`
 * rounds whose order rotates: CPU µs of the service process per request, req/s and latency, then
 * the median and range of each.
 */
import type { ChildProcess } from "node:child_process"
import { basename } from "node:path"
import type autocannon from "autocannon"
import { measureWithCpu, table, twoRoomQuote } from "./load.js"
import { runBench, startService } from "./service.js"

const BASELINES = (process.env["BENCH_BASELINE"] ?? "").split(",").filter((path) => path !== "")
const PAIRS = Number(process.env["BENCH_PAIRS"] ?? "3")
const CONNECTIONS = 10
const METRICS_TOKEN = "bench-metrics-token-0123456789-0123456789"

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length / 2
  return sorted.length % 2 === 1 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const summary = (values: ReadonlyArray<number>) =>
  `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`

runBench(async () => {
  if (BASELINES.length === 0) throw new Error("BENCH_BASELINE: the paths of checkouts to compare with (comma-separated), each built")
  const routes = (base: string): Array<readonly [string, autocannon.Options]> => [
    ["GET /v1/hotel", { url: `${base}/v1/hotel` }],
    ["POST /v1/quotes", twoRoomQuote(base)]
  ]
  const load = (child: ChildProcess, opts: autocannon.Options) => measureWithCpu(opts, CONNECTIONS, child.pid!)
  const targets: Array<{ readonly label: string; readonly child: ChildProcess; readonly base: string }> = []
  targets.push({ label: "this build", ...await startService({ METRICS_TOKEN }) })
  for (const path of BASELINES) targets.push({ label: basename(path), ...await startService({ METRICS_TOKEN }, path) })
  const scraper = setInterval(() => {
    for (const { base } of targets) {
      void fetch(`${base}/internal/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then((r) => r.text(), () => "")
    }
  }, 1000)
  try {
    for (const target of targets) {
      for (const [name, opts] of routes(target.base)) {
        console.error(`${target.label}: ${name} (warm-up)…`)
        await load(target.child, opts)
      }
    }
    const rows: Array<Array<string>> = []
    const runs = new Map<string, Array<{ micros: number; rps: number }>>()
    for (let pair = 1; pair <= PAIRS; pair++) {
      const shift = (pair - 1) % targets.length
      for (const target of [...targets.slice(shift), ...targets.slice(0, shift)]) {
        for (const [name, opts] of routes(target.base)) {
          console.error(`round ${pair}, ${target.label}: ${name}…`)
          const m = await load(target.child, opts)
          rows.push([`${name}, ${target.label}, round ${pair}`, m.micros.toFixed(0), m.rps.toFixed(0), m.p50.toFixed(1), m.p99.toFixed(1), String(m.non2xx)])
          const key = `${name}, ${target.label}`
          runs.set(key, [...(runs.get(key) ?? []), { micros: m.micros, rps: m.rps }])
        }
      }
    }
    const result = table(["target", "CPU µs/request", "req/s", "p50 (ms)", "p99 (ms)", "non-2xx"], rows)
    const medians = table(
      ["route, target", "CPU µs/request: median (range)", "req/s: median (range)"],
      [...runs].sort(([a], [b]) => a.localeCompare(b)).map(([key, values]) => [
        key,
        summary(values.map((v) => v.micros)),
        summary(values.map((v) => v.rps))
      ])
    )
    console.log(`${result.text}\n\n${medians.text}\n\n${result.markdown}\n\n${medians.markdown}`)
  } finally {
    clearInterval(scraper)
  }
})
