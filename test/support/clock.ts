import { Clock, Effect, Layer } from "effect"
import { addDays, type LocalDate, todayIn } from "../../src/Domain/LocalDate.js"

/**
 * A clock the test sets and moves by hand; sleeping still uses real time, so servers and
 * timeouts behave as in production.
 */
export const makeTestClock = (startIso: string) => {
  let now = Date.parse(startIso)
  const real = Clock.Clock.defaultValue()
  const clock: Clock.Clock = Object.assign(Object.create(real), {
    currentTimeMillisUnsafe: () => now,
    currentTimeNanosUnsafe: () => BigInt(now) * 1_000_000n,
    currentTimeMillis: Effect.sync(() => now),
    currentTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n)
  })
  return {
    layer: Layer.succeed(Clock.Clock, clock),
    /** The clock's time, in milliseconds. */
    now: () => now,
    advance: (ms: number) => {
      now += ms
    },
    set: (iso: string) => {
      now = Date.parse(iso)
    }
  }
}

/** A local date relative to today in the demo hotel's time zone, for tests on the real clock. */
export const daysFromToday = (days: number): LocalDate => addDays(todayIn("Europe/Paris", new Date()), days)
