/**
 * `npx tsx bench/deadlines.ts`: what the database deadlines cost on the request path (docs/decisions.md#behind-a-pooler,
 * "behind a connection pooler"). One fiber runs a quote's shape of work on the service's pool (a
 * transaction of three statements, then one statement alone), `BENCH_ROUNDS` rounds of
 * `BENCH_ITERATIONS`, and reports wall time and this process's CPU per unit, on fresh databases of
 * `BENCH_DATABASE_URL`'s server: directly, and through the pooler at `BENCH_POOLER_URL` when set
 * (deadlines set in each transaction; then with the database's own defaults equal to them, which
 * spares that). `BENCH_OTHER_SRC`: another checkout's `src` (e.g. main's) measured directly too,
 * alternately with this one's.
 */
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import pg from "pg"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

const SERVER_URL = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const POOLER_URL = process.env["BENCH_POOLER_URL"]
const OTHER_SRC = process.env["BENCH_OTHER_SRC"]
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? "3")
const ITERATIONS = Number(process.env["BENCH_ITERATIONS"] ?? "2000")
const TIMEOUT_MS = 5000

type PoolLayer = typeof import("../src/Layers/Persistence/PgClients.js").pgClientLayer

const layerFrom = async (src: string): Promise<PoolLayer> =>
  (await import(pathToFileURL(path.resolve(src, "Layers/Persistence/PgClients.ts")).href)).pgClientLayer

const admin = async (statement: string) => {
  const client = new pg.Client({ connectionString: SERVER_URL })
  await client.connect()
  await client.query(statement).finally(() => client.end())
}

/** A database of its own on the server, dropped at the end; `defaults`: its own deadlines. */
const databases: Array<string> = []
const freshDatabase = async (defaults: boolean) => {
  const name = `bench_deadlines_${process.pid}_${databases.length}`
  await admin(`CREATE DATABASE ${name}`)
  databases.push(name)
  if (defaults) {
    await admin(`ALTER DATABASE ${name} SET statement_timeout = ${TIMEOUT_MS}`)
    await admin(`ALTER DATABASE ${name} SET lock_timeout = ${TIMEOUT_MS}`)
  }
  return name
}

const on = (through: string, database: string) => {
  const url = new URL(through)
  url.pathname = `/${database}`
  return Redacted.make(url.toString())
}

/** µs of wall time and of this process's CPU per unit of work (a transaction of three statements, then one alone). */
const measure = (layer: PoolLayer, url: Redacted.Redacted) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const unit = Effect.andThen(
      sql.withTransaction(Effect.all([sql`SELECT 1 AS a`, sql`SELECT 2 AS b`, sql`SELECT 3 AS c`])),
      sql`SELECT 4 AS d`
    )
    yield* Effect.repeat(unit, { times: 200 }) // warm-up
    const started = performance.now()
    const cpu = process.cpuUsage()
    yield* Effect.repeat(unit, { times: ITERATIONS - 1 })
    const used = process.cpuUsage(cpu)
    return { wall: ((performance.now() - started) * 1000) / ITERATIONS, cpu: (used.user + used.system) / ITERATIONS }
  }).pipe(Effect.provide(layer(url, { timeoutMs: TIMEOUT_MS })), Effect.scoped)

const main = async () => {
  const ours = await layerFrom("src")
  const other = OTHER_SRC === undefined ? undefined : await layerFrom(OTHER_SRC)
  const plain = await freshDatabase(false)
  const withDefaults = await freshDatabase(true)
  const runs: Array<readonly [string, PoolLayer, Redacted.Redacted]> = [
    ...(other === undefined ? [] : [["direct, BENCH_OTHER_SRC", other, on(SERVER_URL, plain)] as const]),
    ["direct", ours, on(SERVER_URL, plain)],
    ...(POOLER_URL === undefined ? [] : [
      ["pooler, deadlines per transaction", ours, on(POOLER_URL, plain)] as const,
      ["pooler, the database's own deadlines", ours, on(POOLER_URL, withDefaults)] as const
    ])
  ]
  const results = new Map<string, Array<{ wall: number; cpu: number }>>()
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, layer, url] of runs) {
        const result = await Effect.runPromise(measure(layer, url))
        results.set(name, [...(results.get(name) ?? []), result])
      }
    }
  } finally {
    for (const name of databases) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  }
  // the median of the rounds, and their least: a shared machine's load only ever adds
  const figures = (values: Array<number>) => {
    const sorted = [...values].sort((x, y) => x - y)
    return `${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} (least ${sorted[0]!.toFixed(0)})`
  }
  console.log(`${ITERATIONS} units a run, ${ROUNDS} rounds alternating; µs per unit, median of the rounds (least)`)
  for (const [name, values] of results) {
    console.log(`${name.padEnd(40)} wall ${figures(values.map((v) => v.wall)).padStart(16)}   CPU ${figures(values.map((v) => v.cpu)).padStart(16)}`)
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
