import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Ref, Schema } from "effect"
import { RoomTypeId } from "../Domain/Ids.js"
import { LocalDate, nightsOf } from "../Domain/LocalDate.js"

export const FreeRooms = Schema.Struct({
  room_type_id: RoomTypeId,
  /** Rooms free on every night of the range. */
  free: Schema.Int
})
export type FreeRooms = typeof FreeRooms.Type

/** Rooms per room type, and how many are held by reservations on each night. */
export class InventoryRepo extends Context.Tag("InventoryRepo")<InventoryRepo, {
  /** Per room type, the rooms free on every night from `checkin` up to `checkout`. */
  readonly freeRooms: (checkin: LocalDate, checkout: LocalDate) => Effect.Effect<ReadonlyArray<FreeRooms>>
}>() {
  static readonly Live = Layer.effect(
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
      return {
        freeRooms: (checkin, checkout) =>
          findFree({ checkin, checkout }).pipe(
            Effect.orDie,
            Effect.withSpan("InventoryRepo.freeRooms", { attributes: { checkin, checkout } })
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
        return {
          freeRooms: (checkin, checkout) =>
            Ref.get(state).pipe(Effect.map((bookedByType) =>
              Object.entries(inventory).map(([roomTypeId, rooms]) => ({
                room_type_id: roomTypeId as RoomTypeId,
                free: Math.max(
                  0,
                  rooms - Math.max(0, ...nightsOf(checkin, checkout).map((night) => bookedByType[roomTypeId]?.[night] ?? 0))
                )
              }))
            ))
        }
      })
    )
}
