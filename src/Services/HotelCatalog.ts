import { type Cause, Clock, Context, Duration, Effect, Exit, Layer, Option, Semaphore } from "effect"
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
/** How soon a reload that failed is tried again. */
const RETRY_MS = 1000

/**
 * A view of the hotel definition (or of a view of it) made once per definition, not per request;
 * a reloaded definition gets its own (the old one's is dropped with it).
 */
export const memoized = <A, K extends object = HotelDefinition>(view: (of: K) => A) => {
  const views = new WeakMap<K, A>()
  return (of: K): A => {
    let made = views.get(of)
    if (made === undefined) views.set(of, made = view(of))
    return made
  }
}

/** The hotel's facts, policies and room types, from the imported definition. */
export class HotelCatalog extends Context.Service<HotelCatalog>()("HotelCatalog", {
  make: Effect.gen(function*() {
    const repo = yield* HotelRepo
    // Read on every request: a fresh copy is one clock read, far cheaper than Effect.cachedWithTTL.
    // One reload at a time. While it runs, the others answer from the copy they have, and wait
    // for it only when there is none; so no request waits behind another's wait for the database.
    let cached: { readonly hotel: HotelDefinition; readonly until: number } | undefined
    // a reload that failed with no copy to fall back on: the requests queued behind it get its
    // answer at once, not a wait of their own
    let failed: { readonly cause: Cause.Cause<never>; readonly until: number } | undefined
    const reloading = yield* Semaphore.make(1)
    const reload = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      if (cached !== undefined && now < cached.until) return cached.hotel
      if (failed !== undefined && now < failed.until) return yield* Effect.failCause(failed.cause)
      const loaded = yield* Effect.exit(repo.load.pipe(Effect.mapError((e) => new Error(`hotel definition missing: ${e.message}`)), Effect.orDie))
      if (Exit.isSuccess(loaded)) {
        cached = { hotel: loaded.value, until: now + TTL_MS }
        failed = undefined
        return loaded.value
      }
      // the database failing: the copy it had is still the hotel, read again a second after the
      // failure (which may have taken the whole deadline)
      const retryAt = (yield* Clock.currentTimeMillis) + RETRY_MS
      if (cached !== undefined) {
        cached = { hotel: cached.hotel, until: retryAt }
        return cached.hotel
      }
      failed = { cause: loaded.cause, until: retryAt }
      return yield* Effect.failCause(loaded.cause)
    })
    const definition = Tracing.fn("HotelCatalog.definition")(function*() {
      const now = yield* Clock.currentTimeMillis
      if (cached !== undefined && now < cached.until) return cached.hotel
      const stale = cached?.hotel
      const reloaded = yield* reloading.withPermitsIfAvailable(1)(reload)
      return Option.isSome(reloaded) ? reloaded.value : stale ?? (yield* reloading.withPermits(1)(reload))
    })
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
}) {
  static readonly layer = Layer.effect(this, this.make)
}
