import { expect, layer, type Vitest } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as path from "node:path"
import type { ReservationId } from "../../src/Domain/Ids.js"
import type { Cents } from "../../src/Domain/Money.js"
import { ReservationRepo } from "../../src/Layers/Persistence/ReservationRepo.js"
import type { Quotes } from "../../src/Services/Quotes.js"
import { ReservationFeed } from "../../src/Services/ReservationFeed.js"
import { ReservationManagement } from "../../src/Services/ReservationManagement.js"
import type { Reservations } from "../../src/Services/Reservations.js"
import type { Tokens } from "../../src/Services/Tokens.js"
import { makeTestClock } from "../support/clock.js"
import { TestDatabase } from "../support/database.js"
import { instanceOn } from "../support/instance.js"
import { change, changeStay, completed } from "../support/serviceFlow.js"
import { ServicesInMemory } from "../support/TestApp.js"

// Today is Sunday 2026-11-22 in hotel time (UTC+1).
const clock = makeTestClock("2026-11-22T10:00:00Z")

// the tests' own fibers call the services, and read the clock from the layer's context
const OnPostgres = instanceOn(TestDatabase, { hotelFile: path.resolve("data/hotel.json"), clock: clock.layer }).pipe(
  Layer.provideMerge(clock.layer)
)

const page = (after?: string, limit = 100) =>
  Effect.flatMap(ReservationFeed, (feed) => feed.page(after === undefined ? { limit } : { after, limit }))

/** A room request's price line on the wire: the record's line total. */
const priceLines = (lineTotals: ReadonlyArray<Cents>) => lineTotals.map((total) => ({ total }))

type Needs = ReservationFeed | ReservationManagement | Reservations | Quotes | Tokens | ReservationRepo
const suite = (it: Vitest.MethodsNonLive<Needs>) => {
  it.effect("an empty feed answers no change; an empty page gives back the cursor it was asked after", () =>
    Effect.gen(function*() {
      expect(yield* page()).toEqual({ changes: [], next_cursor: null })
      expect(yield* page("42")).toEqual({ changes: [], next_cursor: "42" })
    }))

  it.effect("completing, updating the guest, changing the stay and cancelling: four changes in order, each the reservation after it", () =>
    Effect.gen(function*() {
      const stored = (id: ReservationId) => Effect.map(Effect.flatMap(ReservationRepo, (repo) => repo.find(id)), Option.getOrThrow)
      clock.set("2026-11-22T10:00:00Z")
      const r = yield* completed("2027-01-11", "2027-01-13", [{ room_type_id: "double" }, { room_type_id: "twin", adults: 1 }], "FLEX", "direct12")
      const atCompletion = yield* stored(r.id)
      clock.set("2026-11-22T10:05:00Z")
      const management = yield* ReservationManagement
      yield* management.act(r.token, { action: "update_guest", phone: "+33 6 99 99 99 99" }, "192.0.2.1")
      clock.set("2026-11-22T10:10:00Z")
      // a change refused (the guest did not accept the new price) is no change
      yield* Effect.flip(changeStay(r.token, "2027-01-12", "2027-01-14", [{ room_type_id: "double" }], 1))
      const changed = yield* change(r.token, "2027-01-12", "2027-01-14", [{ room_type_id: "double" }])
      const afterChange = yield* stored(r.id)
      clock.set("2026-11-22T10:15:00Z")
      yield* management.act(r.token, { action: "cancel" }, "192.0.2.1")

      const { changes, next_cursor } = yield* page()
      expect(changes.map((c) => [c.change, c.changed_at])).toEqual([
        ["completed", "2026-11-22T11:00:00+01:00"],
        ["guest_updated", "2026-11-22T11:05:00+01:00"],
        ["stay_changed", "2026-11-22T11:10:00+01:00"],
        ["cancelled", "2026-11-22T11:15:00+01:00"]
      ])
      const [completion, update, stayChange, cancellation] = changes.map((c) => c.reservation)
      // the content of each: what the PMS push carries, as the change left the reservation
      expect(completion).toMatchObject({
        reservation_id: r.id,
        status: "GUEST_COMPLETED",
        stay: { checkin: "2027-01-11", checkout: "2027-01-13", nights: 2 },
        rooms: priceLines(atCompletion.line_totals),
        guest: { phone: "+33 6 00 00 00 01" },
        promo_code: "DIRECT12",
        price: { total: r.total },
        updated_at: "2026-11-22T11:00:00+01:00"
      })
      expect(completion!.rooms).toHaveLength(2)
      expect(completion!.price.promotion_discount).toBeGreaterThan(0)
      expect(update).toMatchObject({ ...completion, guest: { phone: "+33 6 99 99 99 99" }, updated_at: "2026-11-22T11:05:00+01:00" })
      expect(stayChange).toMatchObject({
        status: "GUEST_COMPLETED",
        stay: { checkin: "2027-01-12", checkout: "2027-01-14", nights: 2 },
        rooms: [{ room_type_id: "double", ...priceLines(afterChange.line_totals)[0] }],
        guest: { phone: "+33 6 99 99 99 99" },
        promo_code: "DIRECT12",
        price: changed.price,
        created_at: completion!.created_at,
        updated_at: "2026-11-22T11:10:00+01:00"
      })
      expect(stayChange!.rooms).toHaveLength(1)
      expect(cancellation).toEqual({ ...stayChange, status: "CANCELLED", updated_at: "2026-11-22T11:15:00+01:00" })

      // a PMS that kept a cursor asks after it: the rest, then nothing more, its cursor kept
      expect(next_cursor).toBe(changes[3]!.cursor)
      const rest = yield* page(changes[1]!.cursor, 1)
      expect(rest).toEqual({ changes: [changes[2]], next_cursor: changes[2]!.cursor })
      expect(yield* page(next_cursor!)).toEqual({ changes: [], next_cursor })
    }))
}

// the services run on the tests' fibers, which read the clock from the layer's context: merged, not only provided
layer(ServicesInMemory().pipe(Layer.provideMerge(clock.layer)), { excludeTestServices: true })("the reservation feed in memory", suite)
layer(OnPostgres, { excludeTestServices: true, timeout: 60_000 })("the reservation feed on PostgreSQL", suite)
