import { expect } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { afterChanges } from "../../../src/Domain/Channel/BookedSince.js"
import type { ReservationId, RoomTypeId } from "../../../src/Domain/Ids.js"
import type { LocalDate } from "../../../src/Domain/LocalDate.js"
import { type ChannelCells, noCells } from "../../../src/Domain/Channel/Cells.js"
import type { Knowledge } from "../../../src/Domain/Channel/Knowledge.js"
import type { StoredNight } from "../../../src/Domain/Channel/Nights.js"
import type { Cents } from "../../../src/Domain/Money.js"
import { InventoryRepo } from "../../../src/Layers/Persistence/InventoryRepo.js"
import { ReservationRepo } from "../../../src/Layers/Persistence/ReservationRepo.js"
import { Transactions } from "../../../src/Layers/Persistence/Transactions.js"
import { contract } from "../../support/contract.js"
import { demoInventory, freeRooms } from "../../support/hotel.js"
import { changeRooms } from "../../support/inventory.js"
import { sampleReservation } from "../../support/reservation.js"

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
/** Holds rooms as the service does: the nights locked first, in the same transaction. */
const take = (roomTypeId: RoomTypeId, rooms: number, checkin: string, checkout: string) =>
  changeRooms({ roomTypeId, rooms, checkin: d(checkin), checkout: d(checkout) })
/** Gives back rooms, of which `back` per night the night's figure did not count. */
const releaseWith = (roomTypeId: RoomTypeId, rooms: number, checkin: string, checkout: string, back: (night: LocalDate) => number) =>
  changeRooms({ roomTypeId, rooms: -rooms, checkin: d(checkin), checkout: d(checkout) }, (_, night) => back(night))
const release = (roomTypeId: RoomTypeId, rooms: number, checkin: string, checkout: string) =>
  releaseWith(roomTypeId, rooms, checkin, checkout, () => 0)
/** A figure's knowledge: the changes up to a cursor, and those acknowledged by an instant. */
const knowing = (through: bigint | null, ackedBy: number | null = null): Knowledge => ({ through, ackedBy })

/** Every channel field set at `asOf`, with these values. */
const cellsAt = (asOf: number, values: { readonly [K in keyof ChannelCells]: ChannelCells[K]["value"] }): ChannelCells =>
  Object.fromEntries(Object.entries(values).map(([field, value]) => [field, { value, as_of: asOf }])) as unknown as ChannelCells

/** A night's channel state as read back. */
const stateOf = (roomTypeId: RoomTypeId, date: string) =>
  Effect.map(
    Effect.flatMap(InventoryRepo, (repo) => repo.nights(d(date), d(addOne(date)))),
    (rows) => rows.find((r) => r.room_type_id === roomTypeId) ?? { booked: 0, booked_since: 0, cells: noCells, knowledge: null }
  )
const addOne = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)

/** A completed reservation of `rooms` rooms of a type, as the completion writes it: its record and its rooms taken. */
let reservations = 0
const completed = (roomTypeId: RoomTypeId, rooms: number, checkin: string, checkout: string) =>
  Effect.gen(function*() {
    const n = ++reservations
    const id = `r_inventory_${n}` as ReservationId
    yield* (yield* ReservationRepo).insert({
      ...sampleReservation({ checkin, checkout }),
      id,
      number: `BR-INV${n}`,
      rooms: [{ room_index: 0, room_type_id: roomTypeId, quantity: rooms, adults: 2, children_ages: [], rate_code: null }]
    })
    yield* take(roomTypeId, rooms, checkin, checkout)
    return id
  })

contract("InventoryRepo", {
  inMemory: Layer.mergeAll(InventoryRepo.InMemory(demoInventory), ReservationRepo.InMemory, Transactions.InMemory),
  postgres: Layer.mergeAll(InventoryRepo.layer, ReservationRepo.layer, Transactions.layer)
}, (it) => {
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
      expect(Exit.isFailure(overbooked) && Cause.hasDies(overbooked.cause)).toBe(true)
      const neverTaken = yield* Effect.exit(release(deluxe, 1, "2027-04-03", "2027-04-05"))
      expect(Exit.isFailure(neverTaken) && Cause.hasDies(neverTaken.cause)).toBe(true)
      expect(sorted(yield* repo.nights(d("2027-04-01"), d("2027-04-05")))).toEqual([
        night(deluxe, "2027-04-01", 4),
        night(deluxe, "2027-04-02", 4)
      ])
    }))

  it.effect("bookings written over a night no longer as it was locked (a write without the lock) are a defect that changes nothing", () =>
    Effect.gen(function*() {
      const repo = yield* InventoryRepo
      const locked = yield* repo.lockNights([twin], d("2027-04-10"), d("2027-04-12"))
      const stale = afterChanges(locked, [{ roomTypeId: twin, rooms: 2, checkin: d("2027-04-10"), checkout: d("2027-04-12") }])
      yield* take(twin, 1, "2027-04-11", "2027-04-12")
      const lost = yield* Effect.exit(repo.writeBookings(stale))
      expect(Exit.isFailure(lost) && Cause.hasDies(lost.cause)).toBe(true)
      expect(sorted(yield* repo.nights(d("2027-04-10"), d("2027-04-12")))).toEqual([night(twin, "2027-04-11", 1)])
    }))

  it.effect("the channel's cells round-trip with their as_of to the millisecond; a recount writes booked_since and what the figure knows", () =>
    Effect.gen(function*() {
      const repo = yield* InventoryRepo
      const asOf = Date.parse("2027-01-05T09:30:00.123Z")
      yield* take(deluxe, 2, "2027-06-01", "2027-06-03")
      const all = cellsAt(asOf, {
        rooms_to_sell: 3,
        stop_sell: true,
        closed_to_arrival: false,
        closed_to_departure: true,
        min_stay: 2,
        max_stay: 30,
        base_rate: 15055 as Cents
      })
      yield* repo.lockRanges([{ roomTypeIds: [deluxe], checkin: d("2027-06-01"), checkout: d("2027-06-04") }])
      yield* repo.writeChannel([
        { room_type_id: deluxe, night: d("2027-06-01"), cells: all, recount: { knowledge: knowing(9_007_199_254_740_993n), booked_since: 1 } },
        // a cleared figure keeps its as_of; the other fields never set
        {
          room_type_id: deluxe,
          night: d("2027-06-02"),
          cells: { ...noCells, rooms_to_sell: { value: null, as_of: asOf + 1 }, stop_sell: { value: null, as_of: asOf } },
          recount: { knowledge: knowing(null, asOf - 300_000), booked_since: 2 }
        },
        // a night nobody booked
        { room_type_id: deluxe, night: d("2027-06-03"), cells: { ...noCells, min_stay: { value: 3, as_of: asOf } }, recount: undefined }
      ])
      expect(yield* stateOf(deluxe, "2027-06-01")).toMatchObject({
        booked: 2,
        booked_since: 1,
        cells: all,
        knowledge: knowing(9_007_199_254_740_993n)
      })
      expect(yield* stateOf(deluxe, "2027-06-02")).toMatchObject({
        booked: 2,
        booked_since: 2,
        cells: { ...noCells, rooms_to_sell: { value: null, as_of: asOf + 1 }, stop_sell: { value: null, as_of: asOf } },
        knowledge: knowing(null, asOf - 300_000)
      })
      // no figure, no knowledge
      expect(yield* stateOf(deluxe, "2027-06-03")).toMatchObject({
        booked: 0,
        booked_since: 0,
        cells: { ...noCells, min_stay: { value: 3, as_of: asOf } },
        knowledge: null
      })
      // no recount keeps the count and the knowledge; the cells are replaced whole
      yield* repo.writeChannel([{ room_type_id: deluxe, night: d("2027-06-01"), cells: { ...all, base_rate: { value: null, as_of: asOf + 5 } }, recount: undefined }])
      expect(yield* stateOf(deluxe, "2027-06-01")).toMatchObject({
        booked_since: 1,
        cells: { ...all, base_rate: { value: null, as_of: asOf + 5 } },
        knowledge: knowing(9_007_199_254_740_993n)
      })
      // the same through a locked read and the read of another statement
      const locked = yield* repo.lockNights([deluxe], d("2027-06-01"), d("2027-06-02"))
      const read = (yield* repo.nightsBetween(d("2027-06-01"), d("2027-06-02")))[0]!
      expect([locked[0]!.cells, locked[0]!.knowledge]).toEqual([read.cells, read.knowledge])
      // free rooms read the figure: min(5 - 2, 3 - 1) on the 1st
      expect((yield* freeRooms(d("2027-06-01"), d("2027-06-02"))).find((r) => r.room_type_id === deluxe)).toEqual({ room_type_id: deluxe, free: 2 })
    }))

  it.effect("take counts rooms as unknown to a night's figure (cleared or not), and never beyond rooms_to_sell", () =>
    Effect.gen(function*() {
      const repo = yield* InventoryRepo
      const asOf = Date.parse("2027-01-05T09:30:00Z")
      yield* repo.lockRanges([{ roomTypeIds: [twin], checkin: d("2027-06-10"), checkout: d("2027-06-13") }])
      yield* repo.writeChannel([
        { room_type_id: twin, night: d("2027-06-10"), cells: { ...noCells, rooms_to_sell: { value: 2, as_of: asOf } }, recount: { knowledge: knowing(5n), booked_since: 0 } },
        { room_type_id: twin, night: d("2027-06-11"), cells: { ...noCells, rooms_to_sell: { value: null, as_of: asOf } }, recount: { knowledge: knowing(5n), booked_since: 0 } }
      ])
      yield* take(twin, 2, "2027-06-10", "2027-06-13")
      expect((yield* stateOf(twin, "2027-06-10"))).toMatchObject({ booked: 2, booked_since: 2 })
      expect((yield* stateOf(twin, "2027-06-11"))).toMatchObject({ booked: 2, booked_since: 2 })
      expect((yield* stateOf(twin, "2027-06-12"))).toMatchObject({ booked: 2, booked_since: 0 })
      // the figure's 2 are taken: one more is a defect that changes nothing (in the service's transaction), though the file has 8
      const { atomically } = yield* Transactions
      const over = yield* Effect.exit(atomically(take(twin, 1, "2027-06-10", "2027-06-12")))
      expect(Exit.isFailure(over) && Cause.hasDies(over.cause)).toBe(true)
      expect((yield* stateOf(twin, "2027-06-10"))).toMatchObject({ booked: 2, booked_since: 2 })
      expect((yield* stateOf(twin, "2027-06-11"))).toMatchObject({ booked: 2, booked_since: 2 })
      // a cleared figure binds nothing
      yield* take(twin, 6, "2027-06-11", "2027-06-12")
      expect((yield* stateOf(twin, "2027-06-11"))).toMatchObject({ booked: 8, booked_since: 8 })
    }))

  it.effect("release gives back of booked_since what the caller says each night's figure did not count, never below 0 nor above booked", () =>
    Effect.gen(function*() {
      const repo = yield* InventoryRepo
      const asOf = Date.parse("2027-01-05T09:30:00.500Z")
      yield* take(double, 3, "2027-06-20", "2027-06-22")
      yield* repo.lockRanges([{ roomTypeIds: [double], checkin: d("2027-06-20"), checkout: d("2027-06-22") }])
      // the figures counted those 3
      const figure = { ...noCells, rooms_to_sell: { value: 4, as_of: asOf } }
      yield* repo.writeChannel([
        { room_type_id: double, night: d("2027-06-20"), cells: figure, recount: { knowledge: knowing(3n), booked_since: 0 } },
        { room_type_id: double, night: d("2027-06-21"), cells: figure, recount: { knowledge: knowing(3n), booked_since: 0 } }
      ])
      yield* take(double, 2, "2027-06-20", "2027-06-22")
      expect(yield* stateOf(double, "2027-06-20")).toMatchObject({ booked: 5, booked_since: 2 })
      // a room the figure counts: nothing back; an unknown one: back on the 21st only
      yield* releaseWith(double, 1, "2027-06-20", "2027-06-22", () => 0)
      expect(yield* stateOf(double, "2027-06-20")).toMatchObject({ booked: 4, booked_since: 2 })
      yield* releaseWith(double, 1, "2027-06-20", "2027-06-22", (night) => night === "2027-06-21" ? 1 : 0)
      expect(yield* stateOf(double, "2027-06-20")).toMatchObject({ booked: 3, booked_since: 2 })
      expect(yield* stateOf(double, "2027-06-21")).toMatchObject({ booked: 3, booked_since: 1 })
      // booked_since is never below 0, nor more than is booked
      yield* releaseWith(double, 1, "2027-06-20", "2027-06-22", () => 5)
      expect(yield* stateOf(double, "2027-06-21")).toMatchObject({ booked: 2, booked_since: 0 })
      expect(yield* stateOf(double, "2027-06-20")).toMatchObject({ booked: 2, booked_since: 0 })
      yield* repo.writeChannel([{ room_type_id: double, night: d("2027-06-20"), cells: figure, recount: { knowledge: knowing(3n), booked_since: 2 } }])
      yield* releaseWith(double, 2, "2027-06-20", "2027-06-21", () => 0)
      expect(yield* stateOf(double, "2027-06-20")).toMatchObject({ booked: 0, booked_since: 0 })
    }))

  it.effect("the holds of completed reservations between two dates, per reservation and room type", () =>
    Effect.gen(function*() {
      const reservationsRepo = yield* ReservationRepo
      const a = yield* completed(deluxe, 1, "2027-07-01", "2027-07-04")
      const b = yield* completed(twin, 3, "2027-06-30", "2027-07-02")
      yield* completed(deluxe, 2, "2027-07-05", "2027-07-06")
      const holds = (from: string, until: string) =>
        Effect.map(reservationsRepo.holdsBetween(d(from), d(until)), (rows) =>
          rows.filter((h) => h.reservation_id === a || h.reservation_id === b)
            .sort((x, y) => x.room_type_id.localeCompare(y.room_type_id)))
      expect(yield* holds("2027-07-01", "2027-07-05")).toEqual([
        { reservation_id: a, room_type_id: deluxe, rooms: 1, checkin: "2027-07-01", checkout: "2027-07-04" },
        { reservation_id: b, room_type_id: twin, rooms: 3, checkin: "2027-06-30", checkout: "2027-07-02" }
      ])
      // a stay that ends on the first date holds none of it
      expect(yield* holds("2027-07-02", "2027-07-03")).toEqual([
        { reservation_id: a, room_type_id: deluxe, rooms: 1, checkin: "2027-07-01", checkout: "2027-07-04" }
      ])
    }))
})
