/**
 * `npm run bench:open`: quotes arriving as a Poisson process, the way guests arrive, not as fast as
 * the service answers. POST /v1/quotes (2 rooms, 3 nights) at `BENCH_RATE` a second (default 500)
 * for `BENCH_OPEN_SECONDS` (default 30), after a 5 s warm-up at the same rate (discarded), on a
 * fresh database of the local PostgreSQL, the service logging to a file as deployed. Each
 * request's latency is counted from the moment it was due, not from when it was sent: a client
 * that falls behind cannot hide the service's stalls (coordinated omission). Prints the requests
 * sent, the answers that were not 200, the errors, the latency's p50, p90, p99, p99.9 and
 * maximum, and the share of the machine's CPU time that its hypervisor gave to other machines
 * meanwhile (stolen: on a shared host it decides the tail); exits 1 on any error or non-200 (the
 * target, p99 under 10 ms, is printed, not enforced: a shared machine decides it as much as the
 * service does). `BENCH_BASELINE=DIR`: an older checkout runs the same load alternately,
 * `BENCH_PAIRS` (default 1) pairs. With `BENCH_NODE_ARGS=--trace-gc`, each run also says the
 * service's garbage collections of the measured seconds, by kind: how many, and their pauses'
 * median, maximum and sum.
 */
import { readFileSync } from "node:fs"
import { Agent, request } from "node:http"
import { machineCpu, stolenPercent, table, twoRoomQuoteBody } from "./load.js"
import { percentile, runBench, settleDatabase, sleep, startService, stop } from "./service.js"

const RATE = Number(process.env["BENCH_RATE"] ?? "500")
const SECONDS = Number(process.env["BENCH_OPEN_SECONDS"] ?? "30")
const WARMUP_SECONDS = 5
const PAIRS = Number(process.env["BENCH_PAIRS"] ?? "1")
const BASELINE = process.env["BENCH_BASELINE"]
const P99_TARGET_MS = 10

const body = twoRoomQuoteBody()

interface Outcome {
  /** 0 when the request failed. */
  readonly status: number
  /** From the moment it was due. */
  readonly ms: number
  /** From the moment it was sent: the client's own lateness left out. */
  readonly serviceMs: number
}

/** One quote due at `dueAt`, sent now. */
const quote = (agent: Agent, port: number, dueAt: number) =>
  new Promise<Outcome>((resolve) => {
    const sentAt = performance.now()
    const done = (status: number) => {
      const now = performance.now()
      resolve({ status, ms: now - dueAt, serviceMs: now - sentAt })
    }
    const req = request({
      agent,
      host: "127.0.0.1",
      port,
      path: "/v1/quotes",
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
    }, (response) => {
      response.resume()
      response.once("end", () => done(response.statusCode ?? 0))
    })
    req.once("error", () => done(0))
    req.end(body)
  })

/**
 * Requests due at Poisson arrival times (exponential gaps of mean 1/RATE s) from now for `seconds`;
 * each is sent at its time, or at once when the client is late. The outcomes of those due after
 * `measureFrom` seconds.
 */
const poisson = async (port: number, seconds: number, measureFrom: number) => {
  // the service's default cap of connections from one address (MAX_CONNECTIONS_PER_ADDRESS): a
  // request past it waits in the agent, and its wait counts
  const agent = new Agent({ keepAlive: true, maxSockets: 64 })
  const started = performance.now()
  const outcomes: Array<Promise<Outcome>> = []
  let dueAt = started
  while (true) {
    dueAt += (-Math.log(1 - Math.random()) / RATE) * 1000
    if (dueAt - started >= seconds * 1000) break
    const wait = dueAt - performance.now()
    if (wait > 0) await sleep(wait)
    const sent = quote(agent, port, dueAt)
    if (dueAt - started >= measureFrom * 1000) outcomes.push(sent)
  }
  const settled = await Promise.all(outcomes)
  agent.destroy()
  return settled
}

/** A line of `--trace-gc`: `[pid:0x…]  12345 ms: Scavenge 97.6 (178.9) -> 47.8 (178.9) MB, pooled: 0 MB, 2.61 / 0.00 ms …`. */
const GC_LINE = /\s(\d+) ms: ([A-Za-z-]+) .*?MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \//

/** The collections `--trace-gc` wrote in `log` after `fromMs` of the process's life, per kind, as table rows. */
const gcPauses = (log: string, fromMs: number, label: Array<string>) => {
  const pauses = new Map<string, Array<number>>()
  for (const line of log.split("\n")) {
    const gc = GC_LINE.exec(line)
    if (gc === null || Number(gc[1]) < fromMs) continue
    const ofKind = pauses.get(gc[2]!) ?? []
    ofKind.push(Number(gc[3]))
    pauses.set(gc[2]!, ofKind)
  }
  return [...pauses].map(([kind, ms]) => [
    ...label,
    kind,
    String(ms.length),
    percentile(ms, 50).toFixed(1),
    Math.max(...ms).toFixed(1),
    ms.reduce((sum, pause) => sum + pause, 0).toFixed(0)
  ])
}

runBench(async () => {
  const versions = BASELINE === undefined ? [["this version", undefined]] as const : [["baseline", BASELINE], ["this version", undefined]] as const
  const rows: Array<Array<string>> = []
  const collections: Array<Array<string>> = []
  let failed = false
  for (let pair = 1; pair <= PAIRS; pair++) {
    for (const [name, root] of pair % 2 === 1 ? versions : [...versions].reverse()) {
      const service = await startService({ RATE_LIMIT_PER_MINUTE: "1000000" }, root)
      const port = Number(new URL(service.base).port)
      console.error(`${name}, pair ${pair}: ${RATE} quotes/s, ${WARMUP_SECONDS} s warm-up then ${SECONDS} s…`)
      // the process's clock of --trace-gc starts about when it was spawned
      const measuredFromMs = service.startupMs + WARMUP_SECONDS * 1000
      const machineBefore = machineCpu()
      const outcomes = await poisson(port, WARMUP_SECONDS + SECONDS, WARMUP_SECONDS)
      const stolen = stolenPercent(machineBefore, machineCpu())
      if (service.stdoutFile !== undefined) {
        collections.push(...gcPauses(readFileSync(service.stdoutFile, "utf8"), measuredFromMs, [name, String(pair)]))
      }
      await stop(service.child)
      await settleDatabase()
      const ms = outcomes.map((o) => o.ms)
      const errors = outcomes.filter((o) => o.status === 0).length
      const non200 = outcomes.filter((o) => o.status !== 0 && o.status !== 200).length
      if (errors > 0 || non200 > 0) failed = true
      const p99 = percentile(ms, 99)
      rows.push([
        name,
        String(pair),
        String(outcomes.length),
        (outcomes.length / SECONDS).toFixed(0),
        percentile(ms, 50).toFixed(1),
        percentile(ms, 90).toFixed(1),
        p99.toFixed(1),
        percentile(ms, 99.9).toFixed(1),
        Math.max(...ms).toFixed(1),
        percentile(outcomes.map((o) => o.serviceMs), 99).toFixed(1),
        String(non200),
        String(errors),
        stolen.toFixed(1),
        p99 < P99_TARGET_MS ? "yes" : "no"
      ])
    }
  }
  const result = table(
    ["version", "pair", "quotes", "per s", "p50 (ms)", "p90 (ms)", "p99 (ms)", "p99.9 (ms)", "max (ms)", "p99 from sent (ms)", "non-200", "errors", "stolen (%)", `p99 < ${P99_TARGET_MS} ms`],
    rows
  )
  const gcs = table(["version", "pair", "collection", "count", "p50 pause (ms)", "max pause (ms)", "sum (ms)"], collections)
  if (collections.length > 0) console.log(`${gcs.text}\n\n${gcs.markdown}\n`)
  console.log(`${result.text}\n\n${result.markdown}\n\nPOST /v1/quotes (2 rooms, 3 nights) as a Poisson process at ${RATE}/s, ` +
    `${SECONDS} s measured after ${WARMUP_SECONDS} s; latency from each request's due time ` +
    `(and its p99 from the moment it was sent, the client's own lateness left out); stolen: the share of the ` +
    `machine's CPU time its hypervisor gave to other machines meanwhile (warm-up included).`)
  if (failed) process.exitCode = 1
})
