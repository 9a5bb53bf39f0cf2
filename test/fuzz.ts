/**
 * `npm run fuzz`: every operation of /openapi.json fuzzed with FUZZ_RUNS requests (default 1,000)
 * from FUZZ_SEED (default: a new one, printed), on the whole app in memory. Prints a table per
 * operation and exits 1 on any 5xx or answer the document does not allow.
 */
import { Effect } from "effect"
import { formatReport, fuzz, FuzzApp } from "./support/fuzz.js"

const options = {
  runs: Number(process.env.FUZZ_RUNS ?? 1000),
  seed: Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31)),
  only: process.env.FUZZ_ONLY
}

const program = Effect.gen(function*() {
  const started = Date.now()
  const reports = yield* fuzz(options)
  yield* Effect.sync(() => console.log(`${formatReport(reports, options)}\n\n${((Date.now() - started) / 1000).toFixed(1)} s`))
  return reports.every((r) => r.serverErrors === 0 && r.invalid === 0 && r.requests >= options.runs)
})

Effect.runPromise(Effect.scoped(Effect.provide(program, FuzzApp()))).then(
  (passed) => process.exit(passed ? 0 : 1),
  (error) => {
    console.error(error)
    process.exit(2)
  }
)
