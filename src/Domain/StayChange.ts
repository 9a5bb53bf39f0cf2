import { Option, Result, Schema } from "effect"
import { groupBooking, groupBookingMessage } from "./BookingLimits.js"
import { wireExamples } from "./Documentation.js"
import { AvailabilityChanged, GroupStayChange, invalidRequest, ValidationError } from "./Errors.js"
import type { HotelDefinition, PromoCodeDefinition } from "./Hotel.js"
import type { PackageCode, PromotionCode, RateCode, RoomTypeId } from "./Ids.js"
import { addDays, LocalDate, nightsOf } from "./LocalDate.js"
import { type Cents, cents, Currency, describedAmount, majorUnitsAsCents, MAX_AMOUNT } from "./Money.js"
import { type NightsChange, roomsByType } from "./Channel/BookedSince.js"
import { type NightLookup, nightLookup, type StoredNight } from "./Channel/Nights.js"
import { lineTotals, type PricingInput, priceStay, type RoomLine, validateRooms } from "./Pricing.js"
import { appliedPromoCode, findPromoCode } from "./PromoCodes.js"
import { MultiRoomQuoteRequest, OfferPrice, type PackageOffer, type QuotedRoom, QuoteStay } from "./Quote.js"
import { changedRoom, ReservedPackage, type ReservationRecord, ReservedRoom } from "./Reservation.js"
import { reservationView } from "./ReservationViews.js"
import type { Stay } from "./Stay.js"

/**
 * A completed reservation's stay changed by its guest (docs/decisions.md#stay-changes): new dates, rooms and
 * occupancies, priced live on the reservation's own rate plan, its own rooms counting as free.
 */

/** The new stay, with rooms as `POST /v1/quotes` takes them. */
const NewStay = {
  checkin: LocalDate,
  checkout: LocalDate,
  rooms: MultiRoomQuoteRequest.fields.rooms.annotate({
    description: "The rooms of the whole new stay, as POST /v1/quotes takes them: fewer rooms cancel part of the stay. " +
      "A room's rate_code, if given, must be the reservation's plan (a change keeps the plan)"
  })
}

export const QuoteChangeAction = Schema.Struct({
  action: Schema.Literal("quote_change"),
  ...NewStay
}).annotate({
  identifier: "QuoteChangeAction",
  description: "What the change to these dates and rooms would cost; nothing changes",
  examples: [{
    action: "quote_change",
    checkin: "2027-03-13" as LocalDate,
    checkout: "2027-03-16" as LocalDate,
    rooms: [{ room_type_id: "double" as RoomTypeId, quantity: 1, adults: 2, children_ages: [1] }]
  }]
})
export type QuoteChangeAction = typeof QuoteChangeAction.Type

export const ChangeStayAction = Schema.Struct({
  action: Schema.Literal("change_stay"),
  ...NewStay,
  expected_total: describedAmount("The new total the guest saw (quote_change's new_total); 409 price_changed if the live total differs")
}).annotate({
  identifier: "ChangeStayAction",
  description: "Changes the stay to these dates and rooms at expected_total, in one step"
}).pipe((schema) =>
  wireExamples(schema, [{
    action: "change_stay",
    checkin: "2027-03-13" as LocalDate,
    checkout: "2027-03-16" as LocalDate,
    rooms: [{ room_type_id: "double" as RoomTypeId, quantity: 1, adults: 2, children_ages: [1] }],
    expected_total: 45468 as Cents
  }])
)
export type ChangeStayAction = typeof ChangeStayAction.Type

/** A change of total: negative when the new stay costs less. */
const Difference = Schema.Finite.check(Schema.isBetween({ minimum: -MAX_AMOUNT, maximum: MAX_AMOUNT })).annotate({
  description: "new_total - previous_total in major units, two decimals; negative when the new stay costs less"
}).pipe(
  Schema.decodeTo(Schema.Int, majorUnitsAsCents)
)

/** quote_change's answer: the reservation as the change would make it, and what it costs more or less. */
export const ChangeQuote = Schema.Struct({
  stay: QuoteStay,
  rooms: Schema.Array(ReservedRoom),
  package: ReservedPackage,
  price: OfferPrice.annotateKey({ description: "The new stay's price on the reservation's plan, live" }),
  previous_total: describedAmount("The reservation's total now"),
  new_total: describedAmount("The total after the change: send it as change_stay's expected_total"),
  difference: Difference,
  currency: Currency
}).annotate({
  identifier: "ChangeQuote",
  description: "quote_change's answer: the reservation as the change would make it, and what it costs more or less"
}).pipe((schema) =>
  wireExamples(schema, [{
    stay: { checkin: "2027-03-13" as LocalDate, checkout: "2027-03-16" as LocalDate, nights: 3, check_in_time: "14:00", check_out_time: "12:00" },
    rooms: [{ room_index: 0, room_type_id: "double" as RoomTypeId, room_name: "Double, city view", quantity: 1, adults: 2, children_ages: [1] }],
    package: {
      package_code: "FLEX.EARLY_BOOKING" as PackageCode,
      rate_code: "FLEX" as RateCode,
      name: "Flexible",
      description: "Room only; free cancellation until the reservation's deadline.",
      breakfast_included: false,
      refundable: true,
      promotions: ["EARLY_BOOKING" as PromotionCode]
    },
    price: { room_total: 48600 as Cents, promotion_discount: 4860 as Cents, tourist_tax: 1728 as Cents, total: 45468 as Cents, currency: "EUR" },
    previous_total: 43080 as Cents,
    new_total: 45468 as Cents,
    difference: 2388,
    currency: "EUR"
  }])
)
export type ChangeQuote = typeof ChangeQuote.Type

/** The rooms of a change as pricing takes them: checked as a quote checks them, and a rate code other than the reservation's plan refused. */
export const changeLines = (
  hotel: HotelDefinition,
  r: ReservationRecord,
  rooms: QuoteChangeAction["rooms"]
): Result.Result<ReadonlyArray<RoomLine>, ValidationError | GroupStayChange> =>
  Result.gen(function*() {
    const lines: ReadonlyArray<RoomLine> = rooms.map((room) => ({
      room_type_id: room.room_type_id,
      quantity: room.quantity,
      adults: room.adults,
      children_ages: room.children_ages,
      rate_code: room.rate_code ?? null
    }))
    yield* validateRooms(hotel, lines)
    const plan = r.offer.rate_code
    const other = lines.findIndex((line) => line.rate_code !== null && line.rate_code !== plan)
    if (other >= 0) {
      return yield* Result.fail(
        invalidRequest(`rooms[${other}].rate_code: a change keeps the reservation's rate plan ${plan}; give ${plan} or leave it out`)
      )
    }
    const group = groupBooking(hotel, lines)
    if (Option.isSome(group)) {
      return yield* Result.fail(new GroupStayChange({ ...group.value, message: `rooms: ${groupBookingMessage(group.value)}` }))
    }
    // priced on the reservation's plan, whether or not a room named it
    return lines.map((line) => ({ ...line, rate_code: null }))
  })

/** Whether the reservation already is this stay: the change was made (a request sent again changes nothing). */
export const isCurrentStay = (r: ReservationRecord, stay: Stay, lines: ReadonlyArray<RoomLine>): boolean =>
  r.checkin === stay.checkin && r.checkout === stay.checkout && r.rooms.length === lines.length &&
  r.rooms.every((room, i) => {
    const line = lines[i]!
    return room.room_type_id === line.room_type_id && room.quantity === line.quantity && room.adults === line.adults &&
      room.children_ages.length === line.children_ages.length && room.children_ages.every((age, j) => age === line.children_ages[j])
  })

/**
 * Each room type's night as the reservation's own guest sees it: its own rooms are theirs to keep or
 * give back. They leave `booked`, and they go back to what the hotel's figure leaves: taken before
 * the figure, the figure counted them; taken since, `booked_here_since` did; either way the guest
 * finds them free again under the figure (`rooms_to_sell − booked_since + own`).
 */
export const withoutOwnRooms = (rows: ReadonlyArray<StoredNight>, r: ReservationRecord): NightLookup => {
  const nights = nightLookup(rows)
  const own = roomsByType(r.rooms)
  return (roomTypeId, night) => {
    const mine = r.checkin <= night && night < r.checkout ? own.get(roomTypeId) ?? 0 : 0
    const state = nights(roomTypeId, night)
    if (mine === 0) return state
    const figure = state.cells.rooms_to_sell
    return {
      ...state,
      booked: state.booked - mine,
      cells: figure.value === null ? state.cells : { ...state.cells, rooms_to_sell: { ...figure, value: figure.value + mine } }
    }
  }
}

/**
 * What a stay change takes and gives back, night by night: nights the old and the new stay share
 * keep their rooms (only the difference moves), so a kept night is never given back and taken again,
 * which would count it as taken since the hotel's figure and need a room the figure may not have.
 */
export const nightsChanges = (r: ReservationRecord, stay: Stay, lines: ReadonlyArray<RoomLine>): ReadonlyArray<NightsChange> => {
  const held = roomsByType(r.rooms)
  const wanted = roomsByType(lines)
  const types = [...new Set([...held.keys(), ...wanted.keys()])]
  const from = r.checkin < stay.checkin ? r.checkin : stay.checkin
  const until = r.checkout > stay.checkout ? r.checkout : stay.checkout
  return types.flatMap((roomTypeId) => {
    const changes: Array<NightsChange> = []
    for (const night of nightsOf(from, until)) {
      const before = r.checkin <= night && night < r.checkout ? held.get(roomTypeId) ?? 0 : 0
      const after = stay.checkin <= night && night < stay.checkout ? wanted.get(roomTypeId) ?? 0 : 0
      const last = changes[changes.length - 1]
      // consecutive nights of the same difference make one range
      if (last !== undefined && last.checkout === night && last.rooms === after - before) {
        changes[changes.length - 1] = { ...last, checkout: addDays(night, 1) }
      } else if (after !== before) {
        changes.push({ roomTypeId, checkin: night, checkout: addDays(night, 1), rooms: after - before })
      }
    }
    return changes
  })
}

export interface PricedChange {
  readonly offer: PackageOffer
  readonly rooms: ReadonlyArray<QuotedRoom>
  readonly line_totals: ReadonlyArray<Cents>
  /** The code the new offer applies (normalised), or null: the reservation gives its use back when it no longer fits. */
  readonly promo_code: string | null
}

/**
 * The promo code the reservation holds a use of, as the hotel file defines it now: it counts on the
 * new stay like any candidate promotion, without being checked for uses left or its booking dates
 * again (the reservation already used it), and applies only if it fits the new stay.
 */
export const heldPromoCode = (hotel: HotelDefinition, r: ReservationRecord): PromoCodeDefinition | null =>
  r.promo_code === null ? null : findPromoCode(hotel, r.promo_code) ?? null

/** The new stay priced on the reservation's plan, or which rooms cannot be had and why. */
export const priceChange = (
  hotel: HotelDefinition,
  r: ReservationRecord,
  stay: Stay,
  lines: ReadonlyArray<RoomLine>,
  nights: NightLookup
): Result.Result<PricedChange, AvailabilityChanged> => {
  const plan = r.offer.rate_code
  const input: PricingInput = {
    hotel,
    stay,
    rooms: lines.map((line) => ({ ...line, rate_code: plan })),
    nights,
    promoCode: heldPromoCode(hotel, r)
  }
  const outcome = priceStay(input)
  const offer = outcome._tag === "Available" ? outcome.offers.find((o) => o.rate_code === plan) : undefined
  if (offer === undefined) {
    const rooms = outcome._tag === "Unavailable"
      ? outcome.rooms.map(changedRoom)
      : lines.map((line, room_index) => ({ room_index, room_type_id: line.room_type_id, reason: "rate_not_eligible" }))
    const notToBeHad = rooms.some((room) => room.reason !== "rate_not_eligible" && room.reason !== "no_common_rate_plan")
    return Result.fail(
      new AvailabilityChanged({
        message: notToBeHad
          ? `some rooms cannot be had for ${stay.checkin} to ${stay.checkout} (details.rooms): choose other dates or rooms; ` +
            "the reservation is unchanged"
          : `rate plan ${plan} cannot be booked for ${stay.checkin} to ${stay.checkout}: choose other dates; the reservation is unchanged`,
        currency: hotel.currency,
        rooms
      })
    )
  }
  return Result.succeed({
    offer,
    rooms: lines.map((line, room_index) => ({ room_index, ...line })),
    line_totals: lineTotals(input, plan),
    promo_code: appliedPromoCode(hotel, offer)
  })
}

/** The reservation as the change makes it. */
export const changedRecord = (r: ReservationRecord, stay: Stay, priced: PricedChange): ReservationRecord => ({
  ...r,
  checkin: stay.checkin,
  checkout: stay.checkout,
  rooms: priced.rooms,
  offer: priced.offer,
  line_totals: priced.line_totals,
  promo_code: priced.promo_code
})

/** quote_change's answer, in the reservation's language. */
export const changeQuote = (hotel: HotelDefinition, r: ReservationRecord, changed: ReservationRecord): ChangeQuote => {
  const view = reservationView(hotel, changed)
  const previous = r.offer.price.total
  const next = changed.offer.price.total
  return {
    stay: view.stay,
    rooms: view.rooms,
    package: view.package,
    price: view.price,
    previous_total: previous,
    new_total: next,
    difference: cents(next - previous),
    currency: hotel.currency
  }
}
