/**
 * `npm run bench:flood`: what one client flooding calendars costs everybody else (docs/decisions.md#rate-limit).
 * A flooder from 127.0.0.2 keeps `FLOODERS` (default 32) connections busy with 62-date, 30-night
 * calendars; meanwhile another client, from 127.0.0.3, sends GET /v1/hotel and POST /v1/quotes one
 * after another, one every 100 ms. Its latencies (p50, p99, max) alone and under the flood, and what
 * the flooder got (200, 429, 503). The service runs with its production defaults (the rate limit on,
 * 600 units a minute an address; the baseline with none, as it was). With `BENCH_BASELINE=/path/to/an/older/checkout` (built with `npm run build`),
 * that version runs too, alternately with this one, `BENCH_PAIRS` (default 2) times each, so that
 * the machine's drift falls on both.
 */
import { request } from "node:http"
import { isoDate, percentile, runBench, sleep, startService } from "./service.js"

const FLOODERS = Number(process.env["FLOODERS"] ?? "32")
const SECONDS = Number(process.env["BENCH_SECONDS"] ?? "10")
const PAIRS = Number(process.env["BENCH_PAIRS"] ?? "2")
const BASELINE = process.env["BENCH_BASELINE"]

/** One HTTP call from `localAddress` on a connection of its own: its status and time in ms. */
const send = (base: string, localAddress: string, path: string, body?: unknown) =>
  new Promise<{ status: number; ms: number }>((resolve) => {
    const started = performance.now()
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = request(`${base}${path}`, {
      method: payload === undefined ? "GET" : "POST",
      localAddress,
      agent: false,
      headers: payload === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }
    }, (res) => {
      res.resume()
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }))
    })
    req.on("error", () => resolve({ status: 0, ms: performance.now() - started }))
    req.end(payload)
  })

const calendarPath = `/v1/calendar?from=${isoDate(1)}&to=${isoDate(62)}&nights=30&adults=2`
const quoteBody = { checkin: isoDate(30), checkout: isoDate(33), rooms: [{ room_type_id: "double", adults: 2 }] }

/** How often the other client calls: a person's agent, well under the rate limit. */
const PACE_MS = 100

/** The other client, for `seconds`: a read and a quote in turn, one every `PACE_MS`. */
const otherClient = async (base: string, seconds: number) => {
  const times: Array<number> = []
  const until = performance.now() + seconds * 1000
  for (let i = 0; performance.now() < until; i++) {
    const answer = i % 2 === 0 ? await send(base, "127.0.0.3", "/v1/hotel") : await send(base, "127.0.0.3", "/v1/quotes", quoteBody)
    times.push(answer.ms)
    await sleep(Math.max(0, PACE_MS - answer.ms))
  }
  return times
}

/** The flooder: `FLOODERS` loops of calendars until `stop` is set; the statuses it got. */
const flood = (base: string, stop: { done: boolean }) => {
  const statuses: Record<number, number> = {}
  const loops = Array.from({ length: FLOODERS }, async () => {
    while (!stop.done) {
      const { status } = await send(base, "127.0.0.2", calendarPath)
      statuses[status] = (statuses[status] ?? 0) + 1
    }
  })
  return { statuses, done: Promise.all(loops) }
}

const summary = (times: ReadonlyArray<number>) =>
  `p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms, max ${Math.max(...times).toFixed(0)} ms (${times.length} calls)`

runBench(async () => {
  const versions: Array<readonly [string, string | undefined]> = BASELINE === undefined
    ? [["this version", undefined]]
    : [["baseline", BASELINE], ["this version", undefined]]
  const rows: Array<string> = []
  for (let pair = 1; pair <= PAIRS; pair++) {
    for (const [name, root] of versions) {
      // each version's production default: 600 units a minute now; none before (a limit no run reaches)
      const service = await startService({ RATE_LIMIT_PER_MINUTE: root === undefined ? "600" : "1000000" }, root)
      await otherClient(service.base, 1) // warm-up
      const alone = await otherClient(service.base, SECONDS / 2)
      const stop = { done: false }
      const flooder = flood(service.base, stop)
      await sleep(500)
      const underFlood = await otherClient(service.base, SECONDS)
      stop.done = true
      await flooder.done
      service.child.kill("SIGTERM")
      const line = `${name} #${pair}: alone ${summary(alone)}; under the flood ${summary(underFlood)}; ` +
        `flooder got ${JSON.stringify(flooder.statuses)}`
      console.log(line)
      rows.push(line)
    }
  }
  console.log(`\n${FLOODERS} flooding connections of 62-date 30-night calendars, ${SECONDS} s, ${new Date().toISOString().slice(0, 10)}`)
  for (const row of rows) console.log(`- ${row}`)
})
