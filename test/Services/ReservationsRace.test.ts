import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as path from "node:path"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import { addDays, type LocalDate } from "../../src/Domain/LocalDate.js"
import { AppSecret } from "../../src/Layers/Platform/AppSecret.js"
import { Repositories, Services } from "../../src/Composition.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { Quotes } from "../../src/Services/Quotes.js"
import { ReservationManagement } from "../../src/Services/ReservationManagement.js"
import { Reservations } from "../../src/Services/Reservations.js"
import { Tokens } from "../../src/Services/Tokens.js"
import { makeTestClock } from "../support/clock.js"
import { poolOn, testDatabaseUrl } from "../support/database.js"
import { tokenOf } from "../support/flow.js"

const clock = makeTestClock("2026-11-22T10:00:00Z")
const Config = Layer.mergeAll(AppConfig.InMemory({ hotelFile: path.resolve("data/hotel.json") }), NodeContext.layer, AppSecret.InMemory)

/** One service instance on a pool of its own. */
const instance = <E, R>(pool: Layer.Layer<SqlClient.SqlClient, E, R>) =>
  Services.pipe(Layer.provideMerge(Repositories), Layer.provideMerge(pool), Layer.provide(Config), Layer.provide(clock.layer))

/**
 * Two instances of the service on one PostgreSQL, as two processes would be, each with its own pool.
 */
class Instances extends Effect.Service<Instances>()("test/Instances", {
  scoped: Effect.gen(function*() {
    const url = yield* testDatabaseUrl
    const [a, b] = yield* Effect.all([Layer.build(instance(poolOn(url))), Layer.build(instance(poolOn(url)))])
    return { a, b }
  })
}) {}

const guest = { first_name: "Race", last_name: "Guest", email: "race@example.com", phone: "+33 6 00 00 00 00", accept_terms: true, terms_version: "2026-11" }
const client = { client: "race-test", ai_agent: null, session: null }
/** A pending reservation of one room on the FLEX rate for two adults: its guest token and quoted total. */
const pendingFlexRoom = (roomTypeId: string, checkin: LocalDate, checkout: LocalDate) =>
  Effect.gen(function*() {
    const quote = yield* (yield* Quotes).quoteRooms({
      checkin,
      checkout,
      rooms: [{ room_type_id: roomTypeId as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }]
    }, client)
    const offer = quote.package_offers.find((o) => o.rate_code === "FLEX")!
    const { response } = yield* (yield* Reservations).createIntent(
      { quote_id: quote.quote_id, package_code: offer.package_code, language: "en" },
      client,
      undefined
    )
    return { token: tokenOf(response.continue_url), total: offer.price.total }
  })

/** Each guest on an address of their own: the booking limit per address stays out of the races on rooms. */
const addressOf = (i: number) => `198.51.100.${i}`

layer(Instances.Default, { excludeTestServices: true, timeout: 120_000 })("no overbooking, no room given back twice", (it) => {
  it.effect("20 guests completing at once for the last 5 rooms, on two instances: exactly 5 succeed", () =>
    Effect.gen(function*() {
      const { a, b } = yield* Instances
      const onA = <X, E>(effect: Effect.Effect<X, E, Quotes | Reservations | SqlClient.SqlClient>) => Effect.provide(effect, a)
      const checkin = "2027-01-20" as LocalDate
      const checkout = "2027-01-22" as LocalDate
      // 20 pending reservations of one deluxe room each, the hotel has 5
      const pending = yield* Effect.forEach(Array.from({ length: 20 }), () =>
        onA(pendingFlexRoom("deluxe", checkin, checkout)))
      // each guest completes; a guest told the price changed confirms the new total once
      const outcomes = yield* Effect.forEach(pending, ({ token, total }, i) =>
        Effect.provide(
          Effect.flatMap(Reservations, (reservations) =>
            reservations.complete(token, { ...guest, expected_total: total }, addressOf(i)).pipe(
              Effect.catchTag("PriceChanged", (e) => reservations.complete(token, { ...guest, expected_total: e.new_total }, addressOf(i)))
            )),
          i % 2 === 0 ? a : b
        ).pipe(
          Effect.map(() => "completed"),
          Effect.catchTag("AvailabilityChanged", () => Effect.succeed("availability_changed")),
          Effect.catchTag("PriceChanged", () => Effect.succeed("price_changed_twice"))
        ), { concurrency: "unbounded" })
      expect(outcomes.filter((o) => o === "completed")).toHaveLength(5)
      expect(outcomes.filter((o) => o === "availability_changed")).toHaveLength(15)

      const rows = yield* onA(Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.all({
        nights: sql<{ night: string; booked: number }>`
          SELECT night, booked FROM inventory_nights WHERE room_type_id = 'deluxe' ORDER BY night`,
        completed: sql<{ n: number }>`SELECT count(*)::int AS n FROM reservations WHERE status = 'GUEST_COMPLETED'`
      })))
      expect(rows.nights).toEqual([{ night: "2027-01-20", booked: 5 }, { night: "2027-01-21", booked: 5 }])
      expect(rows.completed[0].n).toBe(5)
    }))

  it.effect("25 completions at once from one client address, on two instances: exactly BOOKING_LIMIT_PER_HOUR (10) pass", () =>
    Effect.gen(function*() {
      const { a, b } = yield* Instances
      const address = "203.0.113.9"
      // 26 pending reservations of one double room, each on a night of its own: no two wait for the same rooms
      const [last, ...pending] = yield* Effect.forEach(Array.from({ length: 26 }, (_, i) => i), (i) =>
        Effect.provide(pendingFlexRoom("double", addDays("2027-03-01" as LocalDate, i), addDays("2027-03-01" as LocalDate, i + 1)), a))
      const outcomes = yield* Effect.forEach(pending, ({ token, total }, i) =>
        Effect.provide(
          Effect.flatMap(Reservations, (reservations) => reservations.complete(token, { ...guest, expected_total: total }, address)),
          i % 2 === 0 ? a : b
        ).pipe(
          Effect.map(() => "completed"),
          Effect.catchTag("RateLimited", (e) => Effect.succeed(`rate_limited ${e.retry_after_seconds} s`))
        ), { concurrency: "unbounded" })
      expect(outcomes.filter((o) => o === "completed")).toHaveLength(10)
      // every counted completion was made at this same instant: one more fits in an hour
      expect(outcomes.filter((o) => o === "rate_limited 3600 s")).toHaveLength(15)

      const counted = yield* Effect.provide(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM completions_by_address WHERE client_address = ${address}`), a)
      expect(counted[0]!.n).toBe(10)
      // another address is not held back by this one's limit
      const other = yield* Effect.provide(
        Effect.flatMap(Reservations, (reservations) => reservations.complete(last!.token, { ...guest, expected_total: last!.total }, "203.0.113.10")),
        b
      )
      expect(other.status).toBe("GUEST_COMPLETED")
    }))

  it.effect("10 cancellations of one reservation at once, on two instances: one cancels, the rooms come back once", () =>
    Effect.gen(function*() {
      const { a, b } = yield* Instances
      const checkin = "2027-02-10" as LocalDate
      const checkout = "2027-02-12" as LocalDate
      const { id, manageToken } = yield* Effect.provide(
        Effect.gen(function*() {
          const quote = yield* (yield* Quotes).quoteRooms({
            checkin,
            checkout,
            rooms: [{ room_type_id: "deluxe" as RoomTypeId, quantity: 2, adults: 2, children_ages: [] }]
          }, client)
          const offer = quote.package_offers.find((o) => o.rate_code === "FLEX")!
          const reservations = yield* Reservations
          const { response } = yield* reservations.createIntent({ quote_id: quote.quote_id, package_code: offer.package_code, language: "en" }, client, undefined)
          const done = yield* reservations.complete(tokenOf(response.continue_url), { ...guest, expected_total: offer.price.total }, addressOf(0))
          const token = yield* (yield* Tokens).reveal(done.reservation_id, "manage")
          return { id: done.reservation_id, manageToken: Option.getOrThrow(token) }
        }),
        a
      )
      const outcomes = yield* Effect.forEach(Array.from({ length: 10 }), (_, i) =>
        Effect.provide(
          Effect.flatMap(ReservationManagement, (management) => management.act(manageToken, { action: "cancel" })),
          i % 2 === 0 ? a : b
        ).pipe(
          Effect.map((view) => view.status),
          Effect.catchTag("AlreadyCancelled", () => Effect.succeed("already_cancelled"))
        ), { concurrency: "unbounded" })
      expect(outcomes.filter((o) => o === "CANCELLED")).toHaveLength(1)
      expect(outcomes.filter((o) => o === "already_cancelled")).toHaveLength(9)

      const rows = yield* Effect.provide(Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.all({
        nights: sql<{ night: string; booked: number }>`
          SELECT night, booked FROM inventory_nights WHERE room_type_id = 'deluxe' AND night >= ${checkin} AND night < ${checkout} ORDER BY night`,
        jobs: sql<{ kind: string }>`SELECT kind FROM outbox_jobs WHERE reservation_id = ${id} ORDER BY seq`
      })), a)
      expect(rows.nights).toEqual([{ night: "2027-02-10", booked: 0 }, { night: "2027-02-11", booked: 0 }])
      expect(rows.jobs.map((j) => j.kind)).toEqual(["confirmation_email", "pms_push", "cancellation_email", "pms_cancel"])
    }))
})
