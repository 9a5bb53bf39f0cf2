import { Data, type Option, Schema } from "effect"
import type { CompletedReservation } from "./CompletedReservation.js"
import type { HotelDefinition } from "./Hotel.js"
import { PackageCode, PromotionCode, RateCode, ReservationId, RoomTypeId } from "./Ids.js"
import { Language } from "./Language.js"
import { GuestDetails, type PmsStatus, ReservationStatus } from "./Reservation.js"
import { OfferPrice, QuoteStay } from "./Quote.js"

/**
 * A reservation as the hotel's PMS receives it (`PUT {PMS_URL}/reservations/{reservation_number}`):
 * codes rather than display names, money as decimal amounts with the currency.
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
    children_ages: Schema.Array(Schema.Int)
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
  price: OfferPrice,
  created_at: Schema.String,
  updated_at: Schema.String
}).annotations({ identifier: "PmsReservation" })
export type PmsReservation = typeof PmsReservation.Type

/** When the reservation was made, and when the change being pushed happened (ISO date-times). */
export interface PmsTimestamps {
  readonly created_at: string
  readonly updated_at: string
}

export const pmsReservation = (
  hotel: HotelDefinition,
  view: CompletedReservation,
  times: PmsTimestamps
): PmsReservation => ({
  reservation_number: view.reservation_number,
  reservation_id: view.reservation_id,
  status: view.status,
  hotel_id: hotel.id,
  language: view.language,
  stay: view.stay,
  rooms: view.rooms.map(({ adults, children_ages, quantity, room_index, room_type_id }) => ({
    room_index,
    room_type_id,
    quantity,
    adults,
    children_ages
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
  price: view.price,
  created_at: times.created_at,
  updated_at: times.updated_at
})

/** The PMS's answer to a PUT (and optionally a DELETE); other fields are ignored. */
export const PmsAnswer = Schema.Struct({
  reference: Schema.String.pipe(Schema.minLength(1))
}).annotations({ identifier: "PmsAnswer" })
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
