import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { NodeServices } from "@effect/platform-node"
import { SqlClient } from "effect/sql"
import { expect, layer } from "@effect/vitest"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Layer, Option } from "effect"
import * as path from "node:path"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import { HotelRepo } from "../../src/Layers/Persistence/HotelRepo.js"
import { ChannelMessageRepo } from "../../src/Layers/Persistence/ChannelMessageRepo.js"
import { InventoryRepo } from "../../src/Layers/Persistence/InventoryRepo.js"
import { MigrationsLive } from "../../src/Layers/Persistence/Migrations.js"
import { QuoteRepo } from "../../src/Layers/Persistence/QuoteRepo.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { ReservationRepo } from "../../src/Layers/Persistence/ReservationRepo.js"
import { HotelCatalog } from "../../src/Services/HotelCatalog.js"
import { Quotes } from "../../src/Services/Quotes.js"
import { makeTestClock } from "../support/clock.js"
import { TestDatabase } from "../support/database.js"

const spans = new InMemorySpanExporter()
const clock = makeTestClock("2026-11-22T10:00:00Z")
const Config = Layer.merge(AppConfig.InMemory({ hotelFile: path.resolve("data/hotel.json") }), NodeServices.layer)
const QuotesOnPostgres = Quotes.layer.pipe(
  Layer.provideMerge(HotelCatalog.layer),
  Layer.provideMerge(Layer.mergeAll(HotelRepo.layer, InventoryRepo.layer, ChannelMessageRepo.layer, QuoteRepo.layer, ReservationRepo.layer)),
  Layer.provideMerge(MigrationsLive),
  Layer.provideMerge(TestDatabase),
  Layer.provideMerge(Config),
  Layer.provideMerge(NodeSdk.layer(() => ({ resource: { serviceName: "test" }, spanProcessor: new SimpleSpanProcessor(spans) }))),
  // the services run on the tests' fibers, which read the clock from the layer's context: merged, not only provided
  Layer.provideMerge(clock.layer)
)

const d = (s: string) => s as LocalDate

layer(QuotesOnPostgres, { excludeTestServices: true, timeout: 60_000 })("quotes on PostgreSQL", (it) => {
  it.effect("a quote is stored and read back exactly, analytics headers included", () =>
    Effect.gen(function*() {
      const quotes = yield* Quotes
      const client = { client: "web", ai_agent: null, session: "abc" }
      const quote = yield* quotes.quoteRooms({
        session_id: "s-1",
        checkin: d("2026-12-10"),
        checkout: d("2026-12-13"),
        rooms: [{ room_type_id: "double" as RoomTypeId, quantity: 2, adults: 2, children_ages: [1] }]
      }, client)
      expect(Option.getOrThrow(yield* (yield* QuoteRepo).find(quote.quote_id))).toEqual({ response: quote, client })
    }))

  it.effect("reads bookings live and uses a constant number of SQL round trips, whatever the size", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const quotes = yield* Quotes
      yield* sql`INSERT INTO inventory_nights (room_type_id, night, booked) VALUES ('double', '2027-01-05', 10)`
      const roundTrips = Effect.fn(function*(rooms: number, nights: number) {
        spans.reset()
        const quote = yield* quotes.quoteRooms({
          checkin: d("2027-01-04"),
          checkout: d(new Date(Date.UTC(2027, 0, 4 + nights)).toISOString().slice(0, 10)),
          rooms: Array.from({ length: rooms }, (_, i) => ({
            room_type_id: (["double", "twin", "deluxe"] as const)[i % 3] as RoomTypeId,
            quantity: 1,
            adults: 1,
            children_ages: []
          }))
        }, { client: null, ai_agent: null, session: null })
        return { quote, queries: spans.getFinishedSpans().filter((s) => s.name === "sql.execute").length }
      })
      const small = yield* roundTrips(1, 1)
      const large = yield* roundTrips(20, 30)
      expect(small.queries).toBeGreaterThan(0)
      expect(large.queries).toBe(small.queries)
      // 20 rooms need 7 doubles (10 of 12 are held on 2027-01-05), 7 twins (8) and 6 deluxes (5)
      expect(large.quote.status).toBe("unavailable")
      expect(new Set(large.quote.unavailable_rooms.map((r) => `${r.room_type_id} ${r.reason}`))).toEqual(
        new Set(["double sold_out", "deluxe sold_out"])
      )
      // 10 of 12 doubles held (83 %): that night costs 10 % more (base 110 -> 121)
      const double = yield* quotes.quoteRooms({
        checkin: d("2027-01-05"),
        checkout: d("2027-01-06"),
        rooms: [{ room_type_id: "double" as RoomTypeId, quantity: 1, adults: 1, children_ages: [] }]
      }, { client: null, ai_agent: null, session: null })
      expect(double.package_offers[0].price.room_total).toBe(12100)
    }))

  it.effect("quotes skip the commit flush for their own statement only: every connection stays durable", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const quotes = yield* Quotes
      const stored = yield* Effect.all(
        Array.from({ length: 8 }, () =>
          quotes.quoteRooms({
            checkin: d("2027-02-01"),
            checkout: d("2027-02-03"),
            rooms: [{ room_type_id: "twin" as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }]
          }, { client: null, ai_agent: null, session: null })),
        { concurrency: "unbounded" }
      )
      for (const quote of stored) expect(Option.isSome(yield* (yield* QuoteRepo).find(quote.quote_id))).toBe(true)
      // held at once, the queries spread over every pooled connection, the ones that stored quotes included
      const settings = yield* Effect.all(
        Array.from({ length: 10 }, () => sql<{ readonly setting: string }>`SELECT current_setting('synchronous_commit') AS setting, pg_sleep(0.05)`),
        { concurrency: "unbounded" }
      )
      expect(settings.map(([row]) => row?.setting)).toEqual(Array(10).fill("on"))
    }))

  it.effect("a quote PostgreSQL refuses fails alone: the 49 stored in the same moment are kept", () =>
    Effect.gen(function*() {
      const quotes = yield* Quotes
      const repo = yield* QuoteRepo
      const quote = yield* quotes.quoteRooms({
        checkin: d("2026-12-20"),
        checkout: d("2026-12-21"),
        rooms: [{ room_type_id: "twin" as RoomTypeId, quantity: 1, adults: 1, children_ages: [] }]
      }, { client: null, ai_agent: null, session: null })
      // 50 stores at once, one of them with a NUL character the API's schemas would have refused
      const copies = Array.from({ length: 50 }, (_, i) => ({
        response: { ...quote, quote_id: `${quote.quote_id}-${i}` as typeof quote.quote_id, session_id: i === 17 ? "poison\u0000" : `s-${i}` },
        client: { client: null, ai_agent: null, session: null }
      }))
      const exits = yield* Effect.all(copies.map((copy) => Effect.exit(repo.insert(copy))), { concurrency: "unbounded" })
      expect(exits.map((exit) => exit._tag)).toEqual(copies.map((_, i) => i === 17 ? "Failure" : "Success"))
      const stored = yield* Effect.forEach(copies, (copy) => repo.find(copy.response.quote_id))
      expect(stored.filter(Option.isSome)).toHaveLength(49)
    }))
})
