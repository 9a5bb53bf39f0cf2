import { Effect, Option } from "effect"
import { nightLookup } from "../Domain/Channel.js"
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

/** The price calendar: per arrival date, the lowest total a live quote would give. Stores nothing. */
export class PriceCalendar extends Effect.Service<PriceCalendar>()("PriceCalendar", {
  effect: Effect.gen(function*() {
    const catalog = yield* HotelCatalog
    const inventory = yield* InventoryRepo
    const promoCodes = yield* PromoCodes
    return {
      calendar: Tracing.fn("PriceCalendar.calendar")(function*(query: CalendarQuery) {
        yield* Tracing.annotate({ from: query.from, to: query.to, nights: query.nights })
        const dates = yield* calendarDates(query.from, query.to, query.nights)
        const hotel = yield* catalog.definition()
        const rooms = yield* calendarRooms(hotel, query)
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
          days: priceCalendar({ hotel, stays, rooms, nights: nightLookup(nights), promoCode })
        }
        return answer
      })
    }
  }),
  dependencies: [HotelCatalog.Default, PromoCodes.Default]
}) {}
