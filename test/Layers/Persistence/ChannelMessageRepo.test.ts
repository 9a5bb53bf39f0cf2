import { expect } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { ChannelMessageRepo } from "../../../src/Layers/Persistence/ChannelMessageRepo.js"
import { Transactions } from "../../../src/Layers/Persistence/Transactions.js"
import { contract } from "../../support/contract.js"

const receivedAt = new Date("2026-12-01T10:00:00Z")

contract("ChannelMessageRepo", {
  inMemory: Layer.merge(ChannelMessageRepo.InMemory, Transactions.InMemory),
  postgres: Layer.merge(ChannelMessageRepo.layer, Transactions.layer)
}, (it) => {
  it.effect("a new id is claimed; once answered, the same id answers that answer", () =>
    Effect.gen(function*() {
      const repo = yield* ChannelMessageRepo
      const { atomically } = yield* Transactions
      const first = yield* atomically(Effect.gen(function*() {
        const claimed = yield* repo.claim("cm-1", receivedAt)
        if (Option.isNone(claimed)) yield* repo.answer({ message_id: "cm-1", applied: 12, stale: 3 })
        return claimed
      }))
      expect(first).toEqual(Option.none())
      expect(yield* atomically(repo.claim("cm-1", receivedAt))).toEqual(Option.some({ message_id: "cm-1", applied: 12, stale: 3 }))
      // ids are compared exactly
      expect(yield* atomically(repo.claim("CM-1", receivedAt))).toEqual(Option.none())
    }))

  it.effect("a claim whose transaction failed uses up nothing: the id is claimed again", () =>
    Effect.gen(function*() {
      const repo = yield* ChannelMessageRepo
      const { atomically } = yield* Transactions
      const refused = yield* Effect.exit(atomically(Effect.andThen(repo.claim("cm-refused", receivedAt), Effect.fail("refused" as const))))
      expect(refused._tag).toBe("Failure")
      const again = yield* atomically(Effect.gen(function*() {
        const claimed = yield* repo.claim("cm-refused", receivedAt)
        yield* repo.answer({ message_id: "cm-refused", applied: 0, stale: 0 })
        return claimed
      }))
      expect(again).toEqual(Option.none())
      expect(yield* atomically(repo.claim("cm-refused", receivedAt))).toEqual(Option.some({ message_id: "cm-refused", applied: 0, stale: 0 }))
    }))
})
