/**
 * `npm run bench:side`: this version beside an older one, on the request path everyone takes:
 * GET /v1/hotel and POST /v1/quotes (2 rooms, 3 nights), 50 connections, `BENCH_SECONDS` each, with
 * the service's CPU µs a request. `BENCH_BASELINE=/path/to/an/older/checkout` (built with
 * `npm run build`); the two run alternately, `BENCH_PAIRS` (default 3) pairs, which goes first
 * changing every pair, so that the machine's drift of minutes falls on both. Each service logs as
 * deployed (its output read, not discarded) with its production limits (RATE_LIMIT_PER_MINUTE at a
 * figure no run reaches, so that every answer is a 200).
 */
import { cpuMicros, measure, table } from "./load.js"
import { isoDate, runBench, startService, stop } from "./service.js"

const PAIRS = Number(process.env["BENCH_PAIRS"] ?? "3")
const BASELINE = process.env["BENCH_BASELINE"]

runBench(async () => {
  if (BASELINE === undefined) throw new Error("BENCH_BASELINE: the path of the older checkout to compare with (built with npm run build)")
  const targets = (base: string) => [
    ["GET /v1/hotel", { url: `${base}/v1/hotel` }],
    ["POST /v1/quotes", {
      url: `${base}/v1/quotes`,
      method: "POST" as const,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        checkin: isoDate(30),
        checkout: isoDate(33),
        rooms: [{ room_type_id: "double", adults: 2 }, { room_type_id: "twin", adults: 1, children_ages: [5] }]
      })
    }]
  ] as const
  const versions = [["baseline", BASELINE], ["this version", undefined]] as const
  const rows: Array<Array<string>> = []
  for (let pair = 1; pair <= PAIRS; pair++) {
    for (const [name, root] of pair % 2 === 1 ? versions : [versions[1], versions[0]]) {
      const service = await startService({ RATE_LIMIT_PER_MINUTE: "1000000" }, root)
      for (const [target, opts] of targets(service.base)) {
        console.error(`pair ${pair}, ${name}: ${target}…`)
        const before = cpuMicros(service.child.pid!)
        const measured = await measure(opts, 50)
        const micros = (cpuMicros(service.child.pid!) - before) / measured.result.requests.total
        rows.push([target, name, String(pair), measured.rps.toFixed(0), measured.p50.toFixed(1), measured.p99.toFixed(1), micros.toFixed(0), String(measured.non2xx)])
      }
      await stop(service.child)
    }
  }
  rows.sort((a, b) => a[0]!.localeCompare(b[0]!) || a[1]!.localeCompare(b[1]!) || a[2]!.localeCompare(b[2]!))
  const result = table(["target", "version", "pair", "req/s", "p50 (ms)", "p99 (ms)", "CPU µs/request", "non-2xx"], rows)
  console.log(`${result.text}\n\n${result.markdown}`)
})
