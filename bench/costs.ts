/**
 * `npx tsx bench/costs.ts`: re-measures, in this process, the per-call costs behind choices the
 * code's comments explain (docs/performance.md#what-the-codes-choices-saved): each choice against the other
 * way, in microseconds a call, the median of 7 rounds. CPU-bound: run it on a quiet machine.
 */
import { Clock, Deferred, Effect, Option, References } from "effect"
import { randomBytes } from "node:crypto"
import { randomId } from "../src/Layers/Platform/RandomId.js"
import * as Tracing from "../src/Layers/Platform/Tracing.js"
import { RateLimiter } from "../src/Services/RateLimiter.js"

const CALLS = 20_000
const ROUNDS = 7

/** Microseconds a call of `run(CALLS)`, the median of the rounds after one to warm up. */
const microsPerCall = (run: (calls: number) => void): number => {
  run(CALLS)
  const rounds = Array.from({ length: ROUNDS }, () => {
    const started = performance.now()
    run(CALLS)
    return ((performance.now() - started) * 1000) / CALLS
  }).sort((a, b) => a - b)
  return rounds[Math.floor(ROUNDS / 2)]!
}

/** `calls` runs of `call` in one effect, spans off as without a collector. */
const effectLoop = (call: Effect.Effect<unknown>) => (calls: number) =>
  Effect.runSync(Effect.provideService(
    Effect.gen(function*() {
      for (let i = 0; i < calls; i++) yield* call
    }),
    References.TracerEnabled,
    false
  ))

const body = function*() {
  return yield* Effect.succeed(1)
}

const cached = Effect.runSync(Effect.cachedWithTTL(Effect.succeed(1), "5 seconds"))

const take = Effect.runSync(Effect.map(RateLimiter, ({ take }) => Option.getOrThrow(take)).pipe(Effect.provide(RateLimiter.perMinute(1_000_000))))
const addresses = Array.from({ length: 1000 }, (_, i) => [`address:10.0.${i >> 8}.${i & 255}`])
let next = 0
const limited = Effect.suspend(() => take(addresses[next++ % addresses.length]!, 1))

const choices: ReadonlyArray<readonly [string, (calls: number) => void, string, (calls: number) => void]> = [
  [
    "an id from the pool (RandomId)",
    (calls) => {
      for (let i = 0; i < calls; i++) randomId("q_")
    },
    "randomBytes per id",
    (calls) => {
      for (let i = 0; i < calls; i++) "q_" + randomBytes(15).toString("base64url")
    }
  ],
  ["Tracing.fn, spans off", effectLoop(Tracing.fn("bench")(body)()), "Effect.fn, spans off", effectLoop(Effect.fn("bench")(body)())],
  ["the rate limit's count (RateLimiter.take, 1,000 addresses)", effectLoop(limited), "no limit", effectLoop(Effect.void)],
  ["a clock read (HotelCatalog)", effectLoop(Clock.currentTimeMillis), "Effect.cachedWithTTL", effectLoop(cached)],
  [
    "a callback (Batcher)",
    effectLoop(Effect.callback<number>((resume) => resume(Effect.succeed(1)))),
    "a Deferred",
    effectLoop(Effect.flatMap(Deferred.make<number>(), (d) => Effect.andThen(Deferred.succeed(d, 1), Deferred.await(d))))
  ]
]

console.log("| choice | µs a call | the other way | µs a call |\n|---|---:|---|---:|")
for (const [choice, run, other, runOther] of choices) {
  console.log(`| ${choice} | ${microsPerCall(run).toFixed(2)} | ${other} | ${microsPerCall(runOther).toFixed(2)} |`)
}
