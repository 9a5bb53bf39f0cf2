import { Effect, Schedule } from "effect"

/**
 * Waits, checking every 20 ms, until `check` holds; fails after `ms`. A bound, not a speed target:
 * generous, because emails wait for their PDFs, drawn on the two cores that CI also gives Chromium.
 */
export const eventually = (check: Effect.Effect<boolean>, ms = 30_000) =>
  check.pipe(
    Effect.flatMap((ok) => ok ? Effect.void : Effect.fail("not yet" as const)),
    Effect.retry({ schedule: Schedule.spaced("20 millis") }),
    Effect.timeoutOrElse({ duration: ms, orElse: () => Effect.die(new Error(`condition not met within ${ms} ms`)) }),
    Effect.orDie
  )
