import { expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import { type Claim, IdempotencyRepo } from "../../../src/Layers/Persistence/IdempotencyRepo.js"
import { contract } from "../../support/contract.js"

const MINUTE = 60_000
const start = Date.parse("2026-12-01T10:00:00.000Z")

/** A claim at `at` minutes after the start: locked for one minute, kept for a day. */
const claim = (key: string, requestHash: string, at = 0): Claim => ({
  scope: "intents",
  key,
  requestHash,
  now: new Date(start + at * MINUTE),
  lockedUntil: new Date(start + (at + 1) * MINUTE),
  expiresAt: new Date(start + (at + 24 * 60) * MINUTE)
})

contract("IdempotencyRepo", { inMemory: IdempotencyRepo.InMemory, postgres: IdempotencyRepo.layer }, (it) => {
  it.effect("a new key is claimed; while it is held, any claim of it answers the record", () =>
    Effect.gen(function*() {
      const repo = yield* IdempotencyRepo
      expect(yield* repo.claim(claim("k-held", "a"))).toEqual(Option.none())
      const held = Option.some({ request_hash: "a", state: "in_progress", resource_id: null })
      expect(yield* repo.claim(claim("k-held", "a"))).toEqual(held)
      expect(yield* repo.claim(claim("k-held", "b", 5))).toEqual(held)
      expect(yield* repo.claim({ ...claim("k-held", "a"), scope: "other" })).toEqual(Option.none())

      yield* repo.finish("intents", "k-held", "r_1")
      const done = Option.some({ request_hash: "a", state: "done", resource_id: "r_1" })
      expect(yield* repo.claim(claim("k-held", "a", 5))).toEqual(done)
      yield* repo.release(claim("k-held", "a"))
      expect(yield* repo.claim(claim("k-held", "b", 5))).toEqual(done)
    }))

  it.effect("a released claim frees the key", () =>
    Effect.gen(function*() {
      const repo = yield* IdempotencyRepo
      yield* repo.claim(claim("k-released", "a"))
      yield* repo.release(claim("k-released", "a"))
      expect(yield* repo.claim(claim("k-released", "b"))).toEqual(Option.none())
    }))

  it.effect("a release frees its own claim only: one that took the key over since is kept", () =>
    Effect.gen(function*() {
      const repo = yield* IdempotencyRepo
      yield* repo.claim(claim("k-late", "a"))
      // its lease lapsed: the same request takes it over, then the first one's late release comes
      expect(yield* repo.claim(claim("k-late", "a", 2))).toEqual(Option.none())
      yield* repo.release(claim("k-late", "a"))
      expect(yield* repo.claim(claim("k-late", "a", 2))).toEqual(
        Option.some({ request_hash: "a", state: "in_progress", resource_id: null })
      )
      yield* repo.release(claim("k-late", "a", 2))
      expect(yield* repo.claim(claim("k-late", "a", 2))).toEqual(Option.none())
    }))

  it.effect("an abandoned claim is taken over by the same request only; an expired key by any", () =>
    Effect.gen(function*() {
      const repo = yield* IdempotencyRepo
      yield* repo.claim(claim("k-abandoned", "a"))
      expect(yield* repo.claim(claim("k-abandoned", "b", 2))).toEqual(
        Option.some({ request_hash: "a", state: "in_progress", resource_id: null })
      )
      expect(yield* repo.claim(claim("k-abandoned", "a", 2))).toEqual(Option.none())

      yield* repo.finish("intents", "k-abandoned", "r_2")
      expect(yield* repo.claim(claim("k-abandoned", "b", 2 + 24 * 60))).toEqual(Option.none())
    }))
})
