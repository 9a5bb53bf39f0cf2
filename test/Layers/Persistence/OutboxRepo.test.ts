import { expect } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import type { ReservationId } from "../../../src/Domain/Ids.js"
import { OutboxRepo } from "../../../src/Layers/Persistence/OutboxRepo.js"
import { ReservationRepo } from "../../../src/Layers/Persistence/ReservationRepo.js"
import { contract } from "../../support/contract.js"
import { sampleReservation } from "../../support/reservation.js"

const first = "r_outbox_1" as ReservationId
const second = "r_outbox_2" as ReservationId

/** What the in-memory outbox takes part in: the jobs written and when (the worker's side runs on PostgreSQL only). */
contract("OutboxRepo", {
  inMemory: Layer.merge(OutboxRepo.InMemory, ReservationRepo.InMemory),
  postgres: Layer.merge(OutboxRepo.layer, ReservationRepo.layer)
}, (it) => {
  it.effect("lastEnqueuedAt is when the newest job of a kind was written for a reservation", () =>
    Effect.gen(function*() {
      const repo = yield* OutboxRepo
      const reservations = yield* ReservationRepo
      yield* reservations.insert({ ...sampleReservation(), id: first, number: "BR-OUTBOX1" })
      yield* reservations.insert({ ...sampleReservation(), id: second, number: "BR-OUTBOX2" })
      expect(yield* repo.lastEnqueuedAt(first, "confirmation_email")).toEqual(Option.none())

      const before = Date.now()
      yield* repo.enqueue([{ kind: "confirmation_email", reservation_id: first }, { kind: "pms_push", reservation_id: first }])
      const written = Option.getOrThrow(yield* repo.lastEnqueuedAt(first, "confirmation_email")).getTime()
      // the database's clock and the test's may differ by a little
      expect(Math.abs(written - before)).toBeLessThan(5_000)
      expect(Option.isSome(yield* repo.lastEnqueuedAt(first, "pms_push"))).toBe(true)
      expect(yield* repo.lastEnqueuedAt(first, "cancellation_email")).toEqual(Option.none())
      expect(yield* repo.lastEnqueuedAt(second, "confirmation_email")).toEqual(Option.none())

      yield* Effect.sleep("20 millis")
      yield* repo.enqueue([])
      yield* repo.enqueue([{ kind: "confirmation_email", reservation_id: first }])
      const again = Option.getOrThrow(yield* repo.lastEnqueuedAt(first, "confirmation_email")).getTime()
      expect(again).toBeGreaterThan(written)
    }))

  it.effect("the backlog counts the jobs waiting and dates the oldest of them", () =>
    Effect.gen(function*() {
      const repo = yield* OutboxRepo
      const reservations = yield* ReservationRepo
      const third = "r_outbox_3" as ReservationId
      yield* reservations.insert({ ...sampleReservation(), id: third, number: "BR-OUTBOX3" })
      const before = yield* repo.backlog
      yield* repo.enqueue([{ kind: "confirmation_email", reservation_id: third }, { kind: "pms_push", reservation_id: third }])
      const after = yield* repo.backlog
      expect(after.pending - before.pending).toBe(2)
      const oldest = Option.getOrThrow(after.oldest)
      expect([oldest instanceof Date, Number.isFinite(oldest.getTime())]).toEqual([true, true])
    }))
})
