import { expect } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import type { ReservationId } from "../../../src/Domain/Ids.js"
import { ReservationRepo } from "../../../src/Layers/Persistence/ReservationRepo.js"
import { type StoredToken, TokenRepo } from "../../../src/Layers/Persistence/TokenRepo.js"
import { contract } from "../../support/contract.js"
import { sampleReservation } from "../../support/reservation.js"

const id = "r_tokens" as ReservationId
const token = (hash: string, purpose: StoredToken["purpose"], expires_at: string): StoredToken => ({
  token_hash: hash,
  nonce: `nonce-${hash}`,
  reservation_id: id,
  purpose,
  expires_at
})

contract("TokenRepo", {
  inMemory: Layer.merge(TokenRepo.InMemory, ReservationRepo.InMemory),
  postgres: Layer.merge(TokenRepo.layer, ReservationRepo.layer)
}, (it) => {
  it.effect("a token is found by its hash, its expiry in UTC; the latest of a purpose is the newest issued", () =>
    Effect.gen(function*() {
      const repo = yield* TokenRepo
      yield* (yield* ReservationRepo).insert({ ...sampleReservation(), id })
      expect(yield* repo.latest(id, "guest")).toEqual(Option.none())
      yield* repo.insert(token("h1", "guest", "2026-12-02T10:00:00+01:00"))
      yield* repo.insert(token("h2", "manage", "2027-04-14T12:00:00.000Z"))
      yield* repo.insert(token("h3", "manage", "2027-04-15T12:00:00.000Z"))

      expect(yield* repo.findByHash("h1")).toEqual(Option.some(token("h1", "guest", "2026-12-02T09:00:00.000Z")))
      expect(yield* repo.findByHash("unknown")).toEqual(Option.none())
      expect(yield* repo.latest(id, "manage")).toEqual(Option.some(token("h3", "manage", "2027-04-15T12:00:00.000Z")))
      expect(Option.map(yield* repo.latest(id, "guest"), (t) => t.token_hash)).toEqual(Option.some("h1"))
      expect(yield* repo.latest("r_other" as ReservationId, "guest")).toEqual(Option.none())
    }))

  it.effect("a new expiry applies to every token of the reservation and purpose: the same links, another lifetime", () =>
    Effect.gen(function*() {
      const repo = yield* TokenRepo
      const other = "r_tokens_other" as ReservationId
      yield* (yield* ReservationRepo).insert({ ...sampleReservation(), id: other, number: "BR-OTHER" })
      yield* repo.insert({ ...token("e1", "manage", "2027-04-15T12:00:00.000Z"), reservation_id: other })
      yield* repo.insert({ ...token("e2", "guest", "2026-12-02T09:00:00.000Z"), reservation_id: other })
      yield* repo.setExpiry(other, "manage", "2027-05-20T13:00:00+02:00")
      expect(Option.map(yield* repo.findByHash("e1"), (t) => t.expires_at)).toEqual(Option.some("2027-05-20T11:00:00.000Z"))
      expect(Option.map(yield* repo.findByHash("e2"), (t) => t.expires_at)).toEqual(Option.some("2026-12-02T09:00:00.000Z"))
      expect(Option.map(yield* repo.findByHash("h3"), (t) => t.expires_at)).toEqual(Option.some("2027-04-15T12:00:00.000Z"))
    }))
})
