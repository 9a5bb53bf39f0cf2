import { Context, Effect, Layer } from "effect"
import type { Availability, AvailabilityQuery } from "../Domain/Availability.js"
import { freeDuringStay, nightLookup, readUntil } from "../Domain/Channel/Nights.js"
import { restrictionBound, stayRestriction } from "../Domain/Channel/Restrictions.js"
import { fitsRoom, INFANT_AGE_LIMIT } from "../Domain/Occupancy.js"
import { validateStay } from "../Domain/Stay.js"
import { InventoryRepo } from "../Layers/Persistence/InventoryRepo.js"
import { HotelCatalog } from "./HotelCatalog.js"
import * as Tracing from "../Layers/Platform/Tracing.js"
import { ChannelSilence } from "./ChannelSilence.js"

/** Live room availability: what may be sold (the hotel's figures and restrictions, less the rooms reservations hold). */
export class Inventory extends Context.Service<Inventory>()("Inventory", {
  make: Effect.gen(function*() {
    const catalog = yield* HotelCatalog
    const repo = yield* InventoryRepo
    const silence = yield* ChannelSilence
    return {
      availability: Tracing.fn("Inventory.availability")(function*(query: AvailabilityQuery) {
        yield* Tracing.annotate({ checkin: query.checkin, checkout: query.checkout })
        const hotel = yield* catalog.definition()
        const stay = yield* Effect.fromResult(validateStay(hotel, yield* catalog.today(hotel), query.checkin, query.checkout))
        const nights = yield* silence.sellable(nightLookup(yield* repo.nights(stay.checkin, readUntil(stay.checkout))))
        // children without ages count as standard guests; infants need a quote
        const guests = { adults: query.adults, childrenAges: Array(query.children).fill(INFANT_AGE_LIMIT) }
        const result: Availability = {
          checkin: stay.checkin,
          checkout: stay.checkout,
          nights: stay.nights,
          adults: query.adults,
          children: query.children,
          room_types: hotel.room_types.map((room) => {
            const available = freeDuringStay(room.inventory, nights, room.id, stay.checkin, stay.checkout)
            const restriction = stayRestriction(nights, room.id, stay.checkin, stay.checkout)
            const fits = fitsRoom(room, guests)
            return {
              room_type_id: room.id,
              name: room.name.en,
              available_rooms: available,
              fits_occupancy: fits,
              bookable: fits && available > 0 && restriction === undefined,
              reason: restriction?.reason ?? (available > 0 ? null : "sold_out"),
              ...restrictionBound(restriction)
            }
          }),
          note: "Availability only: prices, promotions and tourist tax are only in live quotes (POST /v1/quotes)."
        }
        return result
      })
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([HotelCatalog.layer, ChannelSilence.layer]))
}
