import { Clock, Duration, Effect } from "effect"
import { type HotelDefinition, hotelView, roomTypeView } from "../Domain/Hotel.js"
import { Language } from "../Domain/Language.js"
import { todayIn } from "../Domain/LocalDate.js"
import { HotelRepo } from "../Layers/Persistence/HotelRepo.js"
import * as Tracing from "../Layers/Platform/Tracing.js"

/**
 * How long an instance keeps the hotel definition before reading it again: a re-import reaches
 * every instance within this time, and no request pays a database round trip for it.
 */
export const HOTEL_DEFINITION_TTL = "5 seconds"
const TTL_MS = Duration.toMillis(HOTEL_DEFINITION_TTL)

/** The hotel's facts, policies and room types, from the imported definition. */
export class HotelCatalog extends Effect.Service<HotelCatalog>()("HotelCatalog", {
  effect: Effect.gen(function*() {
    const repo = yield* HotelRepo
    // Read on every request: a fresh copy is one clock read, far cheaper than Effect.cachedWithTTL.
    // One reload at a time; the others wait for it.
    let cached: { readonly hotel: HotelDefinition; readonly until: number } | undefined
    const reloading = yield* Effect.makeSemaphore(1)
    const reload = reloading.withPermits(1)(Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      if (cached !== undefined && now < cached.until) return cached.hotel
      const hotel = yield* repo.load.pipe(Effect.orDieWith((e) => new Error(`hotel definition missing: ${e.message}`)))
      cached = { hotel, until: now + TTL_MS }
      return hotel
    }))
    const definition = Tracing.fn("HotelCatalog.definition")(function*() {
      const now = yield* Clock.currentTimeMillis
      return cached !== undefined && now < cached.until ? cached.hotel : yield* reload
    })
    // the views of a definition are made once, not per request; a reloaded definition gets its own
    const memoized = <A>(view: (hotel: HotelDefinition) => A) => {
      const views = new WeakMap<HotelDefinition, A>()
      return (hotel: HotelDefinition): A => {
        let made = views.get(hotel)
        if (made === undefined) views.set(hotel, made = view(hotel))
        return made
      }
    }
    const hotelViewOf = memoized(hotelView)
    const roomTypesOf = memoized((hotel) =>
      Object.fromEntries(Language.literals.map((language) => [language, { rooms: hotel.room_types.map((room) => roomTypeView(hotel, room, language)) }]))
    )
    return {
      definition,
      hotel: Tracing.fn("HotelCatalog.hotel")(function*() {
        return hotelViewOf(yield* definition())
      }),
      roomTypes: Tracing.fn("HotelCatalog.roomTypes")(function*(language: Language = "en") {
        return roomTypesOf(yield* definition())[language]!
      }),
      /** Today's date in hotel time. */
      today: Tracing.fn("HotelCatalog.today")(function*(hotel: HotelDefinition) {
        return todayIn(hotel.timezone, new Date(yield* Clock.currentTimeMillis))
      })
    }
  })
}) {}
