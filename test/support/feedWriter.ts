// A service stand-in for the feed's crash test: an instance on the database given that records a
// change of the reservation given and commits it (prints COMMITTED), then records another and
// holds its transaction open (prints HOLDING) until the process is killed.
import { Effect, Layer, Redacted } from "effect"
import type { ReservationId } from "../../src/Domain/Ids.js"
import { pgClientLayer } from "../../src/Layers/Persistence/Database.js"
import { Transactions } from "../../src/Layers/Persistence/Transactions.js"
import { ReservationFeed } from "../../src/Services/ReservationFeed.js"
import { instanceOn } from "./instance.js"

const [url, reservationId, hotelFile] = process.argv.slice(2) as [string, ReservationId, string]

Effect.gen(function*() {
  const feed = yield* ReservationFeed
  const { atomically } = yield* Transactions
  yield* atomically(feed.record(reservationId, "guest_updated"))
  process.stdout.write("COMMITTED\n")
  return yield* atomically(Effect.gen(function*() {
    yield* feed.record(reservationId, "stay_changed")
    process.stdout.write("HOLDING\n")
    return yield* Effect.never
  }))
}).pipe(Effect.provide(instanceOn(pgClientLayer(Redacted.make(url), { maxConnections: 2 }), { hotelFile, clock: Layer.empty })), Effect.runPromise)
