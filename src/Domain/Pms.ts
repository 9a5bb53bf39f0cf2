import { Data, type Option, Schema } from "effect"
import type { CompletedReservation } from "./CompletedReservation.js"
import type { HotelDefinition } from "./Hotel.js"
import { PackageCode, PromotionCode, RateCode, ReservationId, RoomTypeId } from "./Ids.js"
import { Language } from "./Language.js"
import { formatInstant } from "./LocalDate.js"
import { describedAmount } from "./Money.js"
import { GuestDetails, type PmsStatus, type ReservationRecord, ReservationStatus } from "./Reservation.js"
import { OfferPrice, QuoteStay } from "./Quote.js"

/**
 * A reservation as the hotel's PMS receives it (`PUT {PMS_URL}/reservations/{reservation_number}`,
 * and each change of the feed `GET /internal/v1/reservations`): codes rather than display names,
 * money as decimal amounts with the currency.
 */
export const PmsReservation = Schema.Struct({
  reservation_number: Schema.String,
  reservation_id: ReservationId,
  status: ReservationStatus,
  hotel_id: Schema.String,
  language: Language,
  stay: QuoteStay,
  rooms: Schema.Array(Schema.Struct({
    room_index: Schema.Int,
    room_type_id: RoomTypeId,
    quantity: Schema.Int,
    adults: Schema.Int,
    children_ages: Schema.Array(Schema.Int),
    total: describedAmount("This room request's share of price.total: the request priced alone on the reservation's plan (its " +
        "rooms for every night, board, promotions, promo code and tourist tax)")
  })),
  guest: GuestDetails,
  package: Schema.Struct({
    package_code: PackageCode,
    rate_code: RateCode,
    breakfast_included: Schema.Boolean,
    refundable: Schema.Boolean,
    promotions: Schema.Array(PromotionCode),
    free_cancellation_until: Schema.NullOr(Schema.String)
  }),
  promo_code: Schema.NullOr(Schema.String).annotate({
    description: "The hotel's promo code the price applies (its discount is in price.promotion_discount); null when none"
  }),
  price: OfferPrice,
  created_at: Schema.String,
  updated_at: Schema.String
}).annotate({ identifier: "PmsReservation" })
export type PmsReservation = typeof PmsReservation.Type

/**
 * The reservation after a change written at `changedAt`: the PMS push's body and the feed's
 * content, one function so that the two never differ. `view` is the record's view; the record
 * gives what the view leaves out (the price lines, when it was made).
 */
export const pmsReservation = (
  hotel: HotelDefinition,
  view: CompletedReservation,
  record: Pick<ReservationRecord, "line_totals" | "created_at">,
  changedAt: Date
): PmsReservation => ({
  reservation_number: view.reservation_number,
  reservation_id: view.reservation_id,
  status: view.status,
  hotel_id: hotel.id,
  language: view.language,
  stay: view.stay,
  rooms: view.rooms.map(({ adults, children_ages, quantity, room_index, room_type_id }, i) => ({
    room_index,
    room_type_id,
    quantity,
    adults,
    children_ages,
    total: record.line_totals[i]
  })),
  guest: view.guest,
  package: {
    package_code: view.package.package_code,
    rate_code: view.package.rate_code,
    breakfast_included: view.package.breakfast_included,
    refundable: view.package.refundable,
    promotions: view.package.promotions,
    free_cancellation_until: view.policies.free_cancellation_until
  },
  promo_code: view.promo_code?.code ?? null,
  price: view.price,
  created_at: formatInstant(new Date(record.created_at), hotel.timezone),
  // when the change was written, which orders the changes for the PMS
  updated_at: formatInstant(changedAt, hotel.timezone)
})

/** The PMS's answer to a PUT (and optionally a DELETE); other fields are ignored. */
export const PmsAnswer = Schema.Struct({
  reference: Schema.String.check(Schema.isMinLength(1))
}).annotate({ identifier: "PmsAnswer" })
export type PmsAnswer = typeof PmsAnswer.Type

/**
 * What a PMS call came to. `Disabled`: no PMS is configured, nothing was sent, and the
 * reservation's `pms_status` stays `PENDING`; the others mean `SYNCED`.
 */
export type PmsOutcome = Data.TaggedEnum<{
  /** The PMS holds the reservation as pushed, under its `reference`. */
  Synced: { readonly reference: string }
  /** The PMS no longer holds it; a PMS may answer a DELETE without a reference. */
  Cancelled: { readonly reference: Option.Option<string> }
  Disabled: {}
}>
export const PmsOutcome = Data.taggedEnum<PmsOutcome>()
export type PmsPushOutcome = Data.TaggedEnum.Value<PmsOutcome, "Synced" | "Disabled">
export type PmsCancelOutcome = Data.TaggedEnum.Value<PmsOutcome, "Cancelled" | "Disabled">

/** A change to a reservation the PMS holds (cancellation, new stay) leaves it pending until the PMS confirms that change. */
export const pmsStatusAfterChange = (status: PmsStatus | null): PmsStatus | null => status === "SYNCED" ? "PENDING" : status
