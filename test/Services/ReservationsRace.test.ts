import { SqlClient } from "effect/sql"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import * as path from "node:path"
import type { PriceChanged } from "../../src/Domain/Errors.js"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import type { Cents } from "../../src/Domain/Money.js"
import { addDays, type LocalDate } from "../../src/Domain/LocalDate.js"
import { Quotes } from "../../src/Services/Quotes.js"
import { ReservationManagement } from "../../src/Services/ReservationManagement.js"
import { Reservations } from "../../src/Services/Reservations.js"
import { Tokens } from "../../src/Services/Tokens.js"
import { makeTestClock } from "../support/clock.js"
import { twoInstances } from "../support/instances.js"
import { MISCOUNTED_NIGHTS, OVERBOOKED_NIGHTS } from "../support/inventoryAudit.js"
import { tokenOf } from "../support/flow.js"

const clock = makeTestClock("2026-11-22T10:00:00Z")
/** Two instances of the service on one PostgreSQL, as two processes would be. */
class Instances extends Context.Service<Instances>()("test/Instances", {
  // the intents of many guests, made from the one test address within one hour: not limited
  make: twoInstances({ hotelFile: path.resolve("data/hotel.json"), clock: clock.layer, config: { intentLimitPerHour: 0 } })
}) {
  // the tests' own fibers call the instances' services, and read the clock from their context
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provideMerge(clock.layer))
}

const guest = { first_name: "Race", last_name: "Guest", email: "race@example.com", phone: "+33 6 00 00 00 00", accept_terms: true, terms_version: "2026-11" }
const client = { client: "race-test", ai_agent: null, session: null }
/** A pending reservation of rooms on the FLEX rate for two adults each: its guest token and quoted total. */
const pendingFlexRoom = (roomTypeId: string, checkin: LocalDate, checkout: LocalDate, quantity = 1) =>
  Effect.gen(function*() {
    const quote = yield* (yield* Quotes).quoteRooms({
      checkin,
      checkout,
      rooms: [{ room_type_id: roomTypeId as RoomTypeId, quantity, adults: 2, children_ages: [] }]
    }, client)
    const offer = quote.package_offers.find((o) => o.rate_code === "FLEX")!
    const { response } = yield* (yield* Reservations).createIntent(
      { quote_id: quote.quote_id, package_code: offer.package_code, language: "en" },
      client,
      undefined,
      "192.0.2.1"
    )
    return { token: tokenOf(response.continue_url), total: offer.price.total }
  })

/** A completed reservation of rooms on the FLEX rate: its id and manage token. */
const completedFlex = (roomTypeId: string, checkin: LocalDate, checkout: LocalDate, quantity: number, address: string) =>
  Effect.gen(function*() {
    const { token, total } = yield* pendingFlexRoom(roomTypeId, checkin, checkout, quantity)
    const done = yield* (yield* Reservations).complete(token, { ...guest, expected_total: total }, address)
    const manageToken = Option.getOrThrow(yield* (yield* Tokens).reveal(done.reservation_id, "manage"))
    return { id: done.reservation_id, manageToken }
  })

/**
 * Never an overbooking (no night holds more rooms than its type has), never a lost room (every
 * night holds exactly the rooms of the completed reservations staying that night).
 */
const expectInventoryMatchesReservations = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    expect(yield* sql.unsafe(OVERBOOKED_NIGHTS)).toEqual([])
    expect(yield* sql.unsafe(MISCOUNTED_NIGHTS)).toEqual([])
  }).pipe(Effect.orDie)

/** Each guest on an address of their own: the booking limit per address stays out of the races on rooms. */
const addressOf = (i: number) => `198.51.100.${i}`

layer(Instances.layer, { excludeTestServices: true, timeout: 120_000 })("no overbooking, no room given back twice", (it) => {
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

      // the nights holding rooms: a completion also locks (and so creates) the check-out date's row, closed to departure is said there
      const rows = yield* onA(Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.all({
        nights: sql<{ night: string; booked: number }>`
          SELECT night, booked FROM inventory_nights WHERE room_type_id = 'deluxe' AND booked > 0 ORDER BY night`,
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

  it.effect("two completions from one address at once whose room-nights together exceed the day's 60, on two instances: one passes", () =>
    Effect.gen(function*() {
      const { a, b } = yield* Instances
      const address = "203.0.113.20"
      // 2 rooms for 20 nights: 40 room-nights each, on dates of their own
      const [first, second] = yield* Effect.forEach(["2027-07-01", "2027-08-01"] as const, (checkin) =>
        Effect.provide(pendingFlexRoom("double", checkin as LocalDate, addDays(checkin as LocalDate, 20), 2), a))
      const outcomes = yield* Effect.forEach([[first!, a], [second!, b]] as const, ([{ token, total }, instance]) =>
        Effect.provide(
          Effect.flatMap(Reservations, (reservations) => reservations.complete(token, { ...guest, expected_total: total }, address)),
          instance
        ).pipe(
          Effect.map(() => "completed"),
          Effect.catchTag("RateLimited", (e) => Effect.succeed(`rate_limited, contact ${e.contact?.email}`))
        ), { concurrency: "unbounded" })
      expect(outcomes.sort()).toEqual(["completed", "rate_limited, contact reservations@belle-rive-nice.example"])
      const counted = yield* Effect.provide(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ n: number }>`SELECT sum(room_nights)::int AS n FROM completions_by_address WHERE client_address = ${address}`), a)
      expect(counted[0]!.n).toBe(40)
      yield* Effect.provide(Effect.flatMap(SqlClient.SqlClient, expectInventoryMatchesReservations), a)
    }))

  it.effect("10 cancellations of one reservation at once, on two instances: one cancels, the rooms come back once", () =>
    Effect.gen(function*() {
      const { a, b } = yield* Instances
      const checkin = "2027-02-10" as LocalDate
      const checkout = "2027-02-12" as LocalDate
      const { id, manageToken } = yield* Effect.provide(completedFlex("deluxe", checkin, checkout, 2, addressOf(0)), a)
      const outcomes = yield* Effect.forEach(Array.from({ length: 10 }), (_, i) =>
        Effect.provide(
          Effect.flatMap(ReservationManagement, (management) => management.act(manageToken, { action: "cancel" }, "192.0.2.1")),
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

  it.effect("changes racing completions and cancellations for the last rooms, on two instances: never an overbooking, never a lost room", () =>
    Effect.gen(function*() {
      const { a, b } = yield* Instances
      const on = (i: number) => i % 2 === 0 ? a : b
      const target = { checkin: "2027-04-10" as LocalDate, checkout: "2027-04-12" as LocalDate }
      const deluxe = [{ room_type_id: "deluxe" as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }]
      // 3 guests to move into the target nights from nights of their own, 2 to cancel there (3 rooms free), 6 to book there
      const movers = yield* Effect.forEach([0, 1, 2], (i) =>
        Effect.provide(completedFlex("deluxe", addDays("2027-04-01" as LocalDate, 2 * i), addDays("2027-04-02" as LocalDate, 2 * i), 1, addressOf(30 + i)), a))
      const leavers = yield* Effect.forEach([0, 1], (i) =>
        Effect.provide(completedFlex("deluxe", target.checkin, target.checkout, 1, addressOf(40 + i)), a))
      const bookers = yield* Effect.forEach([0, 1, 2, 3, 4, 5], () => Effect.provide(pendingFlexRoom("deluxe", target.checkin, target.checkout), a))

      // the occupancy crosses the demand surcharge's threshold both ways (bookings, cancellations):
      // a guest told the price changed confirms the new total, a few times if need be
      const withNewTotals = <A, E extends { readonly _tag: string }, R>(send: (expected: Cents) => Effect.Effect<A, E | PriceChanged, R>, first: Cents) => {
        const attempt = (expected: Cents, left: number): Effect.Effect<A, E | PriceChanged, R> =>
          Effect.catchIf(send(expected), (e): e is PriceChanged => e._tag === "PriceChanged" && left > 0, (e) => attempt(e.new_total, left - 1))
        return attempt(first, 4)
      }
      const change = (token: string, i: number) =>
        Effect.provide(
          Effect.gen(function*() {
            const management = yield* ReservationManagement
            const quoted = yield* management.quoteChange(token, { action: "quote_change", ...target, rooms: deluxe })
            return yield* withNewTotals((expected_total) =>
              management.act(token, { action: "change_stay", ...target, rooms: deluxe, expected_total }, addressOf(120 + i)), quoted.new_total)
          }),
          on(i)
        ).pipe(
          Effect.map(() => "changed"),
          Effect.catchTag("AvailabilityChanged", () => Effect.succeed("availability_changed")),
          Effect.catchTag("PriceChanged", () => Effect.succeed("price_changed_repeatedly"))
        )
      const complete = ({ token, total }: { token: string; total: Cents }, i: number) =>
        Effect.provide(
          Effect.flatMap(Reservations, (reservations) =>
            withNewTotals((expected_total) => reservations.complete(token, { ...guest, expected_total }, addressOf(50 + i)), total)),
          on(i + 1)
        ).pipe(
          Effect.map(() => "completed"),
          Effect.catchTag("AvailabilityChanged", () => Effect.succeed("availability_changed")),
          Effect.catchTag("PriceChanged", () => Effect.succeed("price_changed_repeatedly"))
        )
      const cancel = (token: string, i: number) =>
        Effect.provide(Effect.flatMap(ReservationManagement, (m) => m.act(token, { action: "cancel" }, "192.0.2.1")), on(i)).pipe(Effect.as("cancelled"))
      const outcomes = yield* Effect.all([
        ...movers.map((m, i) => change(m.manageToken, i)),
        ...bookers.map(complete),
        ...leavers.map((l, i) => cancel(l.manageToken, i))
      ], { concurrency: "unbounded" })
      const count = (outcome: string) => outcomes.filter((o) => o === outcome).length
      expect(count("cancelled")).toBe(2)
      // at most the 5 rooms once both cancelled; at least the 3 free ones, unless a guest gave up on the price
      const winners = count("changed") + count("completed")
      expect(winners).toBeLessThanOrEqual(5)
      if (count("price_changed_repeatedly") === 0) expect(winners).toBeGreaterThanOrEqual(3)
      expect(count("availability_changed") + count("price_changed_repeatedly")).toBe(9 - winners)

      const sql = yield* Effect.provide(SqlClient.SqlClient, a)
      const nights = yield* sql<{ night: string; booked: number }>`
        SELECT night, booked FROM inventory_nights WHERE room_type_id = 'deluxe' AND night >= ${target.checkin} AND night < ${target.checkout}
        ORDER BY night`
      expect(nights).toEqual([{ night: "2027-04-10", booked: winners }, { night: "2027-04-11", booked: winners }])
      yield* expectInventoryMatchesReservations(sql)
    }))

  it.effect("5 guests changing at once to the last 2 rooms, on two instances: exactly 2 move, the others keep their stay", () =>
    Effect.gen(function*() {
      const { a, b } = yield* Instances
      const from = { checkin: "2027-05-03" as LocalDate, checkout: "2027-05-05" as LocalDate }
      const to = { checkin: "2027-05-04" as LocalDate, checkout: "2027-05-06" as LocalDate }
      const twin = [{ room_type_id: "twin" as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }]
      // 8 twins: 5 guests hold one each from the 3rd to the 5th; 6 are held on the 5th by another, so 2 are free for the move
      const movers = yield* Effect.forEach([0, 1, 2, 3, 4], (i) => Effect.provide(completedFlex("twin", from.checkin, from.checkout, 1, addressOf(60 + i)), a))
      yield* Effect.provide(completedFlex("twin", "2027-05-05" as LocalDate, "2027-05-06" as LocalDate, 6, addressOf(70)), a)
      const outcomes = yield* Effect.forEach(movers, ({ manageToken }, i) =>
        Effect.provide(
          Effect.gen(function*() {
            const management = yield* ReservationManagement
            const quoted = yield* management.quoteChange(manageToken, { action: "quote_change", ...to, rooms: twin })
            const request = { action: "change_stay" as const, ...to, rooms: twin, expected_total: quoted.new_total }
            // the first move fills the 5th to the demand surcharge: the next guest confirms the new total once
            return yield* management.act(manageToken, request, addressOf(60 + i)).pipe(
              Effect.catchTag("PriceChanged", (e) => management.act(manageToken, { ...request, expected_total: e.new_total }, addressOf(60 + i)))
            )
          }),
          i % 2 === 0 ? a : b
        ).pipe(
          Effect.map(() => "changed"),
          Effect.catchTag("AvailabilityChanged", () => Effect.succeed("availability_changed")),
          Effect.catchTag("PriceChanged", () => Effect.succeed("price_changed"))
        ), { concurrency: "unbounded" })
      const moved = outcomes.filter((o) => o === "changed").length
      expect(moved).toBe(2)
      expect(outcomes.filter((o) => o === "availability_changed")).toHaveLength(3)
      const sql = yield* Effect.provide(SqlClient.SqlClient, a)
      const nights = yield* sql<{ night: string; booked: number }>`
        SELECT night, booked FROM inventory_nights WHERE room_type_id = 'twin' AND night >= '2027-05-03' AND night < '2027-05-06' ORDER BY night`
      expect(nights.map((n) => n.booked)).toEqual([5 - moved, 5, 6 + moved])
      yield* expectInventoryMatchesReservations(sql)
    }))

  it.effect("one change sent 10 times at once, on two instances: the rooms are taken once, one email and one push", () =>
    Effect.gen(function*() {
      const { a, b } = yield* Instances
      const { id, manageToken } = yield* Effect.provide(
        completedFlex("double", "2027-06-01" as LocalDate, "2027-06-03" as LocalDate, 2, addressOf(80)),
        a
      )
      const request = {
        action: "change_stay" as const,
        checkin: "2027-06-02" as LocalDate,
        checkout: "2027-06-05" as LocalDate,
        rooms: [{ room_type_id: "double" as RoomTypeId, quantity: 3, adults: 2, children_ages: [] }]
      }
      const quoted = yield* Effect.provide(Effect.flatMap(ReservationManagement, (m) => m.quoteChange(manageToken, { ...request, action: "quote_change" })), a)
      const views = yield* Effect.forEach(Array.from({ length: 10 }), (_, i) =>
        Effect.provide(Effect.flatMap(ReservationManagement, (m) => m.act(manageToken, { ...request, expected_total: quoted.new_total }, addressOf(80))), i % 2 === 0 ? a : b),
        { concurrency: "unbounded" })
      expect(new Set(views.map((v) => JSON.stringify(v.stay))).size).toBe(1)
      const sql = yield* Effect.provide(SqlClient.SqlClient, a)
      const nights = yield* sql<{ booked: number }>`
        SELECT booked FROM inventory_nights WHERE room_type_id = 'double' AND night >= '2027-06-01' AND night < '2027-06-05' ORDER BY night`
      expect(nights.map((n) => n.booked)).toEqual([0, 3, 3, 3])
      const jobs = yield* sql<{ kind: string }>`SELECT kind FROM outbox_jobs WHERE reservation_id = ${id} ORDER BY seq`
      // the completion's PMS push, still waiting (no worker here), carries the change
      expect(jobs.map((j) => j.kind)).toEqual(["confirmation_email", "pms_push", "stay_change_email"])
      yield* expectInventoryMatchesReservations(sql)
    }))
})
