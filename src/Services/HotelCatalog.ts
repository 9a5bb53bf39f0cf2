import { Clock, Effect } from "effect"
import { type HotelDefinition, hotelView, roomTypeView } from "../Domain/Hotel.js"
import { todayIn } from "../Domain/LocalDate.js"
import { HotelRepo } from "../Layers/HotelRepo.js"
import * as Tracing from "../Layers/Tracing.js"

/**
 * How long an instance keeps the hotel definition before reading it again: a re-import reaches
 * every instance within this time, and no request pays a database round trip for it.
 */
export const HOTEL_DEFINITION_TTL = "5 seconds"

/** The hotel's facts, policies and room types, from the imported definition. */
export class HotelCatalog extends Effect.Service<HotelCatalog>()("HotelCatalog", {
  scoped: Effect.gen(function*() {
    const repo = yield* HotelRepo
    const cached = yield* Effect.cachedWithTTL(
      repo.load.pipe(Effect.orDieWith((e) => new Error(`hotel definition missing: ${e.message}`))),
      HOTEL_DEFINITION_TTL
    )
    const definition = Tracing.fn("HotelCatalog.definition")(function*() {
      return yield* cached
    })
    return {
      definition,
      hotel: Tracing.fn("HotelCatalog.hotel")(function*() {
        return hotelView(yield* definition())
      }),
      roomTypes: Tracing.fn("HotelCatalog.roomTypes")(function*() {
        const hotel = yield* definition()
        return { rooms: hotel.room_types.map((room) => roomTypeView(hotel, room)) }
      }),
      /** Today's date in hotel time. */
      today: Tracing.fn("HotelCatalog.today")(function*(hotel: HotelDefinition) {
        return todayIn(hotel.timezone, new Date(yield* Clock.currentTimeMillis))
      })
    }
  })
}) {}
