import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Metric, Option, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../../../src/Layers/Platform/AppConfig.js"
import { prometheusText } from "../../../src/Layers/Platform/Metrics.js"
import * as Tracing from "../../../src/Layers/Platform/Tracing.js"
import { poolOn, testDatabaseUrl } from "../../support/database.js"
import { otlpCollector } from "../../support/otlp.js"
import { parsePrometheus, samplesOf, valueOf } from "../../support/prometheus.js"

/*
 * The pool's metrics (docs/observability.md#metrics), named as OpenTelemetry's database conventions name them, on a
 * real pool of two connections: what a scrape says while it is idle, busy, saturated, and after a
 * request that got no connection in time.
 */

const TIMEOUT_MS = 400
const POOL = { db_client_connection_pool_name: "hotel-booking-api" }

const scrape = Effect.map(Metric.snapshot, (snapshots) => parsePrometheus(prometheusText(snapshots)))
const pool = Effect.map(scrape, (exposition) => ({
  used: valueOf(exposition, "db_client_connection_count", { ...POOL, db_client_connection_state: "used" }),
  pending: valueOf(exposition, "db_client_connection_pending_requests", POOL),
  max: valueOf(exposition, "db_client_connection_max", POOL),
  timeouts: valueOf(exposition, "db_client_connection_timeouts_total", POOL),
  waits: valueOf(exposition, "db_client_connection_wait_time_seconds_count", POOL),
  uses: valueOf(exposition, "db_client_connection_use_time_seconds_count", POOL)
}))

/** Polls the scrape until `ready` holds (a fiber reaching the pool takes a moment), for at most 5 s. */
const poolWhen = (ready: (state: Effect.Success<typeof pool>) => boolean) =>
  Effect.repeat(pool, { until: ready, times: 250, schedule: Schedule.spaced("20 millis") })

/** A transaction that holds its connection until `release` is done. */
const holding = (sql: SqlClient.SqlClient, release: Deferred.Deferred<void>) =>
  sql.withTransaction(Effect.andThen(sql`SELECT 1`, Deferred.await(release)))

const twoConnections = Layer.unwrap(Effect.map(testDatabaseUrl, (url) => poolOn(url, { maxConnections: 2, timeoutMs: TIMEOUT_MS })))

describe("the pool's metrics", () => {
  it.live("free, busy, saturated, a request timed out: used ≤ max, the waiting counted, every turn in the wait and use histograms", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const start = yield* pool
      expect(start).toMatchObject({ used: 0, pending: 0, max: 2, timeouts: 0 })
      const exposition = yield* scrape
      expect(exposition.types.get("db_client_connection_count")).toBe("gauge")
      expect(exposition.types.get("db_client_connection_wait_time_seconds")).toBe("histogram")
      expect(samplesOf(exposition, "db_client_connection_count").map((s) => s.labels)).toEqual([
        { ...POOL, db_client_connection_state: "used" }
      ])

      yield* sql`SELECT 1`
      expect(yield* pool).toMatchObject({ used: 0, pending: 0, waits: start.waits + 1, uses: start.uses + 1 })

      const release = yield* Deferred.make<void>()
      const holders = yield* Effect.forkChild(Effect.all([holding(sql, release), holding(sql, release)], { concurrency: 2 }))
      expect(yield* poolWhen((s) => s.used === 2)).toMatchObject({ used: 2, pending: 0 })
      const waiter = yield* Effect.forkChild(Effect.exit(sql`SELECT 1`))
      expect(yield* poolWhen((s) => s.pending === 1)).toMatchObject({ used: 2, pending: 1, max: 2 })
      const timedOut = yield* Fiber.join(waiter)
      expect(timedOut._tag).toBe("Failure")
      expect(yield* pool).toMatchObject({ used: 2, pending: 0, timeouts: 1, waits: start.waits + 3 })

      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holders)
      const end = yield* pool
      expect(end).toMatchObject({ used: 0, pending: 0, max: 2, timeouts: 1, waits: start.waits + 3, uses: start.uses + 3 })
      // the two held connections were held past the timed-out wait: neither in a bucket under it
      const last = yield* scrape
      expect(valueOf(last, "db_client_connection_use_time_seconds_bucket", { ...POOL, le: "0.25" })).toBeLessThanOrEqual(start.uses + 1)
    }).pipe(Effect.provide(twoConnections)), 30_000)

  it.live("the pool's series go out over OTLP with the others", () =>
    Effect.gen(function*() {
      const { metricBodies, url } = yield* otlpCollector
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`).pipe(
        Effect.provide(Tracing.TracingLive.pipe(Layer.provide(AppConfig.InMemory({ otlpEndpoint: Option.some(url) }))))
      )
      const metrics = metricBodies.flatMap((body) => JSON.parse(body).resourceMetrics ?? [])
        .flatMap((r: any) => r.scopeMetrics.flatMap((s: any) => s.metrics))
      const names = metrics.map((m: any) => m.name)
      expect(names).toEqual(expect.arrayContaining([
        "db.client.connection.count",
        "db.client.connection.max",
        "db.client.connection.pending_requests",
        "db.client.connection.timeouts",
        "db.client.connection.wait_time",
        "db.client.connection.use_time"
      ]))
      const count = metrics.find((m: any) => m.name === "db.client.connection.count")
      expect(JSON.stringify(count)).toContain("db.client.connection.pool.name")
    }).pipe(Effect.provide(twoConnections)), 30_000)
})
