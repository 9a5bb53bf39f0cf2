import { NodeServices } from "@effect/platform-node"
import { SqlClient } from "effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as path from "node:path"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import type { ClientInfo } from "../../src/Domain/Quote.js"
import { AppSecret } from "../../src/Layers/Platform/AppSecret.js"
import { Repositories, Services } from "../../src/Composition.js"
import { HousekeepingRepo } from "../../src/Layers/Persistence/HousekeepingRepo.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { Channel } from "../../src/Services/Channel.js"
import { Housekeeping } from "../../src/Services/Housekeeping.js"
import { Quotes } from "../../src/Services/Quotes.js"
import { ReservationManagement } from "../../src/Services/ReservationManagement.js"
import { Reservations } from "../../src/Services/Reservations.js"
import { Tokens } from "../../src/Services/Tokens.js"
import { makeTestClock } from "../support/clock.js"
import { tokenOf } from "../support/flow.js"
import { TestDatabase } from "../support/database.js"

const clock = makeTestClock("2026-11-22T10:00:00Z")
const Config = Layer.mergeAll(AppConfig.InMemory({ hotelFile: path.resolve("data/hotel.json") }), NodeServices.layer, AppSecret.InMemory)
const App = Layer.mergeAll(Services, Housekeeping.layer).pipe(
  Layer.provideMerge(Repositories),
  Layer.provideMerge(TestDatabase),
  Layer.provide(Config),
  // the services run on the tests' fibers, which read the clock from the layer's context: merged, not only provided
  Layer.provideMerge(clock.layer)
)
const client = { client: null, ai_agent: null, session: null }
const guest = { first_name: "Lapsed", last_name: "Guest", email: "lapsed@example.com", phone: "+33 6 00 00 00 00" }
const HOUR = 3_600_000
const sweep = Effect.flatMap(Housekeeping, (h) => h.sweep())

/** A live quote of one double room for two adults. */
const quoteDouble = (checkin: string, checkout: string, caller: ClientInfo = client) =>
  Effect.flatMap(Quotes, (quotes) =>
    quotes.quoteRooms({
      checkin: checkin as LocalDate,
      checkout: checkout as LocalDate,
      rooms: [{ room_type_id: "double" as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }]
    }, caller))

const counts = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.all({
    pending: sql<{ n: number }>`SELECT count(*)::int AS n FROM reservations WHERE status = 'PENDING_GUEST'`,
    expired: sql<{ n: number }>`SELECT count(*)::int AS n FROM reservations WHERE status = 'EXPIRED'`,
    quotes: sql<{ n: number }>`SELECT count(*)::int AS n FROM quotes`,
    keys: sql<{ n: number }>`SELECT count(*)::int AS n FROM idempotency_keys`
  })).pipe(Effect.map((r) => ({ pending: r.pending[0]!.n, expired: r.expired[0]!.n, quotes: r.quotes[0]!.n, keys: r.keys[0]!.n })))

layer(App, { excludeTestServices: true, timeout: 60_000 })("housekeeping", (it) => {
  it.effect("lapsed intents expire, quotes past their retention and spent idempotency keys go; two sweeps at once share the work", () =>
    Effect.gen(function*() {
      const quotes = yield* Quotes
      const reservations = yield* Reservations
      // 12 intents with keys, from 12 quotes
      yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => i), (i) =>
        Effect.gen(function*() {
          const quote = yield* quotes.quoteRooms({
            checkin: "2027-03-01" as LocalDate,
            checkout: "2027-03-02" as LocalDate,
            rooms: [{ room_type_id: "double" as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }]
          }, client)
          yield* reservations.createIntent({ quote_id: quote.quote_id, package_code: quote.package_offers[0]!.package_code, language: "en" }, client, `key-${i}`, "192.0.2.1")
        }))
      expect(yield* sweep).toEqual({
        expiredIntents: 0,
        deletedExpiredReservations: 0,
        deletedQuotes: 0,
        deletedIdempotencyKeys: 0,
        deletedCompletionAddresses: 0,
        deletedIntentCounts: 0,
        deletedChannelMessages: 0
      })
      expect(yield* counts).toEqual({ pending: 12, expired: 0, quotes: 12, keys: 12 })

      clock.advance(25 * HOUR) // guest links (24 h) and idempotency keys (24 h) have lapsed, quotes are kept 30 days
      const [a, b] = yield* Effect.all([sweep, sweep], { concurrency: 2 })
      expect(a.expiredIntents + b.expiredIntents).toBe(12)
      expect(a.deletedIdempotencyKeys + b.deletedIdempotencyKeys).toBe(12)
      // the 12 intents were counted for their address in one hour, now over
      expect(a.deletedIntentCounts + b.deletedIntentCounts).toBe(1)
      expect(a.deletedQuotes + b.deletedQuotes).toBe(0)
      expect(yield* counts).toEqual({ pending: 0, expired: 12, quotes: 12, keys: 0 })

      clock.advance(30 * 24 * HOUR)
      // the expired reservations go, then their quotes, which no intent names any more
      expect(yield* sweep).toMatchObject({ deletedExpiredReservations: 12, deletedQuotes: 12 })
      expect(yield* counts).toEqual({ pending: 0, expired: 0, quotes: 0, keys: 0 })
    }))

  it.effect("a channel message's id is kept 7 days: the same message answers the first answer, another is refused, until then; after, it applies anew", () =>
    Effect.gen(function*() {
      const channel = yield* Channel
      const message = (rooms_to_sell: number) => ({
        message_id: "cm-kept-a-week",
        as_of: new Date(clock.now()).toISOString(),
        updates: [{ room_type_id: "twin" as RoomTypeId, from: "2027-05-01" as LocalDate, to: "2027-05-02" as LocalDate, rooms_to_sell }]
      })
      const first = message(3)
      expect(yield* channel.applyMessage(first)).toEqual({ message_id: "cm-kept-a-week", applied: 2, stale: 0 })
      clock.advance(6 * 24 * HOUR)
      expect((yield* sweep).deletedChannelMessages).toBe(0)
      expect(yield* channel.applyMessage(first)).toEqual({ message_id: "cm-kept-a-week", applied: 2, stale: 0 })
      expect(yield* Effect.flip(channel.applyMessage(message(2)))).toMatchObject({ _tag: "MessageIdReused" })
      const view = (yield* channel.inventory({ from: "2027-05-01" as LocalDate, to: "2027-05-01" as LocalDate, room_type_id: "twin" as RoomTypeId }))
      expect(view.room_types[0]!.nights[0]!.rooms_to_sell).toBe(3)
      clock.advance(2 * 24 * HOUR)
      expect((yield* sweep).deletedChannelMessages).toBe(1)
      yield* channel.applyMessage(message(2))
      const later = (yield* channel.inventory({ from: "2027-05-01" as LocalDate, to: "2027-05-01" as LocalDate, room_type_id: "twin" as RoomTypeId }))
      expect(later.room_types[0]!.nights[0]!.rooms_to_sell).toBe(2)
    }))

  it.effect("a reservation never completed is deleted with its tokens PENDING_RETENTION_DAYS after its link lapsed; a completed one is kept", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const reservations = yield* Reservations
      yield* sweep // what earlier tests left
      const caller = { client: "acme", ai_agent: "agent-a", session: "session-of-a-person" }
      const [lapsing, completing] = yield* Effect.forEach(["2027-04-01", "2027-04-02"], (checkin, i) =>
        Effect.gen(function*() {
          const quote = yield* quoteDouble(checkin, "2027-04-03", caller)
          const offer = quote.package_offers[0]!
          const { response } = yield* reservations.createIntent(
            { quote_id: quote.quote_id, package_code: offer.package_code, language: "en" },
            caller,
            `retention-${i}`,
            "192.0.2.1"
          )
          return { id: response.reservation_id, token: tokenOf(response.continue_url), total: offer.price.total }
        }))
      yield* reservations.complete(completing!.token, { ...guest, accept_terms: true, terms_version: "2026-11", expected_total: completing!.total }, "203.0.113.9")
      const left = (id: string) =>
        Effect.all({
          status: Effect.map(sql<{ status: string }>`SELECT status FROM reservations WHERE id = ${id}`, (rows) => rows[0]?.status ?? null),
          tokens: Effect.map(sql<{ n: number }>`SELECT count(*)::int AS n FROM reservation_tokens WHERE reservation_id = ${id}`, (rows) => rows[0]!.n)
        })

      clock.advance(25 * HOUR) // the guest link lapsed: EXPIRED, kept for now
      expect(yield* sweep).toMatchObject({ expiredIntents: 1, deletedExpiredReservations: 0 })
      clock.advance(29 * 24 * HOUR)
      expect((yield* sweep).deletedExpiredReservations).toBe(0)
      expect(yield* left(lapsing!.id)).toEqual({ status: "EXPIRED", tokens: 1 })
      // an idempotency record left naming it (its 24 hours are long over, but a replay must never find a reservation gone)
      yield* sql`INSERT INTO idempotency_keys (scope, key, request_hash, state, resource_id, locked_until, expires_at)
        VALUES ('reservation-intents', 'left-behind', 'h', 'done', ${lapsing!.id}, now(), now() + interval '1 day')`

      clock.advance(2 * 24 * HOUR) // 31 days after the link lapsed
      expect((yield* sweep).deletedExpiredReservations).toBe(1)
      expect(yield* left(lapsing!.id)).toEqual({ status: null, tokens: 0 })
      expect(yield* sql`SELECT 1 FROM idempotency_keys WHERE resource_id = ${lapsing!.id}`).toEqual([])
      const kept = yield* left(completing!.id)
      expect(kept).toEqual({ status: "GUEST_COMPLETED", tokens: 2 })
      expect((yield* sweep).deletedExpiredReservations).toBe(0)
    }))

  it.effect("a quote no intent was made from is deleted a day after it expired; one an intent was made from is kept QUOTE_RETENTION_DAYS", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const reservations = yield* Reservations
      yield* sweep // what earlier tests left
      const unused = yield* quoteDouble("2027-05-10", "2027-05-11")
      const used = yield* quoteDouble("2027-05-10", "2027-05-11")
      const { response } = yield* reservations.createIntent(
        { quote_id: used.quote_id, package_code: used.package_offers[0]!.package_code, language: "en" },
        client,
        undefined,
        "192.0.2.1"
      )
      // completed: the reservation, and so its quote, is kept
      yield* reservations.complete(tokenOf(response.continue_url), {
        ...guest,
        accept_terms: true,
        terms_version: "2026-11",
        expected_total: used.package_offers[0]!.price.total
      }, "192.0.2.45")
      const stored = Effect.map(
        sql<{ id: string }>`SELECT id FROM quotes WHERE id IN (${unused.quote_id}, ${used.quote_id}) ORDER BY id`,
        (rows) => rows.map((row) => row.id)
      )

      clock.advance(24 * HOUR) // expired (after 15 minutes) less than a day ago
      expect((yield* sweep).deletedQuotes).toBe(0)
      clock.advance(HOUR)
      expect((yield* sweep).deletedQuotes).toBe(1)
      expect(yield* stored).toEqual([used.quote_id])
      clock.advance(29 * 24 * HOUR)
      expect((yield* sweep).deletedQuotes).toBe(1)
      expect(yield* stored).toEqual([])
    }))

  it.effect("one instance runs each kind of batch at a time: while another holds that kind's sweep lock, a batch changes nothing", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* HousekeepingRepo
      yield* sql`INSERT INTO quotes (id, expires_at, checkin, checkout, status, client, response)
        VALUES ('q_old', '2026-01-01T00:00:00Z', '2026-02-01', '2026-02-02', 'available', '{}', '{}')`
      const longAgo = { used: new Date("2026-06-01"), unused: new Date("2026-06-01") }
      const held = yield* Effect.scoped(Effect.gen(function*() {
        // another instance's sweep, on a connection of its own
        const other = yield* sql.reserve
        yield* other.execute("SELECT pg_advisory_lock(7240002, hashtext('deleteQuotesExpiredBefore'))", [], undefined)
        const changed = yield* repo.deleteQuotesExpiredBefore(longAgo, 10)
        yield* other.execute("SELECT pg_advisory_unlock(7240002, hashtext('deleteQuotesExpiredBefore'))", [], undefined)
        return changed
      }))
      expect(held).toBe(0)
      expect(yield* repo.deleteQuotesExpiredBefore(longAgo, 10)).toBe(1)
    }))

  it.effect("the client address of a completion, or of a change that added room-nights, is kept for the 24 hours the room-nights limit counts it, then deleted", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const quotes = yield* Quotes
      const reservations = yield* Reservations
      const quote = yield* quotes.quoteRooms({
        checkin: "2027-04-01" as LocalDate,
        checkout: "2027-04-02" as LocalDate,
        rooms: [{ room_type_id: "double" as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }]
      }, client)
      const offer = quote.package_offers[0]!
      const { response } = yield* reservations.createIntent({ quote_id: quote.quote_id, package_code: offer.package_code, language: "en" }, client, undefined, "192.0.2.1")
      const done = yield* reservations.complete(tokenOf(response.continue_url), {
        first_name: "Ana",
        last_name: "Lopez",
        email: "ana@example.com",
        phone: "+34 600 123 456",
        accept_terms: true,
        terms_version: "2026-11",
        expected_total: offer.price.total
      }, "192.0.2.44")
      const addresses = sql<{ client_address: string }>`SELECT client_address FROM completions_by_address ORDER BY completed_at`.pipe(Effect.orDie)
      expect((yield* sweep).deletedCompletionAddresses).toBe(0)
      expect(yield* addresses).toEqual([{ client_address: "192.0.2.44" }])
      clock.advance(HOUR + 1)
      expect((yield* sweep).deletedCompletionAddresses).toBe(0)
      // a night more, 22 hours later, from another address: a row of the same reservation
      clock.advance(22 * HOUR)
      const management = yield* ReservationManagement
      const manageToken = Option.getOrThrow(yield* (yield* Tokens).reveal(done.reservation_id, "manage"))
      const longer = {
        checkin: "2027-04-01" as LocalDate,
        checkout: "2027-04-03" as LocalDate,
        rooms: [{ room_type_id: "double" as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }]
      }
      const quoted = yield* management.quoteChange(manageToken, { action: "quote_change", ...longer })
      yield* management.act(manageToken, { action: "change_stay", ...longer, expected_total: quoted.new_total }, "192.0.2.45")
      expect(yield* addresses).toEqual([{ client_address: "192.0.2.44" }, { client_address: "192.0.2.45" }])
      clock.advance(HOUR)
      // the completion's has left the 24 hours; the change's is still counted
      expect((yield* sweep).deletedCompletionAddresses).toBe(1)
      expect(yield* addresses).toEqual([{ client_address: "192.0.2.45" }])
      clock.advance(23 * HOUR + 1)
      expect((yield* sweep).deletedCompletionAddresses).toBe(1)
      expect(yield* addresses).toEqual([])
    }))
})
