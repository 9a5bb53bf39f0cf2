/**
 * `npm run bench:routes`: what a request of each route costs the service, in CPU: the service
 * process's user and system time over the requests it answered (10 connections, `BENCH_SECONDS`
 * each), in µs and as a multiple of GET /v1/hotel. These are the rate limit's costs
 * (`ROUTE_COSTS` in src/Api/Transport/RateLimit.ts, docs/limits.md). Then GET /v1/hotel and POST /v1/quotes
 * with the limit off and on (at a limit no run reaches), `BENCH_PAIRS` alternating pairs.
 */
import type { ChildProcess } from "node:child_process"
import type autocannon from "autocannon"
import { measureWithCpu, table } from "./load.js"
import { isoDate, runBench, startService } from "./service.js"

const PAIRS = Number(process.env["BENCH_PAIRS"] ?? "3")
const CONNECTIONS = 10

const json = (url: string, body: unknown): autocannon.Options => ({
  url,
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body)
})

runBench(async () => {
  const routes = (base: string): Array<readonly [string, autocannon.Options]> => [
    ["GET /v1/hotel", { url: `${base}/v1/hotel` }],
    ["GET /v1/room-types", { url: `${base}/v1/room-types` }],
    ["GET /v1/availability (3 nights)", { url: `${base}/v1/availability?checkin=${isoDate(30)}&checkout=${isoDate(33)}&adults=2` }],
    ["GET /v1/health", { url: `${base}/v1/health` }],
    ["GET /v1/nothing (404)", { url: `${base}/v1/nothing` }],
    ["POST /v1/quote (3 nights)", json(`${base}/v1/quote`, {
      checkin: isoDate(30),
      checkout: isoDate(33),
      adults: 2,
      children: 0,
      room_type_id: "double"
    })],
    [
      "POST /v1/quotes (2 rooms, 3 nights)",
      json(`${base}/v1/quotes`, {
        checkin: isoDate(30),
        checkout: isoDate(33),
        rooms: [{ room_type_id: "double", adults: 2 }, { room_type_id: "twin", adults: 1, children_ages: [5] }]
      })
    ],
    ["GET /v1/calendar (62 dates)", { url: `${base}/v1/calendar?from=${isoDate(1)}&to=${isoDate(62)}&nights=1&adults=2` }],
    ["POST /mcp (ping)", json(`${base}/mcp`, { jsonrpc: "2.0", id: 1, method: "ping", params: {} })]
  ]

  /** CPU µs a request of `service`, req/s and non-2xx answers, over one run of `connections`. */
  const load = (service: { readonly child: ChildProcess }, opts: autocannon.Options, connections: number) =>
    measureWithCpu(opts, connections, service.child.pid!)
  const service = await startService()
  const on = await startService({ RATE_LIMIT_PER_MINUTE: "1000000" })
  // a first pass on each, discarded, so that no route pays for the compilation of the code all share
  for (const target of [service, on]) {
    for (const [name, opts] of routes(target.base)) {
      console.error(`${name} (warm-up)…`)
      await load(target, opts, CONNECTIONS)
    }
  }
  const perRoute: Array<readonly [string, number, number]> = []
  for (const [name, opts] of routes(service.base)) {
    console.error(`${name}…`)
    const { micros, non2xx } = await load(service, opts, CONNECTIONS)
    perRoute.push([name, micros, non2xx])
  }
  const read = perRoute[0]![1]
  const costs = table(
    ["route", "CPU µs/request", "x GET /v1/hotel", "non-2xx"],
    perRoute.map(([name, micros, non2xx]) => [name, micros.toFixed(0), (micros / read).toFixed(1), String(non2xx)])
  )
  console.log(`${costs.text}\n\n${costs.markdown}\n`)

  // the limiter's own cost: the same service with the limit off, then on at a limit no run reaches
  const loads = (base: string) => [routes(base)[0]!, routes(base)[6]!]
  const rows: Array<Array<string>> = []
  for (let pair = 1; pair <= PAIRS; pair++) {
    // which goes first changes every pair: a run may leave work behind (quotes still being stored)
    const order = [["off", service], ["on", on]] as const
    for (const [label, target] of pair % 2 === 1 ? order : [order[1], order[0]]) {
      for (const [name, opts] of loads(target.base)) {
        console.error(`pair ${pair}, limit ${label}: ${name}…`)
        const measured = await load(target, opts, 50)
        rows.push([
          `${name}, limit ${label}, pair ${pair}`,
          measured.micros.toFixed(0),
          measured.rps.toFixed(0),
          measured.p50.toFixed(1),
          measured.p99.toFixed(1)
        ])
      }
    }
  }
  const limiter = table(["target", "CPU µs/request", "req/s", "p50 (ms)", "p99 (ms)"], rows)
  console.log(`${limiter.text}\n\n${limiter.markdown}`)
})
