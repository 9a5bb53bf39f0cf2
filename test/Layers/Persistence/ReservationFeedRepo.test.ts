import { expect } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { ReservationId } from "../../../src/Domain/Ids.js"
import { pmsReservation } from "../../../src/Domain/Pms.js"
import { ReservationFeedRepo } from "../../../src/Layers/Persistence/ReservationFeedRepo.js"
import { ReservationRepo } from "../../../src/Layers/Persistence/ReservationRepo.js"
import { contract } from "../../support/contract.js"
import { demoHotel } from "../../support/hotel.js"
import { completedReservation, sampleReservation } from "../../support/reservation.js"

const first = "r_feed_1" as ReservationId
const second = "r_feed_2" as ReservationId

/** The content of a change: the PMS payload of the demo reservation at `at`. */
const contentAt = (at: Date, status: "GUEST_COMPLETED" | "CANCELLED" = "GUEST_COMPLETED") =>
  pmsReservation(demoHotel, { ...completedReservation(), status }, sampleReservation(), at)

contract("ReservationFeedRepo", {
  inMemory: Layer.merge(ReservationFeedRepo.InMemory, ReservationRepo.InMemory),
  postgres: Layer.merge(ReservationFeedRepo.layer, ReservationRepo.layer)
}, (it) => {
  it.effect("an empty feed answers no change, from the first or after any cursor", () =>
    Effect.gen(function*() {
      const feed = yield* ReservationFeedRepo
      expect(yield* feed.page(undefined, 100)).toEqual([])
      expect(yield* feed.page("0", 100)).toEqual([])
      expect(yield* feed.page("9223372036854775807", 100)).toEqual([])
    }))

  it.effect("changes come oldest first with increasing cursors, at most `limit`, each page after the cursor asked", () =>
    Effect.gen(function*() {
      const feed = yield* ReservationFeedRepo
      const reservations = yield* ReservationRepo
      yield* reservations.insert({ ...sampleReservation(), id: first, number: "BR-FEED1" })
      yield* reservations.insert({ ...sampleReservation(), id: second, number: "BR-FEED2" })
      const at = (minute: number) => new Date(Date.UTC(2026, 10, 22, 9, minute))
      yield* feed.record(first, "completed", contentAt(at(1)), at(1))
      yield* feed.record(second, "completed", contentAt(at(2)), at(2))
      yield* feed.record(first, "cancelled", contentAt(at(3), "CANCELLED"), at(3))

      const all = yield* feed.page(undefined, 100)
      expect(all.map(({ change, changed_at, reservation }) => ({ change, changed_at, reservation }))).toEqual([
        { change: "completed", changed_at: at(1), reservation: contentAt(at(1)) },
        { change: "completed", changed_at: at(2), reservation: contentAt(at(2)) },
        { change: "cancelled", changed_at: at(3), reservation: contentAt(at(3), "CANCELLED") }
      ])
      const cursors = all.map((c) => BigInt(c.cursor))
      expect(cursors[0]! < cursors[1]! && cursors[1]! < cursors[2]!).toBe(true)

      const page1 = yield* feed.page(undefined, 2)
      expect(page1).toEqual(all.slice(0, 2))
      const page2 = yield* feed.page(page1[1]!.cursor, 2)
      expect(page2).toEqual(all.slice(2))
      expect(yield* feed.page(page2[0]!.cursor, 2)).toEqual([])
      expect(yield* feed.page(all[0]!.cursor, 1)).toEqual([all[1]])
    }))
})
