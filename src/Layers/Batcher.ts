import { Chunk, Deferred, Effect, Exit, Queue, type Scope } from "effect"

/**
 * Serves single calls from a batch operation: calls made while a batch is in flight wait
 * together and go in the next one, so under load a few statements serve many requests, and
 * a lone call goes out at once. Fails or dies per batch: every caller of it sees the outcome.
 */
export const makeBatcher = <A, B>(
  run: (inputs: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>>,
  options: { readonly maxBatch: number; readonly concurrency: number }
): Effect.Effect<(input: A) => Effect.Effect<B>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const pending = yield* Queue.unbounded<readonly [A, Deferred.Deferred<B>]>()
    const serve = (batch: Chunk.Chunk<readonly [A, Deferred.Deferred<B>]>) => {
      const calls = Chunk.toReadonlyArray(batch)
      return run(calls.map(([input]) => input)).pipe(
        Effect.exit,
        Effect.flatMap((exit) =>
          Effect.forEach(calls, ([, done], i) => Deferred.done(done, Exit.map(exit, (outputs) => outputs[i] as B)))
        )
      )
    }
    yield* Effect.forkScoped(
      Effect.replicateEffect(
        Effect.forever(Effect.flatMap(Queue.takeBetween(pending, 1, options.maxBatch), serve)),
        options.concurrency,
        { concurrency: "unbounded", discard: true }
      )
    )
    return (input: A) =>
      Effect.flatMap(Deferred.make<B>(), (done) => Effect.zipRight(Queue.offer(pending, [input, done]), Deferred.await(done)))
  })
