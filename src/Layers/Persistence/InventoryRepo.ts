import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Ref, Schema } from "effect"
import { RoomTypeId } from "../../Domain/Ids.js"
import { LocalDate, nightsOf } from "../../Domain/LocalDate.js"
import { makeBatcher } from "./Batcher.js"
import * as Tracing from "../Platform/Tracing.js"

export const FreeRooms = Schema.Struct({
  room_type_id: RoomTypeId,
  /** Rooms free on every night of the range. */
  free: Schema.Int
})
export type FreeRooms = typeof FreeRooms.Type

export const BookedNight = Schema.Struct({
  room_type_id: RoomTypeId,
  night: LocalDate,
  booked: Schema.Int
})
export type BookedNight = typeof BookedNight.Type

/** Nights of some room types: from `checkin` up to `checkout`. */
export interface NightRange {
  readonly roomTypeIds: ReadonlyArray<RoomTypeId>
  readonly checkin: LocalDate
  readonly checkout: LocalDate
}

/** Rooms per room type, and how many are held by reservations on each night. */
export class InventoryRepo extends Context.Tag("InventoryRepo")<InventoryRepo, {
  /** Per room type, the rooms free on every night from `checkin` up to `checkout`. */
  readonly freeRooms: (checkin: LocalDate, checkout: LocalDate) => Effect.Effect<ReadonlyArray<FreeRooms>>
  /** The nights from `checkin` up to `checkout` on which rooms are held, per room type. */
  readonly bookedNights: (checkin: LocalDate, checkout: LocalDate) => Effect.Effect<ReadonlyArray<BookedNight>>
  /**
   * Inside a transaction: locks the nights of these room types in one fixed order (room type,
   * then night), so concurrent bookings queue instead of deadlocking, and answers their counts.
   */
  readonly lockNights: (
    roomTypeIds: ReadonlyArray<RoomTypeId>,
    checkin: LocalDate,
    checkout: LocalDate
  ) => Effect.Effect<ReadonlyArray<BookedNight>>
  /**
   * `lockNights` for several ranges at once (a stay change: the nights it gives back and those it
   * takes): their union, in the same fixed order, each row once.
   */
  readonly lockRanges: (ranges: ReadonlyArray<NightRange>) => Effect.Effect<ReadonlyArray<BookedNight>>
  /** Inside the same transaction: holds `rooms` more rooms of a type on every night of the stay. */
  readonly take: (roomTypeId: RoomTypeId, rooms: number, checkin: LocalDate, checkout: LocalDate) => Effect.Effect<void>
  /** Inside the transaction that locked them: gives `rooms` rooms of a type back on every night of the stay. */
  readonly release: (roomTypeId: RoomTypeId, rooms: number, checkin: LocalDate, checkout: LocalDate) => Effect.Effect<void>
}>() {
  static readonly Default = Layer.scoped(
    InventoryRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const findFree = SqlSchema.findAll({
        Request: Schema.Struct({ checkin: LocalDate, checkout: LocalDate }),
        Result: FreeRooms,
        execute: ({ checkin, checkout }) => sql`
          SELECT rt.id AS room_type_id, greatest(rt.inventory - coalesce(max(n.booked), 0), 0)::int AS free
          FROM room_types rt
          LEFT JOIN inventory_nights n
            ON n.room_type_id = rt.id AND n.night >= ${checkin}::date AND n.night < ${checkout}::date
          GROUP BY rt.id, rt.inventory, rt.position
          ORDER BY rt.position`
      })
      const findBooked = SqlSchema.findAll({
        Request: Schema.Struct({ from: LocalDate, until: LocalDate }),
        Result: BookedNight,
        execute: ({ from, until }) => sql`
          SELECT room_type_id, night, booked FROM inventory_nights
          WHERE night >= ${from}::date AND night < ${until}::date AND booked > 0`
      })
      // Quotes read bookings on every call: the reads waiting at one moment share one query over
      // the span of all their stays, and each takes its own nights from it.
      const bookedInRanges = yield* makeBatcher(
        (ranges: ReadonlyArray<{ readonly checkin: LocalDate; readonly checkout: LocalDate }>) =>
          findBooked({
            from: ranges.reduce((min, r) => r.checkin < min ? r.checkin : min, ranges[0]!.checkin),
            until: ranges.reduce((max, r) => r.checkout > max ? r.checkout : max, ranges[0]!.checkout)
          }).pipe(
            Effect.map((rows) => ranges.map((r) => rows.filter((row) => row.night >= r.checkin && row.night < r.checkout))),
            Effect.orDie,
            Tracing.withSpan("InventoryRepo.bookedNightsBatch", { attributes: { ranges: ranges.length } })
          ),
        { maxBatch: 100, concurrency: 1 }
      )
      const lockRanges = (ranges: ReadonlyArray<NightRange>) =>
        Effect.gen(function*() {
          const wanted = ranges.filter((range) => range.roomTypeIds.length > 0)
          if (wanted.length === 0) return []
          const inRange = (range: NightRange) =>
            sql`(room_type_id IN ${sql.in(range.roomTypeIds)} AND night >= ${range.checkin}::date AND night < ${range.checkout}::date)`
          // rows are created on first use, in the same order as they are locked
          yield* sql`
            INSERT INTO inventory_nights (room_type_id, night)
            SELECT room_type_id, night FROM (${
            sql.join(" UNION ", false)(wanted.map((range) =>
              sql`
                SELECT rt.id AS room_type_id, d::date AS night FROM room_types rt
                CROSS JOIN generate_series(${range.checkin}::date, ${range.checkout}::date - 1, interval '1 day') AS d
                WHERE rt.id IN ${sql.in(range.roomTypeIds)}`
            ))
          }) AS wanted
            ORDER BY room_type_id, night
            ON CONFLICT DO NOTHING`
          const rows = yield* sql`
            SELECT room_type_id, night, booked FROM inventory_nights
            WHERE ${sql.or(wanted.map(inRange))}
            ORDER BY room_type_id, night
            FOR UPDATE`
          return yield* Schema.decodeUnknown(Schema.Array(BookedNight))(rows)
        }).pipe(Effect.orDie, Tracing.withSpan("InventoryRepo.lockNights", { attributes: { ranges: ranges.length } }))
      const take = (roomTypeId: RoomTypeId, rooms: number, checkin: LocalDate, checkout: LocalDate) =>
        Effect.gen(function*() {
          // the capacity check is the service's; this one only guards against a bug ever overbooking
          const updated = yield* sql`
            UPDATE inventory_nights n SET booked = n.booked + ${rooms}
            FROM room_types rt
            WHERE rt.id = n.room_type_id AND n.room_type_id = ${roomTypeId}
              AND n.night >= ${checkin}::date AND n.night < ${checkout}::date
              AND n.booked + ${rooms} <= rt.inventory
            RETURNING n.night`
          const nights = nightsOf(checkin, checkout).length
          if (updated.length !== nights) {
            return yield* Effect.dieMessage(`taking ${rooms} ${roomTypeId} would overbook: ${updated.length} of ${nights} nights fit`)
          }
        }).pipe(Effect.orDie, Tracing.withSpan("InventoryRepo.take", { attributes: { roomTypeId, rooms, checkin, checkout } }))
      const release = (roomTypeId: RoomTypeId, rooms: number, checkin: LocalDate, checkout: LocalDate) =>
        Effect.gen(function*() {
          const updated = yield* sql`
            UPDATE inventory_nights SET booked = booked - ${rooms}
            WHERE room_type_id = ${roomTypeId} AND night >= ${checkin}::date AND night < ${checkout}::date
              AND booked >= ${rooms}
            RETURNING night`
          const nights = nightsOf(checkin, checkout).length
          if (updated.length !== nights) {
            return yield* Effect.dieMessage(`releasing ${rooms} ${roomTypeId} would give back rooms never taken: ${updated.length} of ${nights} nights`)
          }
        }).pipe(Effect.orDie, Tracing.withSpan("InventoryRepo.release", { attributes: { roomTypeId, rooms, checkin, checkout } }))
      return {
        lockNights: (roomTypeIds, checkin, checkout) => lockRanges([{ roomTypeIds, checkin, checkout }]),
        lockRanges,
        take,
        release,
        freeRooms: (checkin, checkout) =>
          findFree({ checkin, checkout }).pipe(
            Effect.orDie,
            Tracing.withSpan("InventoryRepo.freeRooms", { attributes: { checkin, checkout } })
          ),
        bookedNights: (checkin, checkout) =>
          bookedInRanges({ checkin, checkout }).pipe(
            Tracing.withSpan("InventoryRepo.bookedNights", { attributes: { checkin, checkout } })
          )
      }
    })
  )

  /** Inventory in memory: `inventory` rooms per type, `booked` rooms per type and night. */
  static readonly InMemory = (
    inventory: Readonly<Record<string, number>>,
    booked: Readonly<Record<string, Readonly<Record<string, number>>>> = {}
  ) =>
    Layer.effect(
      InventoryRepo,
      Effect.gen(function*() {
        const state = yield* Ref.make(booked)
        const inRange = (checkin: LocalDate, checkout: LocalDate) => {
          const nights = new Set<string>(nightsOf(checkin, checkout))
          return Effect.map(Ref.get(state), (bookedByType) =>
            Object.entries(bookedByType).flatMap(([roomTypeId, byNight]) =>
              Object.entries(byNight)
                .filter(([night, count]) => nights.has(night) && count > 0)
                .map(([night, count]) => ({ room_type_id: roomTypeId as RoomTypeId, night: night as LocalDate, booked: count }))
            ))
        }
        /** Adds `rooms` (taken) or removes them (released) on every night; never beyond the inventory or below zero. */
        const hold = (roomTypeId: RoomTypeId, rooms: number, checkin: LocalDate, checkout: LocalDate) =>
          Effect.flatMap(Ref.get(state), (bookedByType) => {
            const byNight = { ...bookedByType[roomTypeId] }
            for (const night of nightsOf(checkin, checkout)) byNight[night] = (byNight[night] ?? 0) + rooms
            return Object.values(byNight).some((n) => n > (inventory[roomTypeId] ?? 0) || n < 0)
              ? Effect.dieMessage(`holding ${rooms} more ${roomTypeId} would overbook or free rooms never taken`)
              : Ref.set(state, { ...bookedByType, [roomTypeId]: byNight })
          })
        // every night of each range, booked or not, once, in the order PostgreSQL locks them
        const lockRanges = (ranges: ReadonlyArray<NightRange>) =>
          Effect.map(Ref.get(state), (bookedByType) => {
            const keys = new Set(ranges.flatMap((range) =>
              range.roomTypeIds.flatMap((roomTypeId) => nightsOf(range.checkin, range.checkout).map((night) => `${roomTypeId}\u0000${night}`))
            ))
            return [...keys].sort().map((key) => {
              const [roomTypeId, night] = key.split("\u0000") as [RoomTypeId, LocalDate]
              return { room_type_id: roomTypeId, night, booked: bookedByType[roomTypeId]?.[night] ?? 0 }
            })
          })
        return {
          bookedNights: inRange,
          lockNights: (roomTypeIds, checkin, checkout) => lockRanges([{ roomTypeIds, checkin, checkout }]),
          lockRanges,
          take: (roomTypeId, rooms, checkin, checkout) => hold(roomTypeId, rooms, checkin, checkout),
          release: (roomTypeId, rooms, checkin, checkout) => hold(roomTypeId, -rooms, checkin, checkout),
          freeRooms: (checkin, checkout) =>
            Effect.map(inRange(checkin, checkout), (nights) =>
              Object.entries(inventory).map(([roomTypeId, rooms]) => ({
                room_type_id: roomTypeId as RoomTypeId,
                free: Math.max(0, rooms - Math.max(0, ...nights.filter((n) => n.room_type_id === roomTypeId).map((n) => n.booked)))
              })))
        }
      })
    )
}
