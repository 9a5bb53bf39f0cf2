import { Clock, Context, Effect, Layer, Metric, Option, Schedule } from "effect"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { OutboxRepo } from "../Layers/Persistence/OutboxRepo.js"
import * as Metrics from "../Layers/Platform/Metrics.js"
import * as Tracing from "../Layers/Platform/Tracing.js"
import { ChannelSilence } from "./ChannelSilence.js"

/** Node samples the loop's delay this often (ms): fine enough for a p99, too coarse to cost anything. */
const LOOP_RESOLUTION_MS = 20

/**
 * Every gauge is read again this often, whether or not anyone scrapes: OpenTelemetry's exporter
 * reads the registry on its own schedule, and a silent channel is logged without a health probe.
 */
const REFRESH_EVERY = "15 seconds"

/**
 * The gauges (docs/decisions.md#operators): values that are states, not events, read when they are asked for
 * (`refresh`, before each scrape) and every `REFRESH_EVERY`: the outbox's backlog, the time since
 * the channel's last message, the event loop's delay. Every series of the registry is registered
 * at zero when this is built, so that a dashboard has no gaps.
 */
export class MetricGauges extends Context.Service<MetricGauges, {
  readonly refresh: Effect.Effect<void>
}>()("MetricGauges") {
  static readonly make = Effect.gen(function*() {
    const outbox = yield* OutboxRepo
    const silence = yield* ChannelSilence
    yield* Metrics.registerSeries
    const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS })
    loop.enable()
    yield* Effect.addFinalizer(() => Effect.sync(() => loop.disable()))

    const refresh = Tracing.fn("MetricGauges.refresh")(function*() {
      const now = yield* Clock.currentTimeMillis
      const { oldest, pending } = yield* outbox.backlog
      const age = yield* silence.ageSeconds
      // nanoseconds since the last reading, then a fresh window
      const delay = loop.percentile(99) / 1e9
      loop.reset()
      yield* Effect.all([
        Metric.update(Metrics.outboxPending, pending),
        Metric.update(Metrics.outboxOldestAge, Option.match(oldest, { onNone: () => 0, onSome: (at) => Math.max(0, now - at.getTime()) / 1000 })),
        Metric.update(Metrics.channelLastMessageAge, Option.getOrElse(age, () => 0)),
        Metric.update(Metrics.eventLoopDelay, delay)
      ], { discard: true })
    })
    // a database that does not answer leaves the gauges as they were (health says so), and a scrape still answers
    const refreshed = refresh().pipe(Effect.catchCause(() => Effect.void))
    yield* refreshed.pipe(Effect.repeat(Schedule.spaced(REFRESH_EVERY)), Effect.forkScoped)
    return { refresh: refreshed }
  })

  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(ChannelSilence.layer))
}
