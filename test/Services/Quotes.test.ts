import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import type { QuoteId, RoomTypeId } from "../../src/Domain/Ids.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import { QuoteRepo } from "../../src/Layers/Persistence/QuoteRepo.js"
import { Quotes } from "../../src/Services/Quotes.js"
import { makeTestClock } from "../support/clock.js"
import { ServicesInMemory } from "../support/TestApp.js"

const clock = makeTestClock("2026-11-22T10:00:00Z")
const request = (roomTypeId: string) => ({
  checkin: "2026-12-10" as LocalDate,
  checkout: "2026-12-11" as LocalDate,
  rooms: [{ room_type_id: roomTypeId as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }]
})
const who = { client: "acme-app", ai_agent: "travel-bot/2", session: "s-9" }

layer(
  // the services run on the tests' fibers, which read the clock from the layer's context: merged, not only provided
  ServicesInMemory({ booked: { twin: { "2026-12-10": 6 }, double: { "2026-12-10": 9 } } }).pipe(Layer.provideMerge(clock.layer)),
  { excludeTestServices: true }
)("Quotes service", (it) => {
  it.effect("stores each quote with the analytics headers of the call", () =>
    Effect.gen(function*() {
      const quotes = yield* Quotes
      const quote = yield* quotes.quoteRooms(request("double"), who)
      const stored = yield* (yield* QuoteRepo).find(quote.quote_id)
      expect(Option.getOrThrow(stored)).toEqual({ response: quote, client: who })
    }))

  it.effect("prices live: a night at 80 % occupancy of its room type costs 10 % more", () =>
    Effect.gen(function*() {
      const quotes = yield* Quotes
      // twin: 6 of 8 booked (75 %): base 120; double: 9 of 12 (75 %): base 110
      const [twin, double] = [yield* quotes.quoteRooms(request("twin"), who), yield* quotes.quoteRooms(request("double"), who)]
      expect(twin.package_offers[0].price.room_total).toBe(12000)
      expect(double.package_offers[0].price.room_total).toBe(11000)
      // built apart (`local`): v4 would otherwise reuse this suite's services, memoized in its layer
      const busier = yield* Effect.flatMap(Quotes, (q) => q.quoteRooms(request("twin"), who)).pipe(
        Effect.provide(ServicesInMemory({ booked: { twin: { "2026-12-10": 7 } } }).pipe(Layer.provideMerge(clock.layer)), { local: true })
      )
      expect(busier.package_offers[0].price.room_total).toBe(13200)
    }))

  it.effect("a quote can be found until its expires_at, then it is expired", () =>
    Effect.gen(function*() {
      const quotes = yield* Quotes
      const quote = yield* quotes.quoteRooms(request("double"), who)
      expect((yield* quotes.findValid(quote.quote_id)).response.quote_id).toBe(quote.quote_id)
      clock.advance(899_000)
      yield* quotes.findValid(quote.quote_id)
      clock.advance(1_000)
      const expired = yield* quotes.findValid(quote.quote_id).pipe(Effect.flip)
      expect(expired._tag).toBe("QuoteExpired")
      const unknown = yield* quotes.findValid("q_nope" as QuoteId).pipe(Effect.flip)
      expect(unknown._tag).toBe("NotFound")
      clock.set("2026-11-22T10:00:00Z")
    }))
})
