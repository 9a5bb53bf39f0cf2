import { SqlClient } from "effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Random, Schedule, Schema } from "effect"
import * as path from "node:path"
import { AriMessage } from "../../src/Domain/Channel/Message.js"
import type { PriceChanged } from "../../src/Domain/Errors.js"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import { addDays, type LocalDate } from "../../src/Domain/LocalDate.js"
import type { Cents } from "../../src/Domain/Money.js"
import { Channel } from "../../src/Services/Channel.js"
import { Quotes } from "../../src/Services/Quotes.js"
import { Reservations } from "../../src/Services/Reservations.js"
import { daysFromToday } from "../support/clock.js"
import { tokenOf } from "../support/flow.js"
import { twoInstances } from "../support/instances.js"
import { MISCOUNTED_NIGHTS, OVERBOOKED_NIGHTS, UNDERCOUNTED_SINCE } from "../support/inventoryAudit.js"

/**
 * Two instances on one PostgreSQL, on the real clock: a figure's as_of and a completion's instant
 * must be ordered as they really happened for "taken since" to mean anything.
 */
class Instances extends Context.Service<Instances>()("test/ChannelInstances", {
  make: twoInstances({ hotelFile: path.resolve("data/hotel.json"), clock: Layer.empty })
}) {
  static readonly layer = Layer.effect(this, this.make)
}

/** One instance's services, as `Instances` builds them. */
type Instance = Context.Service.Shape<typeof Instances>["a"]

const guest = { first_name: "Race", last_name: "Channel", email: "race@example.com", phone: "+33 6 00 00 00 03", accept_terms: true, terms_version: "2026-11" }
const client = { client: "channel-race-test", ai_agent: null, session: null }
let messages = 0

const decode = Schema.decodeUnknownSync(AriMessage)

/** A pending reservation of one room on FLEX: its guest token and quoted total. */
const pendingRoom = (roomTypeId: string, checkin: LocalDate, checkout: LocalDate) =>
  Effect.gen(function*() {
    const quote = yield* (yield* Quotes).quoteRooms({
      checkin,
      checkout,
      rooms: [{ room_type_id: roomTypeId as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }]
    }, client)
    const offer = quote.package_offers.find((o) => o.rate_code === "FLEX")!
    const { response } = yield* (yield* Reservations).createIntent({ quote_id: quote.quote_id, package_code: offer.package_code, language: "en" }, client, undefined, "192.0.2.1")
    return { token: tokenOf(response.continue_url), total: offer.price.total }
  })

/** A guest told the price changed (the demand surcharge moves as rooms go) confirms the new total, a few times if need be. */
const completeConfirming = (token: string, total: Cents, address: string) =>
  Effect.flatMap(Reservations, (reservations) => {
    type Completion = ReturnType<typeof reservations.complete>
    const attempt = (expected: Cents, left: number): Completion =>
      Effect.catchIf(
        reservations.complete(token, { ...guest, expected_total: expected }, address),
        (e): e is PriceChanged => e._tag === "PriceChanged" && left > 0,
        (e) => attempt(e.new_total, left - 1)
      )
    return attempt(total, 4)
  })

layer(Instances.layer, { excludeTestServices: true, timeout: 120_000 })("the hotel's figures racing completions, on two instances", (it) => {
  it.effect("figures computed and delivered out of order while 16 guests race for the hotel's last 3 rooms: never more than 3, no defect", () =>
    Effect.gen(function*() {
      const { a, b } = yield* Instances
      const on = (i: number) => i % 2 === 0 ? a : b
      const sql = yield* Effect.provide(SqlClient.SqlClient, a)
      const checkin = daysFromToday(60)
      const checkout = addDays(checkin, 2)
      const allotment = 3
      const pending = yield* Effect.forEach(Array.from({ length: 16 }), () => Effect.provide(pendingRoom("deluxe", checkin, checkout), a))
      // a twin guest on the same nights: a message for every room type locks their rows too
      const twins = yield* Effect.forEach(Array.from({ length: 4 }), () => Effect.provide(pendingRoom("twin", checkin, checkout), b))

      /**
       * The hotel's system computing a figure as one that pulls the feed does: in one snapshot, the
       * feed's last cursor and the bookings committed up to it (a completion still in flight is in
       * neither); its message says so with reservations_through, and may be delivered long after.
       */
      const computeFigure = Effect.gen(function*() {
        const asOf = Date.now()
        const held = yield* sql<{ night: string; rooms: number; cursor: string }>`
          SELECT d::date::text AS night, coalesce(sum(line.quantity), 0)::int AS rooms,
            (SELECT coalesce(max(seq), 0) FROM reservation_changes)::text AS cursor
          FROM generate_series(${checkin}::date, ${checkout}::date - 1, interval '1 day') AS d
          LEFT JOIN reservations r ON r.status = 'GUEST_COMPLETED' AND r.checkin <= d AND r.checkout > d
          LEFT JOIN LATERAL jsonb_to_recordset(r.rooms) AS line(room_type_id text, quantity int) ON line.room_type_id = 'deluxe'
          GROUP BY d ORDER BY d`
        return decode({
          message_id: `figure-${++messages}`,
          as_of: new Date(asOf).toISOString(),
          reservations_through: held[0]!.cursor,
          updates: [
            ...held.map(({ night, rooms }) => ({ room_type_id: "deluxe", from: night, to: night, rooms_to_sell: Math.max(0, allotment - rooms) })),
            // every room type, the same nights: these rows are locked too
            { from: checkin, to: addDays(checkout, -1), min_stay: 1, closed_to_arrival: false }
          ]
        })
      }).pipe(Effect.orDie)
      const deliver = (message: AriMessage, i: number) =>
        Effect.provide(Effect.flatMap(Channel, (channel) => channel.applyMessage(message)), on(i))

      yield* deliver(yield* computeFigure, 0)
      // the hotel computes a figure every few milliseconds and delivers each one late, in no order, some twice
      const hotel = Effect.forEach(Array.from({ length: 12 }, (_, i) => i), (i) =>
        Effect.gen(function*() {
          yield* Effect.sleep(`${yield* Random.nextIntBetween(0, 15)} millis`)
          const figure = yield* computeFigure
          yield* Effect.sleep(`${yield* Random.nextIntBetween(0, 40)} millis`)
          const answers = yield* Effect.all([deliver(figure, i), ...(i % 3 === 0 ? [deliver(figure, i + 1)] : [])], { concurrency: "unbounded" })
          // the same id twice, from two instances: one answer
          expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1)
        }), { concurrency: 4 })
      const guests = Effect.forEach([...pending, ...twins], ({ token, total }, i) =>
        Effect.provide(completeConfirming(token, total, `198.51.100.${i}`), on(i + 1)).pipe(
          Effect.as("completed"),
          Effect.catchTag("AvailabilityChanged", () => Effect.succeed("availability_changed")),
          Effect.catchTag("PriceChanged", () => Effect.succeed("price_changed_repeatedly"))
        ), { concurrency: "unbounded" })
      const [outcomes] = yield* Effect.all([guests, hotel], { concurrency: "unbounded" })
      // every guest got an answer a guest understands: no defect, no deadlock (both would fail the effect)
      expect(outcomes.every((o) => ["completed", "availability_changed", "price_changed_repeatedly"].includes(o))).toBe(true)
      const deluxeCompleted = outcomes.slice(0, 16).filter((o) => o === "completed").length
      expect(deluxeCompleted).toBeLessThanOrEqual(allotment)
      if (!outcomes.includes("price_changed_repeatedly")) expect(deluxeCompleted).toBe(allotment)
      expect(outcomes.slice(16).filter((o) => o === "completed")).toHaveLength(4)

      const held = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM reservations WHERE status = 'GUEST_COMPLETED' AND rooms @> '[{"room_type_id": "deluxe"}]'`
      expect(held[0]!.n).toBe(deluxeCompleted)
      expect(yield* sql.unsafe(OVERBOOKED_NIGHTS)).toEqual([])
      expect(yield* sql.unsafe(MISCOUNTED_NIGHTS)).toEqual([])
      expect(yield* sql.unsafe(UNDERCOUNTED_SINCE)).toEqual([])
      // one last figure, delivered after everything: it counts them all, nothing is left to sell
      yield* deliver(yield* computeFigure, 1)
      const view = yield* Effect.provide(Effect.flatMap(Channel, (c) => c.inventory({ from: checkin, to: addDays(checkout, -1), room_type_id: "deluxe" as RoomTypeId })), a)
      expect(view.room_types[0]!.nights.map((n) => ({ free: n.free, oversold: n.oversold }))).toEqual([
        { free: 0, oversold: false },
        { free: 0, oversold: false }
      ])
    }))

  it.effect("one message id sent 10 times at once with two different bodies, on two instances: one is applied, its body answered, the other refused", () =>
    Effect.gen(function*() {
      const { a, b } = yield* Instances
      const sql = yield* Effect.provide(SqlClient.SqlClient, a)
      const from = daysFromToday(90)
      const to = addDays(from, 1)
      const asOf = new Date(Date.now()).toISOString()
      const body = (roomsToSell: number) =>
        decode({
          message_id: "same-id",
          as_of: asOf,
          updates: [{ room_type_id: "twin", from, to, rooms_to_sell: roomsToSell }, { from, to, stop_sell: roomsToSell === 1 }]
        })
      const bodies = Array.from({ length: 10 }, (_, i) => i % 4 < 2 ? 1 : 2)
      const answers = yield* Effect.forEach(bodies, (roomsToSell, i) =>
        Effect.provide(Effect.flatMap(Channel, (channel) => channel.applyMessage(body(roomsToSell))), i % 2 === 0 ? a : b).pipe(
          Effect.map((answer) => ({ roomsToSell, answer: JSON.stringify(answer) })),
          Effect.catchTag("MessageIdReused", () => Effect.succeed({ roomsToSell, answer: "message_id_reused" }))
        ), { concurrency: "unbounded" })
      const rows = yield* sql<{ rooms_to_sell: number; stop_sell: boolean }>`
        SELECT rooms_to_sell, stop_sell FROM inventory_nights WHERE room_type_id = 'twin' AND night >= ${from}::date AND night <= ${to}::date`
      // one body whole, never a mix of the two
      expect(rows).toHaveLength(2)
      expect(new Set(rows.map((r) => JSON.stringify(r))).size).toBe(1)
      expect(rows[0]!.stop_sell).toBe(rows[0]!.rooms_to_sell === 1)
      // the applied body's senders all get its answer; the other body's are refused, every one
      const applied = rows[0]!.rooms_to_sell
      for (const { answer, roomsToSell } of answers) {
        expect(answer).toBe(roomsToSell === applied ? JSON.stringify({ message_id: "same-id", applied: 8, stale: 0 }) : "message_id_reused")
      }
      const stored = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM channel_messages WHERE message_id = 'same-id'`
      expect(stored[0]!.n).toBe(1)
    }))

  // The attack of 2026-11-28 (docs/decisions.md#what-may-be-sold): the hotel leaves 1 room; guest A takes it; the
  // hotel's next figure is 1 again because its system has not heard of A; guest B must be refused.
  describe("a figure that does not count guest A never lets guest B take A's room", () => {
    /** One night of deluxe, the hotel leaving 1 room; B's intent made while it was free; A completed. */
    const setUp = (days: number) =>
      Effect.gen(function*() {
        const { a, b } = yield* Instances
        const night = daysFromToday(days)
        const sql = yield* Effect.provide(SqlClient.SqlClient, a)
        yield* figure(a, night, 1, { asOf: Date.now() - 60_000 })
        const guestA = yield* Effect.provide(pendingRoom("deluxe", night, addDays(night, 1)), a)
        const guestB = yield* Effect.provide(pendingRoom("deluxe", night, addDays(night, 1)), b)
        return { a, b, night, sql, guestA, guestB }
      })
    const figure = (instance: Instance, night: LocalDate, roomsToSell: number, options: { readonly asOf?: number; readonly through?: string } = {}) =>
      Effect.provide(
        Effect.flatMap(Channel, (channel) =>
          channel.applyMessage(decode({
            message_id: `late-${++messages}`,
            as_of: new Date(options.asOf ?? Date.now()).toISOString(),
            ...(options.through === undefined ? {} : { reservations_through: options.through }),
            updates: [{ room_type_id: "deluxe", from: night, to: night, rooms_to_sell: roomsToSell }]
          }))),
        instance
      )
    const cursorOf = (sql: SqlClient.SqlClient) =>
      Effect.map(sql<{ cursor: string }>`SELECT coalesce(max(seq), 0)::text AS cursor FROM reservation_changes`.pipe(Effect.orDie), (rows) => rows[0]!.cursor)
    const completes = (instance: Instance, guest: { readonly token: string; readonly total: Cents }, address: string) =>
      Effect.provide(completeConfirming(guest.token, guest.total, address), instance).pipe(
        Effect.as("completed"),
        Effect.catchTag("AvailabilityChanged", () => Effect.succeed("availability_changed"))
      )
    /**
     * After B's refusal, a figure whose cursor covers A, still 1 room, from a clock `aheadMs` ahead:
     * exactly one more booking (B's), then none.
     */
    const thenExactlyOneMore = (s: Effect.Success<ReturnType<typeof setUp>>, aheadMs = 0) =>
      Effect.gen(function*() {
        yield* figure(s.b, s.night, 1, { through: yield* cursorOf(s.sql), asOf: Date.now() + aheadMs })
        expect(yield* completes(s.a, s.guestB, "203.0.113.32")).toBe("completed")
        // guest C finds nothing: 2 rooms held against the hotel's 1 and the 1 of ours it counted
        const quoteC = yield* Effect.provide(Effect.flatMap(Quotes, (quotes) =>
          quotes.quoteRooms({ checkin: s.night, checkout: addDays(s.night, 1), rooms: [{ room_type_id: "deluxe" as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }] }, client)), s.a)
        expect(quoteC.unavailable_rooms).toMatchObject([{ reason: "sold_out" }])
        expect(yield* s.sql.unsafe(UNDERCOUNTED_SINCE)).toEqual([])
      })

    it.effect("its PMS push still being retried: the next figure, 1 again, computed after A, refuses B (409)", () =>
      Effect.gen(function*() {
        const s = yield* setUp(120)
        expect(yield* completes(s.a, s.guestA, "203.0.113.30")).toBe("completed")
        yield* figure(s.b, s.night, 1)
        expect(yield* completes(s.a, s.guestB, "203.0.113.31")).toBe("availability_changed")
        yield* thenExactlyOneMore(s)
      }))

    it.effect("A stamped but not yet committed while the hotel read the feed: the figure with that cursor refuses B (409)", () =>
      Effect.gen(function*() {
        const s = yield* setUp(122)
        // A's completion held open at its last statement (the feed's lock), its nights taken
        const release = yield* Deferred.make<void>()
        const holder = yield* s.sql.withTransaction(Effect.andThen(
          s.sql`SELECT pg_advisory_xact_lock(7240011)`,
          Deferred.await(release)
        )).pipe(Effect.orDie, Effect.forkChild)
        yield* s.sql`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 7240011 AND granted`.pipe(
          Effect.orDie,
          Effect.flatMap((rows) => rows.length === 1 ? Effect.void : Effect.fail("not yet")),
          Effect.retry(Schedule.spaced("10 millis"))
        )
        const completionA = yield* Effect.forkChild(completes(s.a, s.guestA, "203.0.113.34"))
        yield* s.sql`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 7240011 AND NOT granted`.pipe(
          Effect.orDie,
          Effect.flatMap((rows) => rows.length === 1 ? Effect.void : Effect.fail("not yet")),
          Effect.retry(Schedule.spaced("10 millis"))
        )
        // the hotel reads the feed now: A is not in it
        const read = yield* cursorOf(s.sql)
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(holder)
        expect(yield* Fiber.join(completionA)).toBe("completed")
        yield* figure(s.b, s.night, 1, { through: read })
        expect(yield* completes(s.a, s.guestB, "203.0.113.35")).toBe("availability_changed")
        yield* thenExactlyOneMore(s)
      }))

    it.effect("a figure computed before A, stamped 4 minutes ahead and delivered after A: refuses B (409)", () =>
      Effect.gen(function*() {
        const s = yield* setUp(124)
        const computed = Date.now()
        expect(yield* completes(s.a, s.guestA, "203.0.113.36")).toBe("completed")
        yield* figure(s.b, s.night, 1, { asOf: computed + 240_000 })
        expect(yield* completes(s.a, s.guestB, "203.0.113.37")).toBe("availability_changed")
        yield* thenExactlyOneMore(s, 240_000)
      }))
  })
})
