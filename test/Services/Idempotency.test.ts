import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Ref } from "effect"
import { TestClock } from "effect/testing"
import { IdempotencyRepo } from "../../src/Layers/Persistence/IdempotencyRepo.js"
import { Idempotency } from "../../src/Services/Idempotency.js"

const TestIdempotency = Idempotency.layer.pipe(Layer.provideMerge(IdempotencyRepo.InMemory))
/** The in-memory keys, whose release dies while `down`, as a database gone would make it. */
let down = false
const releaseRefusedWhileDown = Layer.effect(
  IdempotencyRepo,
  IdempotencyRepo.useSync((repo) => ({
    ...repo,
    release: (claim) => Effect.suspend(() => down ? Effect.die(new Error("connect ECONNREFUSED")) : repo.release(claim))
  }))
).pipe(Layer.provide(IdempotencyRepo.InMemory))
const render = (id: string) => Effect.succeed(`response for ${id}`)
/** A create that makes the resource `id`, remembering it as its transaction would. */
const made = (id: string) => (remember: (resourceId: string) => Effect.Effect<void>) => Effect.as(remember(id), id)

describe("Idempotency", () => {
  it.effect("a repeat while the first runs is told to wait; once done it is replayed", () =>
    Effect.gen(function*() {
      const idempotency = yield* Idempotency
      const gate = yield* Deferred.make<void>()
      const first = yield* Effect.forkChild(idempotency.run("s", "k", { a: 1 }, (remember) => Effect.andThen(Deferred.await(gate), made("r1")(remember)), render))
      yield* Effect.yieldNow
      const concurrent = yield* idempotency.run("s", "k", { a: 1 }, made("r2"), render).pipe(Effect.flip)
      expect(concurrent._tag).toBe("IdempotencyInProgress")
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(first)).toEqual({ response: "response for r1", replayed: false })
      expect(yield* idempotency.run("s", "k", { a: 1 }, made("r3"), render)).toEqual({ response: "response for r1", replayed: true })
      const other = yield* idempotency.run("s", "k", { a: 2 }, made("r4"), render).pipe(Effect.flip)
      expect(other._tag).toBe("IdempotencyKeyReused")
      // another scope is another key space
      expect((yield* idempotency.run("t", "k", { a: 2 }, made("r5"), render)).replayed).toBe(false)
    }).pipe(Effect.provide(TestIdempotency)))

  it.effect("a failed first request is forgotten: the retry runs again", () =>
    Effect.gen(function*() {
      const idempotency = yield* Idempotency
      const runs = yield* Ref.make(0)
      const flaky = Effect.flatMap(Ref.updateAndGet(runs, (n) => n + 1), (n) => n === 1 ? Effect.fail("boom" as const) : Effect.succeed(`r${n}`))
      expect(yield* idempotency.run("s", "k", {}, (remember) => Effect.tap(flaky, remember), render).pipe(Effect.flip)).toBe("boom")
      expect(yield* idempotency.run("s", "k", {}, (remember) => Effect.tap(flaky, remember), render)).toEqual({ response: "response for r2", replayed: false })
    }).pipe(Effect.provide(TestIdempotency)))

  it.effect("keys are kept 24 hours; an abandoned first request is taken over after 30 seconds", () =>
    Effect.gen(function*() {
      const idempotency = yield* Idempotency
      yield* idempotency.run("s", "k", {}, made("r1"), render)
      yield* TestClock.adjust("23 hours")
      expect((yield* idempotency.run("s", "k", {}, made("r2"), render)).replayed).toBe(true)
      yield* TestClock.adjust("1 hour")
      expect(yield* idempotency.run("s", "k", { other: true }, made("r3"), render)).toEqual({ response: "response for r3", replayed: false })

      // a first request whose process died holds the key until its lock lapses, for the same request only
      const repo = yield* IdempotencyRepo
      const at = (seconds: number) => new Date(Date.UTC(2027, 0, 1, 0, 0, seconds))
      const claim = (hash: string, seconds: number) =>
        repo.claim({ scope: "s", key: "dead", requestHash: hash, now: at(seconds), lockedUntil: at(seconds + 30), expiresAt: at(seconds + 86_400) })
      expect((yield* claim("h", 0))._tag).toBe("None")
      expect((yield* claim("h", 10))._tag).toBe("Some")
      expect((yield* claim("other", 31))._tag).toBe("Some")
      expect((yield* claim("h", 31))._tag).toBe("None")
    }).pipe(Effect.provide(TestIdempotency)))

  it.effect("a key whose release the database refused is released as soon as it answers again, by no request", () =>
    Effect.gen(function*() {
      const idempotency = yield* Idempotency
      const repo = yield* IdempotencyRepo
      down = true
      const failed = idempotency.run("s", "k", { a: 1 }, () => Effect.fail("database gone" as const), render)
      expect(yield* Effect.flip(failed)).toBe("database gone")
      // as another instance sees the key: held by the failed attempt
      const now = new Date(0) // the test clock's: within the failed attempt's lease
      const elsewhere = repo.claim({ scope: "s", key: "k", requestHash: "other", now, lockedUntil: now, expiresAt: new Date(now.getTime() + 1000) })
      expect((yield* elsewhere)._tag).toBe("Some")
      yield* TestClock.adjust("1 second")
      expect((yield* elsewhere)._tag).toBe("Some")
      down = false
      yield* TestClock.adjust("250 millis")
      expect((yield* elsewhere)._tag).toBe("None")
    }).pipe(Effect.provide(Idempotency.layer.pipe(Layer.provideMerge(releaseRefusedWhileDown)))))
})
