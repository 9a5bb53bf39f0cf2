import { SqlClient } from "effect/sql"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import { PromoCodes } from "../../src/Services/PromoCodes.js"
import { Quotes } from "../../src/Services/Quotes.js"
import { ReservationManagement } from "../../src/Services/ReservationManagement.js"
import { Reservations } from "../../src/Services/Reservations.js"
import { Tokens } from "../../src/Services/Tokens.js"
import { makeTestClock } from "../support/clock.js"
import { twoInstances } from "../support/instances.js"
import { tokenOf } from "../support/flow.js"

const clock = makeTestClock("2026-11-22T10:00:00Z")

/** The demo hotel with LAST1: 20 % off, one use. */
const hotelFile = (() => {
  const hotel = JSON.parse(fs.readFileSync("data/hotel.json", "utf8"))
  hotel.promo_codes.push({ code: "LAST1", name: { en: "Last one" }, discount_percent: 20, max_uses: 1, active: true })
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "promo-race-")), "hotel.json")
  fs.writeFileSync(file, JSON.stringify(hotel))
  return file
})()
/** Two instances of the service on one PostgreSQL, as two processes would be. */
class Instances extends Context.Service<Instances>()("test/PromoInstances", {
  make: twoInstances({ hotelFile, clock: clock.layer })
}) {
  // the tests' own fibers call the instances' services, and read the clock from their context
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provideMerge(clock.layer))
}

const guest = { first_name: "Race", last_name: "Guest", email: "race@example.com", phone: "+33 6 00 00 00 00", accept_terms: true, terms_version: "2026-11" }
const client = { client: "promo-race-test", ai_agent: null, session: null }
const checkin = "2026-12-10" as LocalDate
const checkout = "2026-12-12" as LocalDate

/** A pending FLEX reservation of a double room for the stay, quoted with the code (or without): its token, total and id. */
const pendingFlex = (promoCode: string | undefined) =>
  Effect.gen(function*() {
    const quote = yield* (yield* Quotes).quoteRooms({
      checkin,
      checkout,
      rooms: [{ room_type_id: "double" as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }],
      ...(promoCode === undefined ? {} : { promo_code: promoCode })
    }, client)
    const offer = quote.package_offers.find((o) => o.rate_code === "FLEX")!
    const { response } = yield* (yield* Reservations).createIntent(
      { quote_id: quote.quote_id, package_code: offer.package_code, language: "en" },
      client,
      undefined,
      "192.0.2.1"
    )
    return { token: tokenOf(response.continue_url), total: offer.price.total, id: response.reservation_id }
  })

layer(Instances.layer, { excludeTestServices: true, timeout: 120_000 })("a promo code's last use, on two instances", (it) => {
  it.effect("6 completions race for LAST1's one use: exactly one gets it, the others 409 price_changed with the total without it; a cancellation gives it back", () =>
    Effect.gen(function*() {
      const { a, b } = yield* Instances
      const on = (i: number) => i % 2 === 0 ? a : b
      const pending = yield* Effect.forEach(Array.from({ length: 6 }, (_, i) => i), (i) => Effect.provide(pendingFlex("last1"), on(i)))
      // 6 of 12 doubles stay under the demand threshold: without the code every one costs the same
      const { total: withoutCode } = yield* Effect.provide(pendingFlex(undefined), a)
      expect(pending.every((p) => p.total < withoutCode)).toBe(true)

      const outcomes = yield* Effect.forEach(pending, ({ token, total }, i) =>
        Effect.provide(
          Effect.flatMap(Reservations, (reservations) => reservations.complete(token, { ...guest, expected_total: total }, `198.51.100.${i}`)),
          on(i)
        ).pipe(
          Effect.map((done) => ({ outcome: "completed", total: done.price.total })),
          Effect.catchTag("PriceChanged", (e) => Effect.succeed({ outcome: "price_changed", total: e.new_total }))
        ), { concurrency: "unbounded" })
      expect(outcomes.filter((o) => o.outcome === "completed")).toEqual([{ outcome: "completed", total: pending[0]!.total }])
      expect(outcomes.filter((o) => o.outcome === "price_changed")).toEqual(
        Array.from({ length: 5 }, () => ({ outcome: "price_changed", total: withoutCode }))
      )

      // the others accept the total without it, and keep no code
      const losers = pending.filter((_, i) => outcomes[i]!.outcome === "price_changed")
      for (const [i, { token }] of losers.entries()) {
        const done = yield* Effect.provide(
          Effect.flatMap(Reservations, (reservations) => reservations.complete(token, { ...guest, expected_total: withoutCode }, `198.51.100.${i}`)),
          on(i)
        )
        expect(done.price.total).toBe(withoutCode)
      }
      const uses = () =>
        Effect.provide(
          Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql<{ promo_code: string | null; n: number }>`
              SELECT promo_code, count(*)::int AS n FROM reservations WHERE status = 'GUEST_COMPLETED'
              GROUP BY promo_code ORDER BY promo_code NULLS LAST`),
          a
        )
      expect(yield* uses()).toEqual([{ promo_code: "LAST1", n: 1 }, { promo_code: null, n: 5 }])

      // used up on either instance; cancelling the winner gives the use back to the next quote
      for (const x of [a, b]) {
        const refused = yield* Effect.provide(Effect.flatMap(PromoCodes, (codes) => Effect.flip(codes.resolve("LAST1"))), x)
        expect(refused.reason).toBe("used_up")
      }
      const winner = pending[outcomes.findIndex((o) => o.outcome === "completed")]!
      yield* Effect.provide(
        Effect.gen(function*() {
          const token = Option.getOrThrow(yield* (yield* Tokens).reveal(winner.id, "manage"))
          yield* (yield* ReservationManagement).act(token, { action: "cancel" }, "192.0.2.1")
        }),
        b
      )
      const resolved = yield* Effect.provide(Effect.flatMap(PromoCodes, (codes) => codes.resolve("LAST1")), a)
      expect(resolved?.code).toBe("LAST1")
      const next = yield* Effect.provide(pendingFlex("LAST1"), a)
      const done = yield* Effect.provide(
        Effect.flatMap(Reservations, (reservations) => reservations.complete(next.token, { ...guest, expected_total: next.total }, "198.51.100.99")),
        b
      )
      expect(done.price.total).toBe(next.total)
      expect(yield* uses()).toEqual([{ promo_code: "LAST1", n: 1 }, { promo_code: null, n: 5 }])
    }))
})
