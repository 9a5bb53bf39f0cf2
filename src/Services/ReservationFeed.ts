import { Clock, Context, Effect, Layer, Option } from "effect"
import { isCompleted } from "../Domain/CompletedReservation.js"
import type { ReservationId } from "../Domain/Ids.js"
import { formatInstant } from "../Domain/LocalDate.js"
import { pmsReservation } from "../Domain/Pms.js"
import type { FeedChange, FeedPage, FeedQuery } from "../Domain/ReservationFeed.js"
import { reservationView } from "../Domain/ReservationViews.js"
import { ReservationFeedRepo } from "../Layers/Persistence/ReservationFeedRepo.js"
import { ReservationRepo } from "../Layers/Persistence/ReservationRepo.js"
import * as Tracing from "../Layers/Platform/Tracing.js"
import { HotelCatalog } from "./HotelCatalog.js"

/**
 * Every change to a reservation, in the order it committed, with the content the PMS push carries
 * (docs/decisions.md#channel-interface): for a PMS that pulls. A change is written in its own transaction, so the
 * feed never holds a change that did not happen nor misses one that did.
 */
export class ReservationFeed extends Context.Service<ReservationFeed>()("ReservationFeed", {
  make: Effect.gen(function*() {
    const catalog = yield* HotelCatalog
    const reservations = yield* ReservationRepo
    const repo = yield* ReservationFeedRepo
    return {
      /**
       * Inside the change's transaction, as its last statement (the feed's lock is taken there and
       * held to the commit): the reservation as the change left it, snapshot of that moment.
       */
      record: Tracing.fn("ReservationFeed.record")(function*(id: ReservationId, change: FeedChange) {
        yield* Tracing.annotate({ "reservation.id": id, change })
        const record = yield* reservations.find(id).pipe(Effect.flatMap(Option.match({
          onNone: () => Effect.die(`reservation ${id} changed but has no record`),
          onSome: Effect.succeed
        })))
        const hotel = yield* catalog.definition()
        const view = reservationView(hotel, record)
        if (!isCompleted(view)) return yield* Effect.die(new Error(`reservation ${id} changed (${change}) but was never completed`))
        const at = new Date(yield* Clock.currentTimeMillis)
        yield* repo.record(id, change, pmsReservation(hotel, view, record, at), at)
      }),
      /** `GET /internal/v1/reservations`: the changes after the cursor; an empty page keeps the cursor asked with. */
      page: Tracing.fn("ReservationFeed.page")(function*(query: FeedQuery) {
        const hotel = yield* catalog.definition()
        const changes = yield* repo.page(query.after, query.limit)
        const page: FeedPage = {
          changes: changes.map(({ change, changed_at, cursor, reservation }) => ({
            cursor,
            change,
            changed_at: formatInstant(changed_at, hotel.timezone),
            reservation
          })),
          next_cursor: changes.at(-1)?.cursor ?? query.after ?? null
        }
        return page
      })
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(HotelCatalog.layer))
}
