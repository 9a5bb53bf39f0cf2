import { Context, Effect, Layer, Option, Result } from "effect"
import { performance } from "node:perf_hooks"
import { DatabaseDown } from "../Domain/Errors.js"
import { DatabasePing } from "../Layers/Persistence/Database.js"
import * as Tracing from "../Layers/Platform/Tracing.js"
import { ChannelSilence } from "./ChannelSilence.js"

/**
 * How late the event loop may run during a ping before the instance counts as busy: the ping's
 * answer (or its deadline) waited on this process, not on the database.
 */
const BUSY_LAG_MS = 200
const TICK_MS = 10

/**
 * `effect`, with the longest the event loop was held while it ran: a timer ticks meanwhile, and one
 * more turn of timers after it lets a tick that was held record how late it came.
 */
const withLoopLag = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const lag = { last: performance.now(), max: 0, timer: undefined as NodeJS.Timeout | undefined }
      lag.timer = setInterval(() => {
        const now = performance.now()
        lag.max = Math.max(lag.max, now - lag.last - TICK_MS)
        lag.last = now
      }, TICK_MS)
      return lag
    }),
    (lag) =>
      Effect.zipWith(Effect.result(effect), nextTimers, (outcome) => ({ outcome, lagMs: lag.max })),
    (lag) => Effect.sync(() => clearInterval(lag.timer))
  )

const nextTimers = Effect.callback<void>((resume) => {
  const timer = setTimeout(() => resume(Effect.void), 0)
  return Effect.sync(() => clearTimeout(timer))
})

/**
 * How long one answer serves every caller (docs/decisions.md#health): a flood of probes (1,500 a second cost
 * 0.46 ms of CPU each) pings the database once a second, and a probe needs no fresher answer.
 */
const ANSWER_LASTS = "1 second"

/**
 * Whether the service can answer: the database must take a query within a second (DatabasePing);
 * and, while the channel interface is served, whether the hotel's system still speaks to it.
 * The event loop's delay is measured apart: when the ping was late only because this process was
 * busy (a flood of calendars), the answer is 200 `database: "busy"`, not a database down, so a load
 * balancer does not take an instance out of service for work it is doing.
 *
 * The first caller computes the answer; callers meanwhile wait for that same computation, and
 * those of the next `ANSWER_LASTS` get its result, "down" as well as "ok".
 */
export class Health extends Context.Service<Health>()("Health", {
  make: Effect.gen(function*() {
    const ping = yield* DatabasePing
    const silence = yield* ChannelSilence
    const compute = Tracing.fn("Health.check")(function*() {
      const { lagMs, outcome } = yield* withLoopLag(ping)
      const busy = lagMs >= BUSY_LAG_MS
      if (Result.isFailure(outcome) && !(outcome.failure.timedOut === true && busy)) {
        return yield* new DatabaseDown({ message: outcome.failure.message })
      }
      const database = busy ? "busy" as const : "ok" as const
      return Option.match(yield* silence.state, {
        onNone: () => ({ status: "ok" as const, database }),
        onSome: (channel) => ({ status: "ok" as const, database, channel })
      })
    })
    const answer = yield* Effect.cachedWithTTL(compute(), ANSWER_LASTS)
    return { check: () => answer }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(ChannelSilence.layer))
}
