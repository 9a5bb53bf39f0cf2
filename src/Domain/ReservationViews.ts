import { GUEST_CATALOG, say, type SentenceKey } from "./GuestTexts.js"
import type { HotelDefinition } from "./Hotel.js"
import type { RoomTypeId } from "./Ids.js"
import { type Language, localized, type LocalizedText } from "./Language.js"
import { daysBetween } from "./LocalDate.js"
import { findPromoCode } from "./PromoCodes.js"
import type {
  GuestField,
  PublicReservation,
  ReservationRecord,
  ReservationStatus,
  ReservationView,
  ReservedPromoCode
} from "./Reservation.js"
import { FIELD_MAX_LENGTH, PHONE_MAX_LENGTH, WORKFLOW_VERSION } from "./Reservation.js"

type FieldSpec = Omit<GuestField, "label" | "name"> & { readonly name: SentenceKey }

/** What the guest form asks, in order (docs/decisions.md#reservations): names are the completion body's fields. */
const FIELDS: ReadonlyArray<FieldSpec> = [
  { name: "first_name", type: "text", required: true, max_length: FIELD_MAX_LENGTH.name },
  { name: "last_name", type: "text", required: true, max_length: FIELD_MAX_LENGTH.name },
  { name: "email", type: "email", required: true, max_length: FIELD_MAX_LENGTH.email },
  { name: "phone", type: "tel", required: true, max_length: PHONE_MAX_LENGTH },
  { name: "country", type: "country", required: false, max_length: FIELD_MAX_LENGTH.country },
  { name: "arrival_time", type: "time", required: false },
  { name: "special_requests", type: "textarea", required: false, max_length: FIELD_MAX_LENGTH.special_requests },
  { name: "baby_cot", type: "checkbox", required: false },
  { name: "early_check_in_request", type: "checkbox", required: false },
  { name: "late_check_out_request", type: "checkbox", required: false }
]

export const guestFields = (language: Language): ReadonlyArray<GuestField> =>
  FIELDS.map((field) => ({ ...field, label: say(language, field.name) }))

/** What the guest may do next in each state (the management actions come with the manage link). */
const ALLOWED_ACTIONS: Record<ReservationStatus, ReadonlyArray<string>> = {
  PENDING_GUEST: ["complete"],
  GUEST_COMPLETED: [],
  CANCELLED: [],
  EXPIRED: []
}

/** The code the reservation's price applies, named in its language; a code since gone from the file by its code alone. */
export const reservedPromoCode = (hotel: HotelDefinition, r: ReservationRecord): ReservedPromoCode | null => {
  if (r.promo_code === null) return null
  const promo = findPromoCode(hotel, r.promo_code)
  return promo === undefined ? { code: r.promo_code, name: r.promo_code } : { code: promo.code, name: localized(promo.name, r.language) }
}

/** The reservation in its language: the hotel's texts from its file, the booked offer's when its plan is gone. */
export const reservationView = (hotel: HotelDefinition, r: ReservationRecord): ReservationView => {
  const text = (t: LocalizedText) => localized(t, r.language)
  const plan = hotel.rate_plans.find((p) => p.code === r.offer.rate_code)
  const roomName = (id: RoomTypeId) => {
    const type = hotel.room_types.find((t) => t.id === id)
    return type === undefined ? id : text(type.name)
  }
  return {
    reservation_id: r.id,
    reservation_number: r.number,
    status: r.status,
    pms_status: r.pms_status,
    language: r.language,
    stay: {
      checkin: r.checkin,
      checkout: r.checkout,
      nights: daysBetween(r.checkin, r.checkout),
      check_in_time: hotel.check_in,
      check_out_time: hotel.check_out
    },
    rooms: r.rooms.map((room) => ({
      room_index: room.room_index,
      room_type_id: room.room_type_id,
      room_name: roomName(room.room_type_id),
      quantity: room.quantity,
      adults: room.adults,
      children_ages: room.children_ages
    })),
    guest: r.guest,
    package: {
      package_code: r.offer.package_code,
      rate_code: r.offer.rate_code,
      name: plan === undefined ? r.offer.name : text(plan.name),
      description: plan === undefined ? r.offer.description : text(plan.description),
      breakfast_included: r.offer.breakfast_included,
      refundable: r.offer.refundable,
      promotions: r.offer.promotions
    },
    price: r.offer.price,
    promo_code: reservedPromoCode(hotel, r),
    policies: {
      refundable: r.offer.refundable,
      free_cancellation_until: r.offer.free_cancellation_until,
      check_in_from: hotel.check_in,
      check_out_by: hotel.check_out,
      cancellation: text(hotel.policies.cancellation),
      payment: text(hotel.policies.payment)
    },
    allowed_actions: ALLOWED_ACTIONS[r.status],
    payment_required: false,
    workflow: WORKFLOW_VERSION
  }
}

/**
 * What the guest link shows. The client or agent that created the intent holds that link, so once
 * the reservation is no longer pending it shows the booking, never the guest who completed it.
 */
export const publicReservation = (hotel: HotelDefinition, r: ReservationRecord, expiresAt: string): PublicReservation => ({
  ...reservationView(hotel, r),
  guest: r.status === "PENDING_GUEST" ? r.guest : null,
  expires_at: expiresAt,
  guest_fields: guestFields(r.language),
  terms: { version: hotel.terms.version, text: hotel.terms.text[r.language] }
})

/** What the guest is told once the reservation is complete, in the reservation's language. */
export const completionMessage = (language: Language): string => GUEST_CATALOG[language].completed
