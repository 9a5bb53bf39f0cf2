import { Context, Effect, Layer } from "effect"
import type { PromoCodeDefinition } from "../Domain/Hotel.js"
import { findPromoCode, hasUseLeft, invalidPromoCode, isUsableOn, normalizePromoCode, refusalOf } from "../Domain/PromoCodes.js"
import { ReservationRepo } from "../Layers/Persistence/ReservationRepo.js"
import * as Tracing from "../Layers/Platform/Tracing.js"
import { HotelCatalog } from "./HotelCatalog.js"

/** The hotel's promo codes against today's date (hotel time) and the uses so far (docs/decisions.md#promo-codes). */
export class PromoCodes extends Context.Service<PromoCodes>()("PromoCodes", {
  make: Effect.gen(function*() {
    const catalog = yield* HotelCatalog
    const reservations = yield* ReservationRepo

    return {
      /**
       * The hotel's code for what a request typed (any case), ready for `priceStay`'s `promoCode`;
       * null when none was typed. Unknown, not usable today or used up: `InvalidPromoCode`.
       */
      resolve: Tracing.fn("PromoCodes.resolve")(
        function*(code: string | null | undefined) {
          if (code === null || code === undefined) return null as PromoCodeDefinition | null
          const hotel = yield* catalog.definition()
          const promo = findPromoCode(hotel, code)
          if (promo === undefined) return yield* invalidPromoCode(code, "unknown")
          // the uses are read only for a code that has a limit
          const uses = promo.max_uses === undefined ? 0 : yield* reservations.countPromoCodeUses(normalizePromoCode(promo.code))
          const refusal = refusalOf(promo, yield* catalog.today(hotel), uses)
          if (refusal !== undefined) return yield* invalidPromoCode(code, refusal)
          return promo
        }
      ),
      /**
       * Inside the completion's transaction: the code a reservation applied, when it may still be
       * used (one use left, counted under its lock until the transaction ends); null when it no
       * longer may, so that the stay is priced without it.
       */
      lockForCompletion: Tracing.fn("PromoCodes.lockForCompletion")(function*(code: string | null) {
        if (code === null) return null
        const hotel = yield* catalog.definition()
        const promo = findPromoCode(hotel, code)
        if (promo === undefined || !isUsableOn(promo, yield* catalog.today(hotel))) return null
        // an unlimited code needs no count, and its completions need not wait for one another
        if (promo.max_uses === undefined) return promo
        const uses = yield* reservations.lockPromoCodeUses(normalizePromoCode(promo.code))
        return hasUseLeft(promo, uses) ? promo : null
      })
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(HotelCatalog.layer))
}
