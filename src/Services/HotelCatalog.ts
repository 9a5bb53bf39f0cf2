import { Clock, Effect } from "effect"
import { hotelView, roomTypeView } from "../Domain/Hotel.js"
import { todayIn } from "../Domain/LocalDate.js"
import { HotelRepo } from "../Layers/HotelRepo.js"

/** The hotel's facts, policies and room types, read live from the imported definition. */
export class HotelCatalog extends Effect.Service<HotelCatalog>()("HotelCatalog", {
  effect: Effect.gen(function*() {
    const repo = yield* HotelRepo
    const definition = Effect.fn("HotelCatalog.definition")(function*() {
      return yield* repo.load.pipe(Effect.orDieWith((e) => new Error(`hotel definition missing: ${e.message}`)))
    })
    return {
      definition,
      hotel: Effect.fn("HotelCatalog.hotel")(function*() {
        return hotelView(yield* definition())
      }),
      roomTypes: Effect.fn("HotelCatalog.roomTypes")(function*() {
        const hotel = yield* definition()
        return { rooms: hotel.room_types.map((room) => roomTypeView(hotel, room)) }
      }),
      /** Today's date in hotel time. */
      today: Effect.fn("HotelCatalog.today")(function*() {
        const hotel = yield* definition()
        return todayIn(hotel.timezone, new Date(yield* Clock.currentTimeMillis))
      })
    }
  })
}) {}
