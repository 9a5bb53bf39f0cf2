import { SqlClient } from "effect/sql"
import { expect, layer } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Redacted } from "effect"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { addDays, type LocalDate } from "../../src/Domain/LocalDate.js"
import type { FeedEntry } from "../../src/Domain/ReservationFeed.js"
import { Transactions } from "../../src/Layers/Persistence/Transactions.js"
import { ReservationFeed } from "../../src/Services/ReservationFeed.js"
import { ReservationManagement } from "../../src/Services/ReservationManagement.js"
import { makeTestClock } from "../support/clock.js"
import { poolOn } from "../support/database.js"
import { eventually } from "../support/eventually.js"
import { instanceOn } from "../support/instance.js"
import { twoInstances } from "../support/instances.js"
import { killHard, startScript } from "../support/scriptProcess.js"
import { completed } from "../support/serviceFlow.js"

const hotelFile = path.resolve("data/hotel.json")
const clock = makeTestClock("2026-11-22T10:00:00Z")
const writerScript = fileURLToPath(new URL("../support/feedWriter.ts", import.meta.url))

/** Two instances of the service on one PostgreSQL, as two processes would be. */
class Instances extends Context.Service<Instances>()("test/FeedInstances", {
  make: twoInstances({ hotelFile, clock: clock.layer })
}) {
  // the tests' own fibers call the instances' services, and read the clock from their context
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provideMerge(clock.layer))
}
type Instance = Effect.Success<ReturnType<typeof twoInstances>>["a"]

/** A completed reservation of one double room for the night `night` (a night of its own: no two wait for the same rooms). */
const completedOn = (on: Instance, night: LocalDate) => Effect.provide(completed(night, addDays(night, 1), [{ room_type_id: "double" }]), on)

const pageOn = (on: Instance, after: string | null, limit = 100) =>
  Effect.provide(Effect.flatMap(ReservationFeed, (feed) => feed.page(after === null ? { limit } : { after, limit })), on)

/** Transactions of the database waiting for the feed's lock (ReservationFeedRepo's FEED_LOCK). */
const waitingForFeedLock = (on: Instance) =>
  Effect.provide(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_locks
        WHERE locktype = 'advisory' AND NOT granted AND classid = 0 AND objid = 7240011 AND objsubid = 1
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`),
    on
  ).pipe(Effect.map((rows) => rows[0]!.n), Effect.orDie)

layer(Instances.layer, { excludeTestServices: true, timeout: 120_000 })("the reservation feed on two instances", (it) => {
  it.effect("a change whose transaction is still open holds back the later ones: a reader never passes it", () =>
    Effect.gen(function*() {
      const { a, b } = yield* Instances
      const first = yield* completedOn(a, "2027-04-01" as LocalDate)
      const { next_cursor: cursor } = yield* pageOn(b, null)
      // instance a records a change and keeps its transaction open: it has taken its position
      const recorded = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const held = yield* Effect.forkChild(Effect.provide(
        Effect.flatMap(Transactions, ({ atomically }) =>
          atomically(Effect.gen(function*() {
            yield* (yield* ReservationFeed).record(first.id, "guest_updated")
            yield* Deferred.succeed(recorded, undefined)
            yield* Deferred.await(release)
          }))),
        a
      ))
      yield* Deferred.await(recorded)
      // meanwhile instance b completes another reservation: its change waits behind the open one
      const later = yield* Effect.forkChild(completedOn(b, "2027-04-02" as LocalDate))
      // until b's change has committed, or waits for the open one (it cannot commit first)
      yield* eventually(Effect.zipWith(Effect.sync(() => later.pollUnsafe()), waitingForFeedLock(a), (exit, waiting) => exit !== undefined || waiting === 1))
      expect(yield* pageOn(b, cursor)).toEqual({ changes: [], next_cursor: cursor })

      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(held)
      const second = yield* Fiber.join(later)
      const { changes } = yield* pageOn(b, cursor)
      expect(changes.map((c) => [c.change, c.reservation.reservation_id])).toEqual([["guest_updated", first.id], ["completed", second.id]])
    }))

  it.effect("16 completions at once on two instances while a PMS pulls with its last cursor: it misses and reorders nothing", () =>
    Effect.gen(function*() {
      const { a, b } = yield* Instances
      const { next_cursor: start } = yield* pageOn(a, null)
      const done = yield* Deferred.make<void>()
      // the PMS: small pages, each after the last cursor it got, until the completions are over and a page is empty
      const reader = Effect.gen(function*() {
        const collected: Array<FeedEntry> = []
        let cursor = start
        for (let i = 0;; i++) {
          const finished = yield* Deferred.isDone(done)
          const page = yield* pageOn(i % 2 === 0 ? a : b, cursor, 3)
          collected.push(...page.changes)
          cursor = page.next_cursor
          if (finished && page.changes.length === 0) return collected
        }
      })
      const pulled = yield* Effect.forkChild(reader)
      const ids = yield* Effect.forEach(
        Array.from({ length: 16 }, (_, i) => i),
        (i) => Effect.map(completedOn(i % 2 === 0 ? a : b, addDays("2027-05-01" as LocalDate, i)), (r) => r.id),
        { concurrency: "unbounded" }
      )
      yield* Deferred.succeed(done, undefined)
      const collected = yield* Fiber.join(pulled)
      const { changes: all } = yield* pageOn(b, start, 500)
      expect(all.map((c) => c.reservation.reservation_id).sort()).toEqual([...ids].sort())
      expect(collected).toEqual(all)
    }))

  it.effect("a change committed just before its process is killed (kill -9) is in the feed; the one it was writing is not, and the feed goes on", () =>
    Effect.gen(function*() {
      const { a, url } = yield* Instances
      const r = yield* completedOn(a, "2027-06-01" as LocalDate)
      const { next_cursor: cursor } = yield* pageOn(a, null)
      // test/support/feedWriter.ts: one change committed, another being written
      yield* killHard(yield* startScript(writerScript, [Redacted.value(url), r.id, hotelFile], "HOLDING"))
      // a process started after the crash
      const restarted = yield* Layer.build(instanceOn(poolOn(url), { hotelFile, clock: clock.layer }))
      yield* Effect.provide(Effect.flatMap(ReservationManagement, (m) => m.act(r.token, { action: "cancel" }, "192.0.2.1")), restarted)
      const { changes } = yield* pageOn(restarted, cursor)
      expect(changes.map((c) => [c.change, c.reservation.reservation_id, c.reservation.status])).toEqual([
        ["guest_updated", r.id, "GUEST_COMPLETED"],
        ["cancelled", r.id, "CANCELLED"]
      ])
    }).pipe(Effect.scoped))
})
