import { Effect, Metric, Scope } from "effect"
import * as Metrics from "../Platform/Metrics.js"

/*
 * The pool's metrics (docs/observability.md#metrics), measured where the service asks `@effect/sql-pg`'s pool for a
 * connection: its pool keeps its own counts private. Each turn costs two clock readings, two
 * histogram updates and four additions; the counts of connections used and requests waiting are
 * plain numbers, read when the registry is (a scrape, OpenTelemetry's export).
 */

export interface PoolMeter {
  /** `checkout` measured: a request waiting until it has a connection, then a connection used until its scope closes. */
  readonly measure: <A, E, R>(checkout: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R | Scope.Scope>
  /** Counts a request that got no connection within the deadline. */
  readonly timedOut: Effect.Effect<void>
}

/**
 * The meter of the pool `poolName` of at most `maxConnections`, its series registered (at zero)
 * for the scope: every series of a pool exists as soon as the pool does.
 */
export const poolMeter = (poolName: string, maxConnections: number) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<never>()
    const pool = { "db.client.connection.pool.name": poolName }
    const counts = { used: 0, pending: 0 }
    const registrations = [
      Metric.registerUnsafe(Metrics.dbConnectionCount({ ...pool, "db.client.connection.state": "used" }), context, {
        get: () => ({ value: counts.used }),
        update: () => {},
        modify: () => {}
      }),
      Metric.registerUnsafe(Metrics.dbConnectionPendingRequests(pool), context, {
        get: () => ({ value: counts.pending }),
        update: () => {},
        modify: () => {}
      }),
      Metric.registerUnsafe(Metrics.dbConnectionMax(pool), context, { get: () => ({ value: maxConnections }), update: () => {}, modify: () => {} })
    ]
    yield* Effect.addFinalizer(() => Effect.sync(() => registrations.forEach((registration) => registration.remove())))
    const timeouts = Metrics.dbConnectionTimeouts(pool)
    const waitTime = Metrics.dbConnectionWaitTime(pool)
    const useTime = Metrics.dbConnectionUseTime(pool)
    yield* Effect.forEach([timeouts, waitTime, useTime], (series: Metric.Metric<never, unknown>) => Metric.value(series), { discard: true })

    const measure = <A, E, R>(checkout: Effect.Effect<A, E, R>) =>
      Effect.flatMap(Effect.scope, (scope) => {
        const asked = performance.now()
        counts.pending++
        return Effect.onExit(checkout, (exit) => {
          counts.pending--
          if (exit._tag === "Failure") return Effect.void
          const handedOut = performance.now()
          waitTime.updateUnsafe((handedOut - asked) / 1000, context)
          counts.used++
          // added after the pool's own release, so run before it: never counted as given back while still lent
          return Scope.addFinalizer(scope, Effect.sync(() => {
            counts.used--
            useTime.updateUnsafe((performance.now() - handedOut) / 1000, context)
          }))
        })
      })
    const meter: PoolMeter = { measure, timedOut: Effect.sync(() => timeouts.updateUnsafe(1, context)) }
    return meter
  })
