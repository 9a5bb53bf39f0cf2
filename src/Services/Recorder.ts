import { Effect, Ref } from "effect"

/**
 * What an in-memory stand-in of an outside system (the mail server, the PMS) keeps: each call it
 * took, and the failures its next calls are to meet, set by a test.
 */
export const makeRecorder = <A, E>() =>
  Effect.gen(function*() {
    const taken = yield* Ref.make<ReadonlyArray<A>>([])
    const failures = yield* Ref.make<ReadonlyArray<E>>([])
    return {
      /** Fails with the next failure set, if any; else keeps `call`. */
      record: (call: A): Effect.Effect<void, E> =>
        Effect.flatMap(Ref.modify(failures, ([first, ...rest]) => [first, rest]), (failure) =>
          failure === undefined ? Ref.update(taken, (all) => [...all, call]) : Effect.fail(failure)),
      taken: Ref.get(taken),
      failNext: (times: number, error: E) => Ref.set(failures, Array.from({ length: times }, () => error))
    }
  })
