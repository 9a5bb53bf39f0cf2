import { Context, Duration, Effect, Exit, Fiber, Layer, Option, Semaphore } from "effect"
import { ServiceUnavailable } from "../Domain/Errors.js"
import { nightLookup } from "../Domain/Channel/Nights.js"
import {
  calendarDates,
  calendarRooms,
  calendarStays,
  type CalendarQuery,
  nightsToRead,
  type PriceCalendar as PriceCalendarAnswer,
  priceCalendar
} from "../Domain/PriceCalendar.js"
import { InventoryRepo } from "../Layers/Persistence/InventoryRepo.js"
import { HotelCatalog } from "./HotelCatalog.js"
import { PromoCodes } from "./PromoCodes.js"
import * as Tracing from "../Layers/Platform/Tracing.js"
import { ChannelSilence } from "./ChannelSilence.js"

/**
 * Calendars computed at once per instance. The event loop is one thread whatever the cores: a few
 * let one calendar's database read overlap another's pricing (about 10 reads' CPU each,
 * docs/limits.md), and more would only queue work ahead of every other request.
 */
export const CALENDARS_AT_ONCE = 4
/** The longest a calendar waits for its turn; past it, 503 `unavailable` with `Retry-After`. */
export const CALENDAR_WAIT = Duration.seconds(1)

const busy = new ServiceUnavailable({
  message: `${CALENDARS_AT_ONCE} price calendars are being computed: retry in a moment`,
  retry_after_seconds: 1
})

/**
 * `work` once one of the semaphore's permits is free, if one is within `maxWait`; otherwise
 * `busy`. The wait runs in a fiber of its own whose outcome is read after it is interrupted, so a
 * permit granted at the very moment the wait ends is still given back (a timeout around
 * `semaphore.take` would lose it).
 */
const inTurn = (semaphore: Semaphore.Semaphore, maxWait: Duration.Duration) =>
<A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E | ServiceUnavailable, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const turn = yield* Effect.forkChild(Effect.interruptible(semaphore.take(1)))
      const waited = yield* Effect.exit(restore(Effect.timeoutOption(Fiber.await(turn), maxWait)))
      yield* Fiber.interrupt(turn)
      const granted = Exit.isSuccess(yield* Fiber.await(turn))
      if (Exit.isFailure(waited)) {
        if (granted) yield* semaphore.release(1)
        return yield* Effect.failCause(waited.cause)
      }
      return yield* granted ? Effect.ensuring(restore(work), semaphore.release(1)) : Effect.fail(busy)
    })
  )

/** The price calendar: per arrival date, the lowest total a live quote would give. Stores nothing. */
export class PriceCalendar extends Context.Service<PriceCalendar>()("PriceCalendar", {
  make: Effect.gen(function*() {
    const catalog = yield* HotelCatalog
    const inventory = yield* InventoryRepo
    const promoCodes = yield* PromoCodes
    const silence = yield* ChannelSilence
    const calendarInTurn = inTurn(yield* Semaphore.make(CALENDARS_AT_ONCE), CALENDAR_WAIT)
    const compute = Effect.fnUntraced(function*(query: CalendarQuery) {
      const dates = yield* Effect.fromResult(calendarDates(query.from, query.to, query.nights))
      const hotel = yield* catalog.definition()
      const rooms = yield* Effect.fromResult(calendarRooms(hotel, query))
      // resolved once: a code's validity depends on today, not on the dates priced; most calendars carry none
      const promoCode = query.promo_code === undefined ? null : yield* promoCodes.resolve(query.promo_code)
      const stays = calendarStays(hotel, yield* catalog.today(hotel), dates, query.nights)
      // the nights of every stay in one read
      const nights = yield* Option.match(nightsToRead(stays), {
        onNone: () => Effect.succeed([]),
        onSome: ({ from, until }) => inventory.nightsBetween(from, until)
      })
      const answer: PriceCalendarAnswer = {
        from: query.from,
        to: query.to,
        nights: query.nights,
        adults: query.adults,
        children_ages: query.children_ages,
        currency: hotel.currency,
        days: priceCalendar({ hotel, stays, rooms, nights: yield* silence.sellable(nightLookup(nights)), promoCode })
      }
      return answer
    })
    return {
      calendar: Tracing.fn("PriceCalendar.calendar")(function*(query: CalendarQuery) {
        yield* Tracing.annotate({ from: query.from, to: query.to, nights: query.nights })
        return yield* calendarInTurn(compute(query))
      })
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([HotelCatalog.layer, PromoCodes.layer, ChannelSilence.layer]))
}
