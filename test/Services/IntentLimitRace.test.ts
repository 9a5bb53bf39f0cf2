import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as path from "node:path"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import { Quotes } from "../../src/Services/Quotes.js"
import { Reservations } from "../../src/Services/Reservations.js"
import { makeTestClock } from "../support/clock.js"
import { twoInstances } from "../support/instances.js"

const clock = makeTestClock("2026-11-22T10:00:00Z")
const LIMIT = 5

/** Two instances of the service on one PostgreSQL, as two processes would be, each allowing LIMIT intents an hour per address. */
class Instances extends Context.Service<Instances>()("test/IntentLimitInstances", {
  make: twoInstances({ hotelFile: path.resolve("data/hotel.json"), clock: clock.layer, config: { intentLimitPerHour: LIMIT } })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provideMerge(clock.layer))
}

const client = { client: "intent-race-test", ai_agent: null, session: null }

layer(Instances.layer, { excludeTestServices: true, timeout: 120_000 })("INTENT_LIMIT_PER_HOUR on two instances", (it) => {
  it.effect("12 intents from one address race on two instances: exactly the limit are made, the rest 429; another address is not counted", () =>
    Effect.gen(function*() {
      const { a, b } = yield* Instances
      /** An intent (of a live quote: one is kept 15 minutes) from `address`, on instance a or b. */
      const from = (address: string, i: number) =>
        Effect.gen(function*() {
          const quote = yield* (yield* Quotes).quoteRooms({
            checkin: "2026-12-10" as LocalDate,
            checkout: "2026-12-12" as LocalDate,
            rooms: [{ room_type_id: "double" as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }]
          }, client)
          const intent = { quote_id: quote.quote_id, package_code: quote.package_offers[0]!.package_code, language: "en" as const }
          return yield* (yield* Reservations).createIntent(intent, client, undefined, address)
        }).pipe(
          Effect.provide(i % 2 === 0 ? a : b),
          Effect.as("made"),
          Effect.catchTag("RateLimited", (refused) => Effect.succeed(`refused, retry in ${refused.retry_after_seconds} s`))
        )
      const outcomes = yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => i), (i) => from("192.0.2.7", i), { concurrency: "unbounded" })
      expect(outcomes.filter((o) => o === "made")).toHaveLength(LIMIT)
      expect(outcomes.filter((o) => o !== "made")).toEqual(Array(12 - LIMIT).fill("refused, retry in 3600 s"))
      expect(yield* from("192.0.2.8", 1)).toBe("made")
      // the next hour counts anew
      clock.advance(3_600_000)
      expect(yield* from("192.0.2.7", 0)).toBe("made")
    }))
})
