import { Cause, Effect, Exit, FiberSet, Option, type Scope } from "effect"
import { databaseFaultIn } from "./DatabaseFaults.js"

/**
 * Serves single calls from a batch operation: calls made while a batch is in flight wait
 * together and go in the next one, so under load a few statements serve many requests, and
 * a lone call goes out at once. A batch that fails is run again call by call, so only a faulty
 * call fails and its neighbours never do; unless the database failed it (gone, a deadline passed):
 * then its calls, and those that queued behind it meanwhile, have that answer at once, not a wait
 * of their own in turn (250 quotes under a held lock waited 5 s for each batch of 100 before them).
 * Callers wait on a plain callback, not a Deferred and a Queue: it runs twice per quote, where
 * making a Deferred alone showed in the service's CPU profile (docs/performance.md).
 */
export const makeBatcher = <A, B>(
  run: (inputs: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>>,
  options: { readonly maxBatch: number; readonly concurrency: number }
): Effect.Effect<(input: A) => Effect.Effect<B>, never, Scope.Scope> =>
  Effect.gen(function*() {
    // batches run in fibers of the layer's scope: closing it interrupts them
    const runFork = yield* FiberSet.makeRuntime<never>()
    const waiting: Array<{ readonly input: A; readonly resume: (outcome: Exit.Exit<B>) => void }> = []
    let inFlight = 0
    /** Each input's outcome: from the batch, or, when the batch failed, from a run of its own. */
    const outcomes = (inputs: ReadonlyArray<A>): Effect.Effect<ReadonlyArray<Exit.Exit<B>>> =>
      run(inputs).pipe(
        Effect.map((outputs) => outputs.map((output) => Exit.succeed(output))),
        Effect.catchCause((cause) => {
          const fault = Option.isSome(databaseFaultIn(cause))
          if (fault) for (const call of waiting.splice(0)) call.resume(Exit.failCause(cause))
          return fault || inputs.length === 1 || Cause.hasInterruptsOnly(cause)
            ? Effect.succeed(inputs.map(() => Exit.failCause(cause)))
            : Effect.forEach(inputs, (input) => Effect.exit(Effect.map(run([input]), (outputs) => outputs[0] as B)))
        })
      )
    const startBatches = () => {
      while (inFlight < options.concurrency && waiting.length > 0) {
        const calls = waiting.splice(0, options.maxBatch)
        inFlight++
        runFork(
          outcomes(calls.map((call) => call.input)).pipe(
            // interrupted too (at shutdown), every caller hears how its batch ended
            Effect.onExit((exit) =>
              Effect.sync(() => {
                calls.forEach((call, i) => call.resume(Exit.isSuccess(exit) ? exit.value[i]! : Exit.failCause(exit.cause)))
                inFlight--
                startBatches()
              })
            ),
            Effect.exit
          )
        )
      }
    }
    return (input: A) =>
      Effect.callback<B>((resume) => {
        waiting.push({ input, resume })
        startBatches()
      })
  })
