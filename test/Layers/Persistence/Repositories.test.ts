import { NodeServices } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as path from "node:path"
import type { LocalDate } from "../../../src/Domain/LocalDate.js"
import { DatabasePing } from "../../../src/Layers/Persistence/Database.js"
import { HotelRepo } from "../../../src/Layers/Persistence/HotelRepo.js"
import { InventoryRepo } from "../../../src/Layers/Persistence/InventoryRepo.js"
import { MigrationsLive } from "../../../src/Layers/Persistence/Migrations.js"
import { migrations } from "../../../src/Layers/Persistence/migrations/index.js"
import { AppConfig } from "../../../src/Layers/Platform/AppConfig.js"
import { TestDatabase } from "../../support/database.js"
import { demoHotel, freeRooms } from "../../support/hotel.js"

const Config = Layer.merge(AppConfig.InMemory({ hotelFile: path.resolve("data/hotel.json") }), NodeServices.layer)
const Migrated = MigrationsLive.pipe(Layer.provide(Config))
const Repositories = Layer.mergeAll(HotelRepo.layer, InventoryRepo.layer, DatabasePing.layer).pipe(
  Layer.provideMerge(Migrated),
  Layer.provideMerge(TestDatabase),
  Layer.provideMerge(Config)
)

const d = (s: string) => s as LocalDate

layer(Repositories, { timeout: 60_000 })("repositories on PostgreSQL", (it) => {
  it.effect("an empty database gets the hotel file imported at start", () =>
    Effect.gen(function*() {
      const repo = yield* HotelRepo
      expect(yield* repo.needsImport).toBe(false)
      expect(yield* repo.load).toEqual(demoHotel)
      const sql = yield* SqlClient.SqlClient
      const rooms = yield* sql<{ id: string; inventory: number }>`SELECT id, inventory FROM room_types ORDER BY position`
      expect(rooms).toEqual([{ id: "double", inventory: 12 }, { id: "twin", inventory: 8 }, { id: "deluxe", inventory: 5 }])
    }))

  it.effect("a hotel stored in an older format (texts without languages) is imported again at start", () =>
    Effect.gen(function*() {
      const repo = yield* HotelRepo
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ definition: { description: { en: string } } }>`SELECT definition FROM hotel`
      const old = { ...row.definition, description: row.definition.description.en }
      yield* sql`UPDATE hotel SET definition = ${JSON.stringify(old)}::jsonb`
      expect(yield* repo.needsImport).toBe(true)
      yield* Layer.build(Layer.fresh(MigrationsLive).pipe(Layer.provide(Config))).pipe(Effect.scoped)
      expect(yield* repo.needsImport).toBe(false)
      expect(yield* repo.load).toEqual(demoHotel)
    }))

  it.effect("migrating again, even from several instances at once, changes nothing", () =>
    Effect.gen(function*() {
      yield* Effect.all(
        Array.from({ length: 3 }, () => Layer.build(Layer.fresh(MigrationsLive).pipe(Layer.provide(Config)))),
        { concurrency: "unbounded" }
      ).pipe(Effect.scoped)
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM effect_sql_migrations`
      expect(row.n).toBe((yield* migrations).length)
      expect(yield* (yield* HotelRepo).load).toEqual(demoHotel)
    }))

  it.effect("re-importing replaces inventory counts and keeps bookings", () =>
    Effect.gen(function*() {
      const repo = yield* HotelRepo
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO inventory_nights (room_type_id, night, booked) VALUES ('twin', '2027-05-01', 2)`
      const bigger = { ...demoHotel, room_types: demoHotel.room_types.map((r) => r.id === "twin" ? { ...r, inventory: 9 } : r) }
      yield* repo.replace(bigger)
      expect((yield* repo.load).room_types[1].inventory).toBe(9)
      const [night] = yield* sql<{ booked: number; night: string }>`SELECT booked, night FROM inventory_nights WHERE room_type_id = 'twin'`
      expect(night).toEqual({ booked: 2, night: "2027-05-01" })
      yield* repo.replace(demoHotel)
      yield* sql`DELETE FROM inventory_nights`
    }))

  it.effect("free rooms are the inventory minus the busiest night of the range", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`
        INSERT INTO inventory_nights (room_type_id, night, booked)
        VALUES ('double', '2027-06-01', 3), ('double', '2027-06-02', 7), ('deluxe', '2027-06-03', 5)`
      expect(yield* freeRooms(d("2027-06-01"), d("2027-06-03"))).toEqual([
        { room_type_id: "double", free: 5 },
        { room_type_id: "twin", free: 8 },
        { room_type_id: "deluxe", free: 5 }
      ])
      // check-out day is not a night of the stay
      expect((yield* freeRooms(d("2027-06-02"), d("2027-06-03")))[0].free).toBe(5)
      expect((yield* freeRooms(d("2027-06-03"), d("2027-06-04")))[2].free).toBe(0)
      expect((yield* freeRooms(d("2027-06-04"), d("2027-06-05")))[0].free).toBe(12)
      yield* sql`DELETE FROM inventory_nights`
    }))

  it.effect("the database answers the health ping", () =>
    Effect.gen(function*() {
      yield* yield* DatabasePing
    }))

  it.effect("the nights between two dates are read through their index on the night, not a scan of every night ever written", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // four years of every room type's nights, as a hotel's history and the channel's figures leave them
      yield* sql`
        INSERT INTO inventory_nights (room_type_id, night)
        SELECT rt.id, d::date FROM room_types rt CROSS JOIN generate_series('2024-01-01'::date, '2027-12-31'::date, interval '1 day') AS d
        ON CONFLICT DO NOTHING`
      yield* sql`ANALYZE inventory_nights`
      // the read of InventoryRepo.nights and nightsBetween
      const plan = yield* sql<{ "QUERY PLAN": string }>`
        EXPLAIN SELECT * FROM inventory_nights WHERE night >= ${d("2027-03-12")}::date AND night < ${d("2027-03-15")}::date`
      const text = plan.map((line) => line["QUERY PLAN"]).join("\n")
      expect(text).toContain("inventory_nights_night")
      expect(text).not.toContain("Seq Scan")
      const nights = yield* (yield* InventoryRepo).nightsBetween(d("2027-03-12"), d("2027-03-15"))
      expect(nights.length).toBe(3 * 3)
    }))
})
