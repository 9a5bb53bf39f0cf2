import { expect } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { ChannelMessageRepo, type ClaimedMessage } from "../../../src/Layers/Persistence/ChannelMessageRepo.js"
import { Transactions } from "../../../src/Layers/Persistence/Transactions.js"
import { contract } from "../../support/contract.js"

const message = (message_id: string, more: Partial<ClaimedMessage> = {}): ClaimedMessage => ({
  message_id,
  body_hash: "hash-a",
  as_of: new Date("2026-12-01T09:59:00Z"),
  reservations_through: null,
  received_at: new Date("2026-12-01T10:00:00Z"),
  ...more
})

contract("ChannelMessageRepo", {
  inMemory: Layer.merge(ChannelMessageRepo.InMemory, Transactions.InMemory),
  postgres: Layer.merge(ChannelMessageRepo.layer, Transactions.layer)
}, (it) => {
  it.effect("a new id is claimed; once answered, the same id answers that answer and the hash of its body", () =>
    Effect.gen(function*() {
      const repo = yield* ChannelMessageRepo
      const { atomically } = yield* Transactions
      const first = yield* atomically(Effect.gen(function*() {
        const claimed = yield* repo.claim(message("cm-1"))
        if (Option.isNone(claimed)) yield* repo.answer({ message_id: "cm-1", applied: 12, stale: 3 })
        return claimed
      }))
      expect(first).toEqual(Option.none())
      expect(yield* atomically(repo.claim(message("cm-1", { body_hash: "hash-b" })))).toEqual(
        Option.some({ answer: { message_id: "cm-1", applied: 12, stale: 3 }, body_hash: "hash-a" })
      )
      // ids are compared exactly
      expect(yield* atomically(repo.claim(message("CM-1")))).toEqual(Option.none())
    }))

  it.effect("the last arrival is the latest received_at of the messages kept; a refused one never arrived", () =>
    Effect.gen(function*() {
      const repo = yield* ChannelMessageRepo
      const { atomically } = yield* Transactions
      const latest = new Date("2030-01-01T00:00:00Z")
      yield* atomically(Effect.andThen(repo.claim(message("cm-latest", { received_at: latest })), repo.answer({ message_id: "cm-latest", applied: 0, stale: 0 })))
      yield* Effect.exit(atomically(Effect.andThen(repo.claim(message("cm-later-refused", { received_at: new Date("2031-01-01T00:00:00Z") })), Effect.fail("refused" as const))))
      expect(yield* repo.lastReceivedAt).toEqual(Option.some(latest))
    }))

  it.effect("a claim whose transaction failed uses up nothing: the id is claimed again", () =>
    Effect.gen(function*() {
      const repo = yield* ChannelMessageRepo
      const { atomically } = yield* Transactions
      const refused = yield* Effect.exit(atomically(Effect.andThen(repo.claim(message("cm-refused")), Effect.fail("refused" as const))))
      expect(refused._tag).toBe("Failure")
      const again = yield* atomically(Effect.gen(function*() {
        const claimed = yield* repo.claim(message("cm-refused"))
        yield* repo.answer({ message_id: "cm-refused", applied: 0, stale: 0 })
        return claimed
      }))
      expect(again).toEqual(Option.none())
      expect(yield* atomically(repo.claim(message("cm-refused")))).toEqual(
        Option.some({ answer: { message_id: "cm-refused", applied: 0, stale: 0 }, body_hash: "hash-a" })
      )
    }))

  it.effect("the watermark: the highest cursor of the messages computed at or before an instant", () =>
    Effect.gen(function*() {
      const repo = yield* ChannelMessageRepo
      const { atomically } = yield* Transactions
      const apply = (m: ClaimedMessage) =>
        atomically(Effect.andThen(repo.claim(m), repo.answer({ message_id: m.message_id, applied: 0, stale: 0 })))
      const at = (iso: string) => new Date(iso)
      expect(yield* repo.watermark(at("2030-01-01T00:00:00Z"))).toBeNull()
      yield* apply(message("wm-1", { as_of: at("2027-01-01T10:00:00Z"), reservations_through: 7n }))
      yield* apply(message("wm-2", { as_of: at("2027-01-01T10:05:00Z"), reservations_through: 12n }))
      // computed later but counting less (a system whose cursor went back) never lowers what an earlier one counted
      yield* apply(message("wm-3", { as_of: at("2027-01-01T10:10:00Z"), reservations_through: 9n }))
      yield* apply(message("wm-4", { as_of: at("2027-01-01T10:20:00Z") }))
      expect(yield* repo.watermark(at("2027-01-01T09:59:59Z"))).toBeNull()
      expect(yield* repo.watermark(at("2027-01-01T10:00:00Z"))).toBe(7n)
      expect(yield* repo.watermark(at("2027-01-01T10:07:00Z"))).toBe(12n)
      expect(yield* repo.watermark(at("2027-01-01T10:30:00Z"))).toBe(12n)
    }))
})
