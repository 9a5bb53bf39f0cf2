/**
 * `npx tsx bench/costs.ts`: re-measures, in this process, the per-call costs behind choices the
 * code's comments explain (docs/performance.md#what-the-codes-choices-saved): each choice against the other
 * way, in microseconds a call, the median of 7 rounds. CPU-bound: run it on a quiet machine.
 */
import { Clock, Deferred, Effect, Option, References, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { closeSync, openSync, rmSync, writeSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { HttpServerResponse } from "effect/http"
import { directAnswer } from "../src/Api/Handlers/DirectAnswer.js"
import { MultiRoomQuoteResponse } from "../src/Domain/Quote.js"
import { bufferedStdout, requestJsonLine } from "../src/Layers/Platform/Logging.js"
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

/** A two-room quote as POST /v1/quotes answers it (3 offers), as the service holds it. */
const quote = Schema.decodeUnknownSync(MultiRoomQuoteResponse)({"status": "available", "environment": "development", "quote_id": "q_2Ox94k8ecXnA9hV3trBx", "session_id": null, "expires_at": "2027-03-01T10:15:00+01:00", "stay": {"checkin": "2027-03-12", "checkout": "2027-03-15", "nights": 3, "check_in_time": "14:00", "check_out_time": "12:00"}, "rooms": [{"room_index": 0, "room_type_id": "double", "quantity": 1, "adults": 2, "children_ages": [], "rate_code": null}, {"room_index": 1, "room_type_id": "twin", "quantity": 1, "adults": 1, "children_ages": [5], "rate_code": null}], "package_offers": [{"package_code": "FLEX", "rate_code": "FLEX", "name": "Flexible, room only", "description": "Room only. Free cancellation until 14:00 two days before check-in.", "breakfast_included": false, "refundable": true, "free_cancellation_until": "2027-03-10T14:00:00+01:00", "promotions": [], "price": {"room_total": 690, "promotion_discount": 0, "tourist_tax": 23.4, "total": 713.4, "currency": "EUR"}}, {"package_code": "FLEX_BB", "rate_code": "FLEX_BB", "name": "Flexible with breakfast", "description": "Room and breakfast buffet for every guest. Free cancellation until 14:00 two days before check-in.", "breakfast_included": true, "refundable": true, "free_cancellation_until": "2027-03-10T14:00:00+01:00", "promotions": [], "price": {"room_total": 858, "promotion_discount": 0, "tourist_tax": 23.4, "total": 881.4, "currency": "EUR"}}, {"package_code": "NRF", "rate_code": "NRF", "name": "Non-refundable, room only", "description": "Room only, 12 % below the flexible rate. Cannot be cancelled or changed. Check-in at least 3 days ahead.", "breakfast_included": false, "refundable": false, "free_cancellation_until": null, "promotions": [], "price": {"room_total": 607.2, "promotion_discount": 0, "tourist_tax": 23.4, "total": 630.6, "currency": "EUR"}}], "unavailable_rooms": [], "reservable": true, "not_reservable": null, "promo_code": null})
const encodeChecked = Schema.encodeUnknownEffect(MultiRoomQuoteResponse)
const encodeUnchecked = Schema.encodeUnknownEffect(MultiRoomQuoteResponse, { disableChecks: true })
const answerQuote = directAnswer(MultiRoomQuoteResponse, { disableChecks: true })

/** The request log to a file, as deployed: batched as `LoggingLive` writes it, or one write per line. */
const logFile = join(tmpdir(), `hotel-costs-${process.pid}.log`)
const logFd = openSync(logFile, "w")
process.once("exit", () => (closeSync(logFd), rmSync(logFile, { force: true })))
const batched = bufferedStdout((chunk) => void writeSync(logFd, chunk))
const requestLine = () =>
  requestJsonLine({ method: "POST", route: "/v1/quotes", status: 200, durationMs: 3.25, traceparent: undefined }, new Date().toISOString())

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
  ],
  [
    "a quote's answer encoded without the checks (QuotesGroup)",
    effectLoop(Effect.orDie(Effect.suspend(() => encodeUnchecked(quote)))),
    "with them",
    effectLoop(Effect.orDie(Effect.suspend(() => encodeChecked(quote))))
  ],
  [
    "a quote's answer written from the service's value (Handlers/DirectAnswer.ts)",
    (calls) => {
      for (let i = 0; i < calls; i++) answerQuote(quote)
    },
    "encoded as the API's builder does",
    effectLoop(Effect.orDie(Effect.suspend(() =>
      Effect.map(encodeUnchecked(quote), (encoded) => HttpServerResponse.jsonUnsafe(encoded))
    )))
  ],
  [
    "a request line, batched (Logging)",
    (calls) => {
      for (let i = 0; i < calls; i++) batched.line(requestLine())
      batched.flush()
    },
    "a write per line",
    (calls) => {
      for (let i = 0; i < calls; i++) writeSync(logFd, requestLine() + "\n")
    }
  ]
]

console.log("| choice | µs a call | the other way | µs a call |\n|---|---:|---|---:|")
for (const [choice, run, other, runOther] of choices) {
  console.log(`| ${choice} | ${microsPerCall(run).toFixed(2)} | ${other} | ${microsPerCall(runOther).toFixed(2)} |`)
}
