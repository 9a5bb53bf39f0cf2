import { Context, Effect, Layer, Metric, Option } from "effect"
import { completionAddressCutoff, completionRefusal, countsCompletions, type CountedCompletion } from "../Domain/BookingLimits.js"
import { RateLimited } from "../Domain/Errors.js"
import type { HotelDefinition } from "../Domain/Hotel.js"
import type { ReservationId } from "../Domain/Ids.js"
import { ReservationRepo } from "../Layers/Persistence/ReservationRepo.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"
import * as Metrics from "../Layers/Platform/Metrics.js"
import * as Tracing from "../Layers/Platform/Tracing.js"

/** What one booking takes: `roomNights` for reservation `id`, by `address`, at `at`. */
export interface Booking {
  readonly id: ReservationId
  readonly address: string
  readonly roomNights: number
  readonly at: number
}

/**
 * BOOKING_LIMIT_PER_HOUR and ROOM_NIGHTS_PER_ADDRESS_PER_DAY: what one client address takes out of
 * the inventory, counted in the database so that every instance sees it. A completion takes its
 * room-nights; a stay change the room-nights it adds beyond what the reservation held
 * (docs/limits.md): both are counted here, one at a time per address, in their own transaction.
 */
export class AddressLimits extends Context.Service<AddressLimits>()("AddressLimits", {
  make: Effect.gen(function*() {
    const config = yield* AppConfig
    const repo = yield* ReservationRepo
    // from the configuration alone: worked out once, not per booking
    const limits = { perHour: config.bookingLimitPerHour, roomNightsPerDay: config.roomNightsPerAddressPerDay }
    const limited = countsCompletions(limits)
    return {
      /**
       * Inside a transaction, before any row lock: the address's bookings of the last 24 hours,
       * locked until the transaction ends (a concurrent booking from it, on any instance, waits);
       * none when the limits are off.
       */
      lock: Tracing.fn("AddressLimits.lock")(function*(address: string, now: number) {
        return limited ? yield* repo.lockCompletionsFrom(address, new Date(completionAddressCutoff(now))) : []
      }),
      /**
       * Inside the same transaction: whether the limits allow the address `roomNights` more now,
       * given `recent` (`lock`'s); else 429 `rate_limited`. Asked before the booking's other checks,
       * so an address over its limits is told so first.
       */
      check: Tracing.fn("AddressLimits.check")(function*(
        hotel: HotelDefinition,
        recent: ReadonlyArray<CountedCompletion>,
        booking: Booking
      ) {
        if (!limited) return
        const refusal = completionRefusal(limits, hotel, recent, booking.roomNights, booking.at)
        if (Option.isSome(refusal)) {
          const { limit, ...refused } = refusal.value
          yield* Metric.update(Metrics.requestsRefused({ reason: limit }), 1)
          return yield* new RateLimited(refused)
        }
      }),
      /**
       * Inside the same transaction, once the booking is made: counted by the next `lock`. Last, so
       * that a booking refused after its `check` (a 409) counts nothing, also where no rollback undoes it.
       */
      record: Tracing.fn("AddressLimits.record")(function*(booking: Booking) {
        if (!limited) return
        yield* repo.recordCompletionFrom(booking.id, booking.address, { at: booking.at, roomNights: booking.roomNights })
      })
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
