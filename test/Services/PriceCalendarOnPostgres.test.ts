import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { NodeServices } from "@effect/platform-node"
import { SqlClient } from "effect/sql"
import { expect, layer } from "@effect/vitest"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Layer } from "effect"
import * as path from "node:path"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import { HotelRepo } from "../../src/Layers/Persistence/HotelRepo.js"
import { ChannelMessageRepo } from "../../src/Layers/Persistence/ChannelMessageRepo.js"
import { InventoryRepo } from "../../src/Layers/Persistence/InventoryRepo.js"
import { ReservationRepo } from "../../src/Layers/Persistence/ReservationRepo.js"
import { MigrationsLive } from "../../src/Layers/Persistence/Migrations.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { HotelCatalog } from "../../src/Services/HotelCatalog.js"
import { PriceCalendar } from "../../src/Services/PriceCalendar.js"
import { makeTestClock } from "../support/clock.js"
import { TestDatabase } from "../support/database.js"

const spans = new InMemorySpanExporter()
const clock = makeTestClock("2026-11-22T10:00:00Z")
const Config = Layer.merge(AppConfig.InMemory({ hotelFile: path.resolve("data/hotel.json") }), NodeServices.layer)
const CalendarOnPostgres = PriceCalendar.layer.pipe(
  Layer.provideMerge(HotelCatalog.layer),
  Layer.provideMerge(Layer.mergeAll(HotelRepo.layer, InventoryRepo.layer, ChannelMessageRepo.layer, ReservationRepo.layer)),
  Layer.provideMerge(MigrationsLive),
  Layer.provideMerge(TestDatabase),
  Layer.provideMerge(Config),
  Layer.provideMerge(NodeSdk.layer(() => ({ resource: { serviceName: "test" }, spanProcessor: new SimpleSpanProcessor(spans) }))),
  // the services run on the tests' fibers, which read the clock from the layer's context: merged, not only provided
  Layer.provideMerge(clock.layer)
)

const d = (s: string) => s as LocalDate
const query = { nights: 3, adults: 2, children_ages: [] }

layer(CalendarOnPostgres, { excludeTestServices: true, timeout: 60_000 })("price calendar on PostgreSQL", (it) => {
  it.effect("62 dates read their bookings in one SQL statement, and sold-out nights show", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const calendar = yield* PriceCalendar
      // every room held on 2027-01-20; doubles only on 2027-02-10
      yield* sql`INSERT INTO inventory_nights (room_type_id, night, booked)
        VALUES ('double', '2027-01-20', 12), ('twin', '2027-01-20', 8), ('deluxe', '2027-01-20', 5), ('double', '2027-02-10', 12)`
      // the hotel is read once per few seconds: read it before counting
      yield* calendar.calendar({ ...query, from: d("2027-01-01"), to: d("2027-01-01") })
      spans.reset()
      const answer = yield* calendar.calendar({ ...query, from: d("2027-01-01"), to: d("2027-03-03") })
      expect(spans.getFinishedSpans().filter((s) => s.name === "sql.execute")).toHaveLength(1)
      expect(answer.days).toHaveLength(62)
      const byDate = new Map(answer.days.map((day) => [day.checkin, day]))
      // stays over 2027-01-20 (arrivals 18th to 20th) are sold out; 2027-02-10 leaves twins
      expect(["2027-01-17", "2027-01-18", "2027-01-19", "2027-01-20", "2027-01-21"].map((c) => byDate.get(d(c))!.reason))
        .toEqual([null, "sold_out", "sold_out", "sold_out", null])
      expect(byDate.get(d("2027-02-09"))!.room_type_id).toBe("twin" as RoomTypeId)
      expect(byDate.get(d("2027-02-11"))!.room_type_id).toBe("double" as RoomTypeId)
    }))

  it.effect("dates none of which may be booked read nothing", () =>
    Effect.gen(function*() {
      const calendar = yield* PriceCalendar
      spans.reset()
      const answer = yield* calendar.calendar({ ...query, from: d("2026-10-01"), to: d("2026-11-21") })
      expect(answer.days.every((day) => day.reason === "past")).toBe(true)
      expect(spans.getFinishedSpans().filter((s) => s.name === "sql.execute")).toHaveLength(0)
    }))
})
