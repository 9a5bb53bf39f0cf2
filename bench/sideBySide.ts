/**
 * `npm run bench:side`: this version beside an older one, on the request path everyone takes:
 * GET /v1/hotel and POST /v1/quotes (2 rooms, 3 nights), 50 connections, `BENCH_SECONDS` each, with
 * the service's CPU µs a request and the database server's (when it runs on this machine: a
 * quote's statements cost the cores the service and the load share).
 * `BENCH_BASELINE=/path/to/an/older/checkout` (built with `npm run build`); the two run
 * alternately, `BENCH_PAIRS` (default 4: as often first as second) pairs, which goes first changing
 * every pair, so that the machine's drift of minutes falls on both. After each version the database
 * server writes out what its quotes left dirty (`settleDatabase`), so that it does not fall on the
 * next. Each pair begins with a bare `node:http` server (50 connections, the same seconds), and each
 * row says its req/s as a ratio to that pair's bare figure, and the share of the machine's CPU time
 * stolen by its hypervisor meanwhile. Each service logs as deployed (stdout to a file;
 * `BENCH_STDOUT=pipe` for a pipe) with its production limits (RATE_LIMIT_PER_MINUTE at a figure no
 * run reaches, so that every answer is a 200). Then the medians of each version.
 */
import { databaseCpuMicros, machineCpu, measure, measureWithCpu, stolenPercent, table, twoRoomQuote } from "./load.js"
import { percentile, runBench, settleDatabase, startBare, startService, stop } from "./service.js"

const PAIRS = Number(process.env["BENCH_PAIRS"] ?? "4")
const BASELINE = process.env["BENCH_BASELINE"]

runBench(async () => {
  if (BASELINE === undefined) throw new Error("BENCH_BASELINE: the path of the older checkout to compare with (built with npm run build)")
  const targets = (base: string) => [
    ["GET /v1/hotel", { url: `${base}/v1/hotel` }],
    ["POST /v1/quotes", twoRoomQuote(base)]
  ] as const
  const versions = [["baseline", BASELINE], ["this version", undefined]] as const
  const bare = await startBare()
  const rows: Array<Array<string>> = []
  const figures: Array<{ target: string; version: string; ratio: number; rps: number; micros: number; databaseMicros: number }> = []
  for (let pair = 1; pair <= PAIRS; pair++) {
    console.error(`pair ${pair}: bare node:http…`)
    const bareRps = (await measure({ url: bare.url }, 50)).rps
    rows.push(["bare node:http GET /", "-", String(pair), bareRps.toFixed(0), "", "", "", "", "", "", "1.000"])
    for (const [name, root] of pair % 2 === 1 ? versions : [versions[1], versions[0]]) {
      const service = await startService({ RATE_LIMIT_PER_MINUTE: "1000000" }, root)
      for (const [target, opts] of targets(service.base)) {
        console.error(`pair ${pair}, ${name}: ${target}…`)
        const databaseBefore = databaseCpuMicros()
        const machineBefore = machineCpu()
        const measured = await measureWithCpu(opts, 50, service.child.pid!)
        const stolen = stolenPercent(machineBefore, machineCpu())
        const { micros } = measured
        const databaseMicros = (databaseCpuMicros() - databaseBefore) / measured.result.requests.total
        const ratio = measured.rps / bareRps
        figures.push({ target, version: name, ratio, rps: measured.rps, micros, databaseMicros })
        rows.push([
          target,
          name,
          String(pair),
          measured.rps.toFixed(0),
          measured.p50.toFixed(1),
          measured.p99.toFixed(1),
          micros.toFixed(0),
          databaseMicros.toFixed(0),
          String(measured.non2xx),
          stolen.toFixed(1),
          ratio.toFixed(3)
        ])
      }
      await stop(service.child)
      await settleDatabase()
    }
  }
  rows.sort((a, b) => a[0]!.localeCompare(b[0]!) || a[1]!.localeCompare(b[1]!) || a[2]!.localeCompare(b[2]!))
  const result = table(["target", "version", "pair", "req/s", "p50 (ms)", "p99 (ms)", "CPU µs/request", "database CPU µs/request", "non-2xx", "stolen (%)", "vs bare"], rows)
  const summaryRows = targets("").flatMap(([target]) =>
    versions.map(([version]) => {
      const mine = figures.filter((f) => f.target === target && f.version === version)
      const median = (pick: (f: typeof mine[number]) => number) => percentile(mine.map(pick), 50)
      const range = (pick: (f: typeof mine[number]) => number, digits: number) =>
        `${Math.min(...mine.map(pick)).toFixed(digits)}–${Math.max(...mine.map(pick)).toFixed(digits)}`
      return [
        target,
        version,
        `${median((f) => f.rps).toFixed(0)} (${range((f) => f.rps, 0)})`,
        `${median((f) => f.micros).toFixed(0)} (${range((f) => f.micros, 0)})`,
        `${median((f) => f.databaseMicros).toFixed(0)} (${range((f) => f.databaseMicros, 0)})`,
        `${median((f) => f.ratio).toFixed(3)} (${range((f) => f.ratio, 3)})`
      ]
    })
  )
  const summary = table(["target", "version", "req/s: median (range)", "CPU µs/request", "database CPU µs/request", "vs bare"], summaryRows)
  console.log(`${result.text}\n\n${summary.text}\n\n${result.markdown}\n\n${summary.markdown}`)
})
