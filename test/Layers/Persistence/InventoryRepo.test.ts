import { expect } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import type { RoomTypeId } from "../../../src/Domain/Ids.js"
import type { LocalDate } from "../../../src/Domain/LocalDate.js"
import type { StoredNight } from "../../../src/Domain/Channel.js"
import { InventoryRepo } from "../../../src/Layers/Persistence/InventoryRepo.js"
import { contract } from "../../support/contract.js"
import { demoInventory, freeRooms } from "../../support/hotel.js"

const d = (s: string) => s as LocalDate
const double = "double" as RoomTypeId
const twin = "twin" as RoomTypeId
const deluxe = "deluxe" as RoomTypeId
interface BookedNight {
  readonly room_type_id: RoomTypeId
  readonly night: LocalDate
  readonly booked: number
}
const night = (room_type_id: RoomTypeId, night: string, booked: number): BookedNight => ({ room_type_id, night: d(night), booked })
const counts = (rows: ReadonlyArray<StoredNight>): Array<BookedNight> =>
  rows.map(({ booked, night, room_type_id }) => ({ room_type_id, night, booked }))
/** Booked nights in one order (the SQL answers them in none), without those that hold nothing. */
const sorted = (nights: ReadonlyArray<StoredNight>) =>
  counts(nights).filter((n) => n.booked > 0).sort((a, b) => a.room_type_id.localeCompare(b.room_type_id) || a.night.localeCompare(b.night))
const takenAt = new Date("2026-12-01T10:00:00Z")

/** Holds rooms as the service does: the nights locked first, in the same transaction. */
const take = (roomTypeId: RoomTypeId, rooms: number, checkin: string, checkout: string) =>
  Effect.flatMap(InventoryRepo, (repo) =>
    Effect.zipRight(repo.lockNights([roomTypeId], d(checkin), d(checkout)), repo.take(roomTypeId, rooms, d(checkin), d(checkout), takenAt)))
const release = (roomTypeId: RoomTypeId, rooms: number, checkin: string, checkout: string) =>
  Effect.flatMap(InventoryRepo, (repo) =>
    Effect.zipRight(repo.lockNights([roomTypeId], d(checkin), d(checkout)), repo.release(roomTypeId, rooms, d(checkin), d(checkout), takenAt)))

contract("InventoryRepo", { inMemory: InventoryRepo.InMemory(demoInventory), postgres: InventoryRepo.Default }, (it) => {
  it.effect("with nothing booked, every room of each type is free, in the hotel's order, and no night is booked", () =>
    Effect.gen(function*() {
      const repo = yield* InventoryRepo
      expect(yield* freeRooms(d("2027-01-04"), d("2027-01-08"))).toEqual([
        { room_type_id: double, free: 12 },
        { room_type_id: twin, free: 8 },
        { room_type_id: deluxe, free: 5 }
      ])
      expect(sorted(yield* repo.nights(d("2027-01-04"), d("2027-01-08")))).toEqual([])
    }))

  it.effect("taken rooms are booked on every night of the stay; free rooms are the inventory minus the busiest night", () =>
    Effect.gen(function*() {
      const repo = yield* InventoryRepo
      yield* take(double, 2, "2027-02-01", "2027-02-03")
      yield* take(double, 1, "2027-02-02", "2027-02-04")
      expect(sorted(yield* repo.nights(d("2027-02-01"), d("2027-02-05")))).toEqual([
        night(double, "2027-02-01", 2),
        night(double, "2027-02-02", 3),
        night(double, "2027-02-03", 1)
      ])
      expect(sorted(yield* repo.nights(d("2027-02-03"), d("2027-02-04")))).toEqual([night(double, "2027-02-03", 1)])
      expect((yield* freeRooms(d("2027-02-01"), d("2027-02-05")))[0]).toEqual({ room_type_id: double, free: 9 })
      expect((yield* freeRooms(d("2027-02-03"), d("2027-02-05")))[0]).toEqual({ room_type_id: double, free: 11 })

      yield* release(double, 2, "2027-02-01", "2027-02-03")
      yield* release(double, 1, "2027-02-02", "2027-02-04")
      expect(sorted(yield* repo.nights(d("2027-02-01"), d("2027-02-05")))).toEqual([])
      expect((yield* freeRooms(d("2027-02-01"), d("2027-02-05")))[0]).toEqual({ room_type_id: double, free: 12 })
    }))

  it.effect("the nights between two dates, read in a statement of their own, are the same as a stay's", () =>
    Effect.gen(function*() {
      const repo = yield* InventoryRepo
      yield* take(twin, 3, "2027-05-01", "2027-05-03")
      yield* take(deluxe, 1, "2027-05-02", "2027-05-05")
      const between = sorted(yield* repo.nightsBetween(d("2027-05-02"), d("2027-05-04")))
      expect(between).toEqual([night(deluxe, "2027-05-02", 1), night(deluxe, "2027-05-03", 1), night(twin, "2027-05-02", 3)])
      expect(between).toEqual(sorted(yield* repo.nights(d("2027-05-02"), d("2027-05-04"))))
      expect(sorted(yield* repo.nightsBetween(d("2027-05-05"), d("2027-06-05")))).toEqual([])
    }))

  it.effect("locking answers every night of the stay for each type asked, booked or not, by type then night", () =>
    Effect.gen(function*() {
      const repo = yield* InventoryRepo
      yield* take(twin, 1, "2027-03-02", "2027-03-03")
      expect(counts(yield* repo.lockNights([twin, double], d("2027-03-01"), d("2027-03-03")))).toEqual([
        night(double, "2027-03-01", 0),
        night(double, "2027-03-02", 0),
        night(twin, "2027-03-01", 0),
        night(twin, "2027-03-02", 1)
      ])
    }))

  it.effect("locking several ranges (a stay change's old and new nights) answers their union once, by type then night", () =>
    Effect.gen(function*() {
      const repo = yield* InventoryRepo
      yield* take(deluxe, 2, "2027-03-10", "2027-03-12")
      const locked = yield* repo.lockRanges([
        { roomTypeIds: [deluxe], checkin: d("2027-03-10"), checkout: d("2027-03-12") },
        { roomTypeIds: [twin, deluxe], checkin: d("2027-03-11"), checkout: d("2027-03-13") },
        { roomTypeIds: [], checkin: d("2027-03-01"), checkout: d("2027-03-30") }
      ])
      expect(counts(locked)).toEqual([
        night(deluxe, "2027-03-10", 2),
        night(deluxe, "2027-03-11", 2),
        night(deluxe, "2027-03-12", 0),
        night(twin, "2027-03-11", 0),
        night(twin, "2027-03-12", 0)
      ])
      expect(yield* repo.lockRanges([])).toEqual([])
    }))

  it.effect("taking more rooms than the inventory, or giving back rooms never taken, is a defect that changes nothing", () =>
    Effect.gen(function*() {
      const repo = yield* InventoryRepo
      yield* take(deluxe, 4, "2027-04-01", "2027-04-03")
      const overbooked = yield* Effect.exit(take(deluxe, 2, "2027-04-01", "2027-04-03"))
      expect(Exit.isFailure(overbooked) && Cause.isDie(overbooked.cause)).toBe(true)
      const neverTaken = yield* Effect.exit(release(deluxe, 1, "2027-04-03", "2027-04-05"))
      expect(Exit.isFailure(neverTaken) && Cause.isDie(neverTaken.cause)).toBe(true)
      expect(sorted(yield* repo.nights(d("2027-04-01"), d("2027-04-05")))).toEqual([
        night(deluxe, "2027-04-01", 4),
        night(deluxe, "2027-04-02", 4)
      ])
    }))
})
