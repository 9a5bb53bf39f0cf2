import { Result } from "effect"
import { freeCancellationUntil } from "./CancellationPolicy.js"
import { roomsByType } from "./Channel/BookedSince.js"
import { freeDuringStay, type NightLookup } from "./Channel/Nights.js"
import { restrictionBound, restrictionMessage, stayRestriction } from "./Channel/Restrictions.js"
import { withDemandSurcharge } from "./DemandPricing.js"
import { childrenAgesMismatch, occupancyExceeded, unknownRateCode, unknownRoomType, ValidationError } from "./Errors.js"
import type { HotelDefinition, PromoCodeDefinition, RatePlanDefinition, RoomTypeDefinition } from "./Hotel.js"
import type { PackageCode, PromotionCode, RateCode, RoomTypeId } from "./Ids.js"
import { isoWeekday, type LocalDate, monthOf, nightsOf } from "./LocalDate.js"
import { type Cents, cents, percentOf, sum } from "./Money.js"
import { fitsRoom, occupancyRule } from "./Occupancy.js"
import { fitsStay } from "./PromoCodes.js"
import type { PackageOffer, RoomUnavailability, SingleRoomQuoteRequest } from "./Quote.js"
import type { Stay } from "./Stay.js"

/** One room request, normalised: `quantity` identical rooms with these guests. */
export interface RoomLine {
  readonly room_type_id: RoomTypeId
  readonly quantity: number
  readonly adults: number
  readonly children_ages: ReadonlyArray<number>
  readonly rate_code: RateCode | null
}

export interface PricingInput {
  readonly hotel: HotelDefinition
  readonly stay: Stay
  readonly rooms: ReadonlyArray<RoomLine>
  /** Each room type's night before this booking: rooms held, and what the hotel's systems said of it. */
  readonly nights: NightLookup
  /**
   * A promo code the guest may use (checked by the PromoCodes service): one more candidate
   * promotion of every offer whose plan and stay it fits.
   */
  readonly promoCode?: PromoCodeDefinition | null | undefined
}

export type PricingOutcome =
  | { readonly _tag: "Available"; readonly offers: ReadonlyArray<PackageOffer> }
  | { readonly _tag: "Unavailable"; readonly rooms: ReadonlyArray<RoomUnavailability> }

/** A room type's nightly base rate in the hotel file: its season's rate and the weekend supplement. The hotel's messages may replace it. */
export const fileBaseRate = (hotel: HotelDefinition, room: RoomTypeDefinition, night: LocalDate): Cents => {
  const season = hotel.seasons.find((s) => s.months.includes(monthOf(night)))!.id
  const { weekend_supplement: weekend } = hotel
  return cents(room.base_rates_cents[season]! + (weekend.iso_weekdays.includes(isoWeekday(night)) ? weekend.amount_cents : 0))
}

/** Adults count as this age for breakfast and tourist tax. */
const ADULT_AGE = 18

const guestAges = (line: RoomLine): ReadonlyArray<number> => {
  const ages: Array<number> = []
  for (let i = 0; i < line.adults; i++) ages.push(ADULT_AGE)
  return ages.concat(line.children_ages)
}

/** The single-room request as a room line; its children must each have an age. */
export const singleRoomLine = (request: SingleRoomQuoteRequest): Result.Result<RoomLine, ValidationError> => {
  const ages = request.children_ages ?? []
  return ages.length === request.children
    ? Result.succeed({
      room_type_id: request.room_type_id,
      quantity: 1,
      adults: request.adults,
      children_ages: ages,
      rate_code: request.rate_code ?? null
    })
    : Result.fail(
      childrenAgesMismatch(`children is ${request.children} but children_ages lists ${ages.length} ages: give one age per child`)
    )
}

/**
 * The first problem of the room lines, in order: unknown room type, unknown rate code, too many guests.
 * `field` names a line's fields in the messages (`rooms[0].` in a quote's body).
 */
export const validateRooms = (
  hotel: HotelDefinition,
  rooms: ReadonlyArray<RoomLine>,
  field: (index: number) => string = (i) => `rooms[${i}].`
): Result.Result<void, ValidationError> => {
  const roomIds = hotel.room_types.map((r) => r.id)
  // inactive plans are not offered to anyone, so they are as unknown as a typo
  const rateCodes: ReadonlyArray<string> = hotel.rate_plans.filter((p) => p.active).map((p) => p.code)
  for (const [i, line] of rooms.entries()) {
    const room = hotel.room_types.find((r) => r.id === line.room_type_id)
    if (room === undefined) {
      return Result.fail(
        unknownRoomType(`${field(i)}room_type_id: unknown room type "${line.room_type_id}"; known: ${roomIds.join(", ")}`)
      )
    }
    if (line.rate_code !== null && !rateCodes.includes(line.rate_code)) {
      return Result.fail(
        unknownRateCode(`${field(i)}rate_code: unknown rate code "${line.rate_code}"; known: ${rateCodes.join(", ")}`)
      )
    }
    if (!fitsRoom(room, { adults: line.adults, childrenAges: line.children_ages })) {
      return Result.fail(
        occupancyExceeded(`${field(i)}adults, children_ages: ${line.adults} adults and ${line.children_ages.length} children do not fit; ${
            occupancyRule(room)
          }`)
      )
    }
  }
  return Result.void
}

/** The room lines a stay cannot have, whatever the plan: a restriction of the hotel, or too few rooms free on a night. */
export const roomsNotToBeHad = (
  { hotel, nights, rooms, stay }: Pick<PricingInput, "hotel" | "nights" | "rooms"> & {
    readonly stay: Pick<Stay, "checkin" | "checkout">
  }
): Array<RoomUnavailability> => {
  const requested = roomsByType(rooms)
  return rooms.flatMap((line, i): Array<RoomUnavailability> => {
    const restriction = stayRestriction(nights, line.room_type_id, stay.checkin, stay.checkout)
    if (restriction !== undefined) {
      return [{
        room_index: i,
        room_type_id: line.room_type_id,
        reason: restriction.reason,
        ...restrictionBound(restriction),
        message: restrictionMessage(line.room_type_id, restriction)
      }]
    }
    const room = hotel.room_types.find((r) => r.id === line.room_type_id)!
    const free = freeDuringStay(room.inventory, nights, room.id, stay.checkin, stay.checkout)
    const wanted = requested.get(room.id)!
    return wanted <= free ? [] : [{
      room_index: i,
      room_type_id: room.id,
      reason: "sold_out",
      message: `only ${free} ${room.id} rooms are free for these dates, ${wanted} requested`
    }]
  })
}

/** Lines that cannot be had; when no plan is offered, the lines that explain why. */
const unavailability = (
  input: PricingInput,
  eligible: ReadonlyArray<RatePlanDefinition>,
  offered: ReadonlyArray<RatePlanDefinition>
): Array<RoomUnavailability> => {
  const { hotel, rooms, stay } = input
  const soldOut = roomsNotToBeHad(input)
  if (offered.length > 0) return soldOut
  const issue = (i: number, line: RoomLine, reason: RoomUnavailability["reason"], message: string): RoomUnavailability => ({
    room_index: i,
    room_type_id: line.room_type_id,
    reason,
    message
  })
  // a line that allows no eligible plan (e.g. NRF too close to check-in) is the cause
  const notEligible = rooms.flatMap((line, i) => {
    if (eligible.some((p) => line.rate_code === null || p.code === line.rate_code)) return []
    const plan = hotel.rate_plans.find((p) => p.code === line.rate_code)
    const why = plan === undefined
      ? `no rate plan can be booked ${stay.daysAhead} days before check-in`
      : `rate plan ${plan.code} needs check-in at least ${plan.min_days_ahead} days ahead; it is ${stay.daysAhead}`
    return [issue(i, line, "rate_not_eligible", why)]
  })
  // otherwise each line is bookable alone, but the lines ask for different plans
  const codes = [...new Set(rooms.flatMap((line) => line.rate_code ?? []))]
  const conflicts = notEligible.length > 0 ? [] : rooms.flatMap((line, i) =>
    line.rate_code === null ? [] : [
      issue(i, line, "no_common_rate_plan", `rooms ask for different rate plans (${codes.join(", ")}); one plan must cover every room`)
    ]
  )
  return [...soldOut, ...notEligible, ...conflicts].sort((a, b) => a.room_index - b.room_index)
}

/**
 * The FLEX price of each room line on each night, the same for every plan: the hotel's base rate for
 * the night (its message's, or the file's), with the demand surcharge.
 */
const flexRates = (
  hotel: HotelDefinition,
  states: NightLookup,
  rooms: ReadonlyArray<RoomLine>,
  nights: ReadonlyArray<LocalDate>
): ReadonlyArray<ReadonlyArray<Cents>> =>
  rooms.map((line) => {
    const room = hotel.room_types.find((r) => r.id === line.room_type_id)!
    return nights.map((night) => {
      const state = states(room.id, night)
      return withDemandSurcharge(hotel.demand_pricing, room.inventory, state, state.cells.base_rate.value ?? fileBaseRate(hotel, room, night))
    })
  })

/** The tourist tax of every guest of the tax's age, on every night, at the night's amount. */
const touristTaxOf = (
  hotel: HotelDefinition,
  rooms: ReadonlyArray<RoomLine>,
  ages: ReadonlyArray<ReadonlyArray<number>>,
  nights: ReadonlyArray<LocalDate>
): Cents => {
  // what every guest pays on a night
  const taxPerGuest = nights.map((night) => hotel.tourist_tax.periods.find((p) => p.from <= night && night <= p.until)?.amount_cents ?? 0)
  return sum(rooms.flatMap((line, i) => {
    const taxed = ages[i]!.filter((age) => age >= hotel.tourist_tax.min_age).length
    return taxPerGuest.map((amount) => line.quantity * taxed * amount)
  }))
}

/**
 * The promotion worth most on these room-nights (each rounded alone); a tie keeps the first, and a
 * promotion worth nothing is not applied.
 */
const bestPromotion = (
  candidates: ReadonlyArray<{ readonly code: PromotionCode; readonly discount_percent: number }>,
  nightLines: ReadonlyArray<number>
): { readonly code: PromotionCode; readonly discount: number } | undefined => {
  let best: { readonly code: PromotionCode; readonly discount: number } | undefined
  for (const promotion of candidates) {
    const discount = sum(nightLines.map((amount) => percentOf(amount, promotion.discount_percent)))
    if (discount > (best?.discount ?? 0)) best = { code: promotion.code, discount }
  }
  return best
}

/** Prices every offered plan for all rooms together, or says which rooms cannot be had. Assumes `validateRooms` passed. */
export const priceStay = (input: PricingInput): PricingOutcome => {
  const { hotel, nights: states, promoCode, rooms, stay } = input
  const nights = nightsOf(stay.checkin, stay.checkout)
  const eligible = hotel.rate_plans.filter((p) => p.active && stay.daysAhead >= p.min_days_ahead)
  const offered = eligible.filter((p) => rooms.every((line) => line.rate_code === null || line.rate_code === p.code))
  const unavailable = unavailability(input, eligible, offered)
  if (unavailable.length > 0) return { _tag: "Unavailable", rooms: unavailable }

  const flex = flexRates(hotel, states, rooms, nights)
  const ages = rooms.map(guestAges)
  const touristTax = touristTaxOf(hotel, rooms, ages, nights)
  const promotions = hotel.promotions.filter((p) =>
    p.active && stay.daysAhead >= p.min_days_ahead && stay.nights >= p.min_nights
  )

  const freeCancellation = freeCancellationUntil(hotel, stay.checkin)

  const offer = (plan: RatePlanDefinition): PackageOffer => {
    // one entry per room and night (quantity copies of a line): promotions round each one
    const nightLines = rooms.flatMap((line, i) => {
      const board = sum(ages[i]!.map((age) => plan.breakfast_cents.find((b) => b.min_age <= age)?.amount_cents ?? 0))
      const perNight = flex[i]!.map((f) => f - percentOf(f, plan.discount_percent) + board)
      const copies: Array<number> = []
      for (let n = 0; n < line.quantity; n++) copies.push(...perNight)
      return copies
    })
    const roomTotal = sum(nightLines)
    // the promo code last, so an automatic promotion wins a tie
    const best = bestPromotion(promoCode != null && fitsStay(promoCode, stay, plan.code) ? [...promotions, promoCode] : promotions, nightLines)
    const discount = best?.discount ?? 0
    return {
      package_code: (best === undefined ? plan.code : `${plan.code}.${best.code}`) as PackageCode,
      rate_code: plan.code,
      // quotes have no language: the reservation views show the plan's text in the guest's
      name: plan.name.en,
      description: plan.description.en,
      breakfast_included: plan.breakfast_included,
      refundable: plan.refundable,
      free_cancellation_until: plan.refundable ? freeCancellation : null,
      promotions: best === undefined ? [] : [best.code],
      price: {
        room_total: roomTotal,
        promotion_discount: cents(discount),
        tourist_tax: touristTax,
        total: cents(roomTotal - discount + touristTax),
        currency: hotel.currency
      }
    }
  }
  return { _tag: "Available", offers: offered.map(offer) }
}

/** Each room request's share of the plan's total: the request priced alone, with the same bookings. */
export const lineTotals = (input: PricingInput, rateCode: RateCode): ReadonlyArray<Cents> =>
  input.rooms.map((line) => {
    const alone = priceStay({ ...input, rooms: [{ ...line, rate_code: null }] })
    const offer = alone._tag === "Available" ? alone.offers.find((o) => o.rate_code === rateCode) : undefined
    return offer?.price.total ?? cents(0)
  })
