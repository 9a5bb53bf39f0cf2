import { Option, Result, Schema, SchemaTransformation } from "effect"
import { jsonCount, NumberText, urlCount } from "./Availability.js"
import { readUntil } from "./Channel/Nights.js"
import { RestrictionReason } from "./Channel/Restrictions.js"
import { wireExamples, withDefault } from "./Documentation.js"
import { invalidDates, rangeTooLong, ValidationError } from "./Errors.js"
import type { HotelDefinition } from "./Hotel.js"
import { PackageCode, RateCode, RoomTypeId } from "./Ids.js"
import { addDays, daysBetween, LocalDate } from "./LocalDate.js"
import { Amount, type Cents, Currency } from "./Money.js"
import { DEFAULT_ADULTS, fitsRoom, MAX_ADULTS_PER_ROOM, MAX_CHILD_AGE, MAX_CHILDREN_PER_ROOM } from "./Occupancy.js"
import { type PricingInput, priceStay, type RoomLine, validateRooms } from "./Pricing.js"
import { ChildAge, ChildrenAges, describeReasons, type PackageOffer, PromoCodeInput, type RoomUnavailability } from "./Quote.js"
import { type Stay, validateStay } from "./Stay.js"

/** The most arrival dates one calendar answers: two months. */
export const MAX_CALENDAR_DATES = 62
/** The longest stay a calendar prices (the hotel's own `max_nights` may be shorter). */
export const MAX_CALENDAR_NIGHTS = 30

/**
 * `1,8` in a URL: each child's age, comma-separated. Empty is no children, as a page that joins an
 * empty list of ages sends it (`children_ages=`).
 */
const ChildrenAgesText = Schema.String.check(
  Schema.isMaxLength(3 * MAX_CHILDREN_PER_ROOM - 1),
  // the document shows the text's form; the ages are checked one by one below, each naming its own fault
  Schema.makeFilter(() => true, {
    toJsonSchema: () => ({ pattern: `^(\\d{1,2}(,\\d{1,2}){0,${MAX_CHILDREN_PER_ROOM - 1}})?$` })
  })
).pipe(
  Schema.decodeTo(
    Schema.Array(NumberText.pipe(Schema.decodeTo(ChildAge))).check(Schema.isMaxLength(MAX_CHILDREN_PER_ROOM)),
    SchemaTransformation.transform({
      decode: (text: string): ReadonlyArray<string> => text === "" ? [] : text.split(","),
      encode: (ages: ReadonlyArray<string>) => ages.join(",")
    })
  )
)

/** The fields of a calendar query; counts and ages encoded as a URL (text) or as JSON carries them. */
const calendarFields = <C, A>(
  count: (min: number, max: number) => Schema.Codec<number, C>,
  ages: Schema.Codec<ReadonlyArray<number>, A>
) => ({
  from: LocalDate.annotateKey({ description: "First arrival date" }),
  to: LocalDate.annotateKey({ description: `Last arrival date (inclusive); at most ${MAX_CALENDAR_DATES} dates from from` }),
  nights: count(1, MAX_CALENDAR_NIGHTS).pipe(withDefault(`Nights of each stay, 1 to ${MAX_CALENDAR_NIGHTS} (default 1)`, () => 1)),
  adults: count(1, MAX_ADULTS_PER_ROOM).pipe(withDefault(`Adults in the room, 1 to ${MAX_ADULTS_PER_ROOM} (default ${DEFAULT_ADULTS})`, () => DEFAULT_ADULTS)),
  children_ages: ages.pipe(withDefault(`Age of each child in the room on check-in, 0 to ${MAX_CHILD_AGE}, at most ${MAX_CHILDREN_PER_ROOM} children`, () => [])),
  room_type_id: Schema.optionalKey(RoomTypeId).annotateKey({ description: "Only this room type; omit for any that fits" }),
  rate_code: Schema.optionalKey(RateCode).annotateKey({ description: "Only this rate plan; omit for every eligible plan" }),
  promo_code: Schema.optionalKey(PromoCodeInput)
})

/** GET /v1/calendar's query string (`children_ages=1,8`). */
export const CalendarQuery = Schema.Struct(calendarFields(urlCount, ChildrenAgesText))
/**
 * The same query as JSON (the MCP tool `price_calendar`): counts as integers, `children_ages` an
 * array. An unknown field is refused, as its `inputSchema` says: the tool decodes it with
 * `onExcessProperty: "error"`.
 */
export const CalendarParams = Schema.Struct(calendarFields(jsonCount, ChildrenAges))
export type CalendarQuery = typeof CalendarQuery.Type

export const NoOfferReason = Schema.Literals([
  "past",
  "beyond_booking_window",
  "stay_too_long",
  "no_eligible_rate",
  ...RestrictionReason.literals,
  "sold_out"
])
export type NoOfferReason = typeof NoOfferReason.Type

export const CalendarDay = Schema.Struct({
  checkin: LocalDate,
  checkout: LocalDate,
  available: Schema.Boolean,
  lowest_total: Schema.NullOr(Amount).annotate({
    description: "The lowest price.total POST /v1/quotes would answer now for one room of this occupancy and stay; " +
      "null when nothing can be offered. Only a quote's total is official."
  }),
  room_type_id: Schema.NullOr(RoomTypeId).annotate({ description: "The room type of the lowest total" }),
  package_code: Schema.NullOr(PackageCode).annotate({ description: "The package of the lowest total, as a quote names it" }),
  rate_code: Schema.NullOr(RateCode),
  reason: Schema.NullOr(NoOfferReason).annotate({
    description: "Why nothing can be offered; null when available. past, beyond_booking_window or stay_too_long: the arrival " +
      "date or nights cannot be booked online; no_eligible_rate: no rate plan can be booked for this arrival; else the first " +
      "that applies (without room_type_id, for the first fitting room type): " +
      describeReasons([...RestrictionReason.literals, "sold_out"])
  }),
  min_stay: Schema.optionalKey(Schema.Int).annotate({ description: "With reason min_stay: the fewest nights a stay arriving that day may have" }),
  max_stay: Schema.optionalKey(Schema.Int).annotate({ description: "With reason max_stay: the most nights a stay arriving that day may have" })
}).annotate({ identifier: "CalendarDay" })
export type CalendarDay = typeof CalendarDay.Type

export const PriceCalendar = Schema.Struct({
  from: LocalDate,
  to: LocalDate,
  nights: Schema.Int,
  adults: Schema.Int,
  children_ages: Schema.Array(Schema.Int),
  currency: Currency,
  days: Schema.Array(CalendarDay).annotate({ description: "One per arrival date from from to to, in order" })
}).annotate({ identifier: "PriceCalendar" }).pipe((schema) =>
  wireExamples(schema, [{
    from: "2027-03-12" as LocalDate,
    to: "2027-03-13" as LocalDate,
    nights: 2,
    adults: 2,
    children_ages: [],
    currency: "EUR",
    days: [
      {
        checkin: "2027-03-12" as LocalDate,
        checkout: "2027-03-14" as LocalDate,
        available: true,
        lowest_total: 21744 as Cents,
        room_type_id: "double" as RoomTypeId,
        package_code: "NRF.EARLY_BOOKING" as PackageCode,
        rate_code: "NRF" as RateCode,
        reason: null
      },
      {
        checkin: "2027-03-13" as LocalDate,
        checkout: "2027-03-15" as LocalDate,
        available: false,
        lowest_total: null,
        room_type_id: null,
        package_code: null,
        rate_code: null,
        reason: "sold_out"
      }
    ]
  }])
)
export type PriceCalendar = typeof PriceCalendar.Type

/** The last day a date can name: every stay's checkout is one. */
const LAST_DATE = "9999-12-31" as LocalDate

/** The arrival dates from `from` to `to`, inclusive, for stays of `nights` nights. */
export const calendarDates = (
  from: LocalDate,
  to: LocalDate,
  nights: number
): Result.Result<ReadonlyArray<LocalDate>, ValidationError> => {
  const count = daysBetween(from, to) + 1
  if (count < 1) return Result.fail(invalidDates("to must not be before from"))
  if (count > MAX_CALENDAR_DATES) {
    return Result.fail(
      rangeTooLong(`from to to spans ${count} arrival dates; a calendar answers at most ${MAX_CALENDAR_DATES}`)
    )
  }
  if (daysBetween(to, LAST_DATE) < nights) {
    return Result.fail(invalidDates(`the last stay would end after ${LAST_DATE}`))
  }
  return Result.succeed(Array.from({ length: count }, (_, i) => addDays(from, i)))
}

/**
 * The one-room lines a calendar prices, in room type order: the asked room type, or every one the
 * guests fit. Refused as a quote for them would be: unknown room type or rate code, or guests no
 * room (or not the asked one) takes.
 */
export const calendarRooms = (
  hotel: HotelDefinition,
  query: Pick<CalendarQuery, "adults" | "children_ages" | "room_type_id" | "rate_code">
): Result.Result<ReadonlyArray<RoomLine>, ValidationError> => {
  const ids = query.room_type_id === undefined ? hotel.room_types.map((r) => r.id) : [query.room_type_id]
  const lines = ids.map((room_type_id): RoomLine => ({
    room_type_id,
    quantity: 1,
    adults: query.adults,
    children_ages: query.children_ages,
    rate_code: query.rate_code ?? null
  }))
  const fitting = lines.filter((line) => {
    const room = hotel.room_types.find((r) => r.id === line.room_type_id)
    return room !== undefined && fitsRoom(room, { adults: line.adults, childrenAges: line.children_ages })
  })
  // with nothing fitting, the first line's problem is the answer
  const checked = fitting.length > 0 ? fitting : lines
  return Result.map(validateRooms(hotel, checked, () => ""), () => checked)
}

/** Why a stay that the booking rules refuse has no offer. */
const refusal = (error: ValidationError): NoOfferReason =>
  error.code === "stay_too_long" ? "stay_too_long" : error.code === "booking_window_exceeded" ? "beyond_booking_window" : "past"

/** An arrival date's stay, and whether the booking rules allow it (or why not). */
export interface CalendarStay {
  readonly checkin: LocalDate
  readonly checkout: LocalDate
  readonly validated: Result.Result<Stay, NoOfferReason>
}

export const calendarStays = (
  hotel: HotelDefinition,
  today: LocalDate,
  dates: ReadonlyArray<LocalDate>,
  nights: number
): ReadonlyArray<CalendarStay> =>
  dates.map((checkin) => {
    const checkout = addDays(checkin, nights)
    return { checkin, checkout, validated: Result.mapError(validateStay(hotel, today, checkin, checkout), refusal) }
  })

/** The nights the stays need: from the first bookable check-in up to the last checkout, that date included (closed to departure); none when no stay is bookable. */
export const nightsToRead = (
  stays: ReadonlyArray<CalendarStay>
): Option.Option<{ readonly from: LocalDate; readonly until: LocalDate }> => {
  const bookable = stays.filter((stay) => Result.isSuccess(stay.validated))
  return bookable.length === 0
    ? Option.none()
    : Option.some({ from: bookable[0]!.checkin, until: readUntil(bookable[bookable.length - 1]!.checkout) })
}

const noOffer = (
  { checkin, checkout }: CalendarStay,
  reason: NoOfferReason,
  bound: { readonly min_stay?: number | undefined; readonly max_stay?: number | undefined } = {}
): CalendarDay => ({
  checkin,
  checkout,
  available: false,
  lowest_total: null,
  room_type_id: null,
  package_code: null,
  rate_code: null,
  reason,
  ...(bound.min_stay === undefined ? {} : { min_stay: bound.min_stay }),
  ...(bound.max_stay === undefined ? {} : { max_stay: bound.max_stay })
})

/**
 * Each date's lowest total, as a quote for one room of each line would answer it (the same
 * `priceStay`): the lowest `price.total` of all their offers, the first room type then the first
 * offer on a tie. With no offer at all: no plan may be booked for the stay, else the first room
 * type's reason (a restriction of the hotel, or sold out).
 */
export const priceCalendar = (input: {
  readonly hotel: HotelDefinition
  readonly stays: ReadonlyArray<CalendarStay>
  readonly rooms: ReadonlyArray<RoomLine>
  readonly nights: PricingInput["nights"]
  readonly promoCode: PricingInput["promoCode"]
}): ReadonlyArray<CalendarDay> =>
  input.stays.map((day) => {
    if (Result.isFailure(day.validated)) return noOffer(day, day.validated.failure)
    const stay = day.validated.success
    let best: { readonly line: RoomLine; readonly offer: PackageOffer } | undefined
    let first: RoomUnavailability | undefined
    let notEligible = false
    for (const line of input.rooms) {
      const outcome = priceStay({ hotel: input.hotel, stay, rooms: [line], nights: input.nights, promoCode: input.promoCode })
      if (outcome._tag === "Unavailable") {
        // eligibility depends on the dates and the plan asked, never on the room type
        if (outcome.rooms.some((room) => room.reason === "rate_not_eligible")) notEligible = true
        first ??= outcome.rooms[0]
        continue
      }
      for (const offer of outcome.offers) {
        if (best === undefined || offer.price.total < best.offer.price.total) best = { line, offer }
      }
    }
    if (best === undefined) {
      if (notEligible) return noOffer(day, "no_eligible_rate")
      // a line that only conflicts with other lines' plans cannot be first here: a calendar prices one line at a time
      return first === undefined || !Schema.is(NoOfferReason)(first.reason)
        ? noOffer(day, "sold_out")
        : noOffer(day, first.reason, first)
    }
    return {
      checkin: day.checkin,
      checkout: day.checkout,
      available: true,
      lowest_total: best.offer.price.total,
      room_type_id: best.line.room_type_id,
      package_code: best.offer.package_code,
      rate_code: best.offer.rate_code,
      reason: null
    }
  })
