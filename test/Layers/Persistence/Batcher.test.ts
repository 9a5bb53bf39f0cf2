import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { SqlError } from "effect/sql"
import { makeBatcher } from "../../../src/Layers/Persistence/Batcher.js"

/** A batch operation that records its batches and waits for `release` before answering. */
const recording = Effect.gen(function*() {
  const batches: Array<ReadonlyArray<number>> = []
  const release = yield* Deferred.make<void>()
  const run = (inputs: ReadonlyArray<number>) =>
    Effect.sync(() => batches.push(inputs)).pipe(
      Effect.andThen(Deferred.await(release)),
      Effect.as(inputs.map((n) => n * 10))
    )
  return { batches, release, run }
})

describe("makeBatcher", () => {
  it.effect("a lone call goes out at once; calls made meanwhile share the next batch, each gets its own answer", () =>
    Effect.gen(function*() {
      const { batches, release, run } = yield* recording
      const call = yield* makeBatcher(run, { maxBatch: 10, concurrency: 1 })
      const first = yield* Effect.forkChild(call(1))
      yield* Effect.yieldNow
      expect(batches).toEqual([[1]])
      const rest = yield* Effect.forkChild(Effect.all([call(2), call(3), call(4)], { concurrency: "unbounded" }))
      // let the three callers start and wait
      yield* Effect.repeat(Effect.yieldNow, { times: 20 })
      expect(batches).toEqual([[1]])
      yield* Deferred.succeed(release, undefined)
      expect(yield* Fiber.join(first)).toBe(10)
      expect(yield* Fiber.join(rest)).toEqual([20, 30, 40])
      expect(batches).toEqual([[1], [2, 3, 4]])
    }))

  it.effect("a batch holds at most maxBatch calls", () =>
    Effect.gen(function*() {
      const { batches, release, run } = yield* recording
      const call = yield* makeBatcher(run, { maxBatch: 2, concurrency: 1 })
      yield* Deferred.succeed(release, undefined)
      const answers = yield* Effect.all([1, 2, 3, 4, 5].map(call), { concurrency: "unbounded" })
      expect(answers).toEqual([10, 20, 30, 40, 50])
      expect(batches.every((batch) => batch.length <= 2)).toBe(true)
      expect(batches.flat().sort()).toEqual([1, 2, 3, 4, 5])
    }))

  it.effect("every caller of a batch that dies sees the defect, and later calls still run", () =>
    Effect.gen(function*() {
      let fail = true
      const call = yield* makeBatcher(
        (inputs: ReadonlyArray<number>) => fail ? Effect.die(new Error("database gone")) : Effect.succeed(inputs),
        { maxBatch: 10, concurrency: 1 }
      )
      const exits = yield* Effect.all([call(1), call(2)].map(Effect.exit), { concurrency: "unbounded" })
      expect(exits.every(Exit.isFailure)).toBe(true)
      fail = false
      expect(yield* call(3)).toBe(3)
    }))

  it.effect("one poisoned call among 50 in a batch fails alone: the batch is run again call by call", () =>
    Effect.gen(function*() {
      const batches: Array<ReadonlyArray<number>> = []
      const release = yield* Deferred.make<void>()
      const call = yield* makeBatcher(
        (inputs: ReadonlyArray<number>) =>
          Effect.sync(() => batches.push(inputs)).pipe(
            Effect.andThen(Deferred.await(release)),
            Effect.andThen(inputs.includes(13) ? Effect.die(new Error("invalid byte sequence")) : Effect.succeed(inputs.map((n) => n * 10)))
          ),
        { maxBatch: 100, concurrency: 1 }
      )
      const first = yield* Effect.forkChild(call(0))
      yield* Effect.yieldNow
      const rest = yield* Effect.forkChild(Effect.all(Array.from({ length: 50 }, (_, i) => Effect.exit(call(i + 1))), { concurrency: "unbounded" }))
      yield* Effect.repeat(Effect.yieldNow, { times: 20 })
      yield* Deferred.succeed(release, undefined)
      expect(yield* Fiber.join(first)).toBe(0)
      const exits = yield* Fiber.join(rest)
      expect(exits.filter(Exit.isFailure)).toHaveLength(1)
      expect(exits[12]).toSatisfy(Exit.isFailure)
      expect(exits.filter(Exit.isSuccess).map((e) => e.value)).toEqual(Array.from({ length: 50 }, (_, i) => (i + 1) * 10).filter((n) => n !== 130))
      expect(batches[1]).toHaveLength(50) // they did travel together first
      expect(batches).toHaveLength(2 + 50)
    }))

  it.effect("a batch the database failed answers its calls and those queued behind it at once, without a batch of their own", () =>
    Effect.gen(function*() {
      const { batches, release, run } = yield* recording
      const lockTimeout = new SqlError.SqlError({
        reason: new SqlError.LockTimeoutError({
          cause: Object.assign(new Error("canceling statement due to lock timeout"), { code: "55P03", severity: "ERROR" }),
          message: "PgConnection: Query failed",
          operation: "query"
        })
      })
      const call = yield* makeBatcher(
        (inputs: ReadonlyArray<number>) => Effect.andThen(run(inputs), Effect.die(lockTimeout)),
        { maxBatch: 2, concurrency: 1 }
      )
      const first = yield* Effect.forkChild(Effect.exit(call(1)))
      yield* Effect.yieldNow
      const queued = yield* Effect.forkChild(Effect.all([2, 3, 4, 5].map((n) => Effect.exit(call(n))), { concurrency: "unbounded" }))
      yield* Effect.repeat(Effect.yieldNow, { times: 20 })
      yield* Deferred.succeed(release, undefined)
      expect(yield* Fiber.join(first)).toSatisfy(Exit.isFailure)
      expect((yield* Fiber.join(queued)).every(Exit.isFailure)).toBe(true)
      expect(batches).toEqual([[1]]) // the 4 queued never waited for a deadline of their own
    }))
})

