import { Effect, Schema, Struct } from "effect"
import { wireExamples } from "./Documentation.js"
import { PackageCode, QuoteId, ReservationId, RoomTypeId, TimeOfDay } from "./Ids.js"
import { Language } from "./Language.js"
import { LocalDate } from "./LocalDate.js"
import { guestLines, oneLine, Text } from "./Text.js"
import { Amount, Cents, Currency, describedAmount } from "./Money.js"
import { ClientInfo, OfferPrice, PackageOffer, QuotedRoom, QuoteStay, type RoomUnavailability } from "./Quote.js"

/** PENDING_GUEST → GUEST_COMPLETED → CANCELLED; PENDING_GUEST → EXPIRED when the guest link lapses. */
export const ReservationStatus = Schema.Literals(["PENDING_GUEST", "GUEST_COMPLETED", "CANCELLED", "EXPIRED"]).annotate({
  identifier: "ReservationStatus"
})
export type ReservationStatus = typeof ReservationStatus.Type

/** Synchronisation with the hotel's PMS: PENDING → SYNCED or FAILED. */
export const PmsStatus = Schema.Literals(["PENDING", "SYNCED", "FAILED"]).annotate({ identifier: "PmsStatus" })
export type PmsStatus = typeof PmsStatus.Type

/** The workflow version of the spec (Versioning 3): no payment is required. */
export const WORKFLOW_VERSION = "v12"

export const IntentRequest = Schema.Struct({
  quote_id: QuoteId,
  package_code: PackageCode,
  language: Language.pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed("en" as const)))
}).annotate({
  identifier: "ReservationIntentRequest",
  examples: [{ quote_id: "q_01JD6ZK3V6W9F4T8Y2N5R7B3XQ" as QuoteId, package_code: "FLEX_BB" as PackageCode, language: "en" }]
})
export type IntentRequest = typeof IntentRequest.Type

export const IntentResponse = Schema.Struct({
  reservation_id: ReservationId,
  status: Schema.Literal("PENDING_GUEST"),
  continue_url: Schema.String.annotate({
    description: "Secure guest-completion page: present it to the user as a clickable next step"
  }),
  expires_at: Schema.String.annotate({ description: "Until when the guest link works (date-time with the hotel's offset)" }),
  language: Language,
  payment_required: Schema.Literal(false),
  workflow: Schema.Literal(WORKFLOW_VERSION),
  message: Schema.String.annotate({ description: "What to tell the user" })
}).annotate({
  identifier: "ReservationIntent",
  examples: [{
    reservation_id: "r_bMs8aVQCIqWPbAYx6TM5" as ReservationId,
    status: "PENDING_GUEST",
    continue_url: "https://book.hotel.example/complete#token=QuvYn1pAQmivYoiZLfuZt2OM23Fs98LMd8xAzGXSpLo",
    expires_at: "2026-11-23T11:34:34+01:00",
    language: "en",
    payment_required: false,
    workflow: "v12",
    message: "Reservation initiated, not yet completed: present continue_url to the guest as a clickable link."
  }]
})
export type IntentResponse = typeof IntentResponse.Type

// GuestDetails also reads back stored reservations: it takes what was accepted before the guest-text rule (docs/decisions.md#guest-text)
// (documents show it on one line, `asOneLine`); what a guest sends now takes the stricter forms.
/** The longest of each guest field: the schemas below and the guest form's fields (`guestFields`) say them. */
export const FIELD_MAX_LENGTH = { name: 100, email: 254, country: 2, special_requests: 1000 } as const

const StoredEmail = Text.check(
  Schema.isTrimmed().abort(),
  Schema.isMaxLength(FIELD_MAX_LENGTH.email).abort(),
  Schema.isPattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/u, { message: "must be an email address" })
)
const Email = StoredEmail.pipe(oneLine)
/** The longest phone number the pattern below takes: `+`, a digit and 24 more characters. */
export const PHONE_MAX_LENGTH = 26
/**
 * A phone number as the API takes it; the guest form checks the same pattern before sending (its
 * punctuation escaped inside the class: a pattern attribute is compiled with the v flag).
 */
export const PHONE_PATTERN = /^\+?[0-9][0-9 \(\)\.\-]{5,24}$/u
export const Phone = Text.check(
  Schema.isMaxLength(PHONE_MAX_LENGTH).abort(),
  Schema.isPattern(PHONE_PATTERN, { message: "must be a phone number, e.g. +33 6 12 34 56 78" })
)
const StoredName = Text.check(Schema.isTrimmed().abort(), Schema.isMinLength(1).abort(), Schema.isMaxLength(FIELD_MAX_LENGTH.name))
const Name = StoredName.pipe(oneLine)
/** A country as the API takes it; the guest form accepts lower case and sends it upper case. */
export const COUNTRY_PATTERN = /^[A-Z]{2}$/u
const Country = Schema.String.check(
  Schema.isMaxLength(FIELD_MAX_LENGTH.country).abort(),
  Schema.isPattern(COUNTRY_PATTERN, { message: "must be an ISO 3166-1 alpha-2 code" })
)
const StoredSpecialRequests = Text.check(Schema.isMaxLength(FIELD_MAX_LENGTH.special_requests))
export const SpecialRequests = StoredSpecialRequests.pipe(guestLines)

export const GuestDetails = Schema.Struct({
  first_name: StoredName,
  last_name: StoredName,
  email: StoredEmail,
  phone: Phone,
  country: Schema.NullOr(Country),
  arrival_time: Schema.NullOr(TimeOfDay),
  special_requests: Schema.NullOr(StoredSpecialRequests),
  baby_cot: Schema.Boolean,
  early_check_in_request: Schema.Boolean,
  late_check_out_request: Schema.Boolean
}).annotate({ identifier: "GuestDetails" })
export type GuestDetails = typeof GuestDetails.Type

export const CompletionRequest = Schema.Struct({
  first_name: Name,
  last_name: Name,
  email: Email,
  phone: Phone,
  country: Schema.optionalKey(Country),
  arrival_time: Schema.optionalKey(TimeOfDay),
  special_requests: Schema.optionalKey(SpecialRequests),
  baby_cot: Schema.optionalKey(Schema.Boolean),
  early_check_in_request: Schema.optionalKey(Schema.Boolean),
  late_check_out_request: Schema.optionalKey(Schema.Boolean),
  accept_terms: Schema.Boolean.annotate({ description: "Must be true" }),
  terms_version: Text.check(Schema.isMaxLength(40)).annotate({ description: "The terms_version the guest accepted (from GET /v1/reservation-public)" }),
  expected_total: describedAmount("The total the guest saw; completion fails with 409 price_changed if the live total differs")
}).annotate({ identifier: "ReservationCompletionRequest" })
export type CompletionRequest = typeof CompletionRequest.Type

export const ReservedRoom = Schema.Struct({
  ...Struct.omit(QuotedRoom.fields, ["rate_code"]),
  room_name: Schema.String
}).annotate({ identifier: "ReservedRoom" })

export const ReservedPackage = Schema.Struct(
  Struct.omit(PackageOffer.fields, ["free_cancellation_until", "price"])
).annotate({ identifier: "ReservedPackage" })

export const ReservedPromoCode = Schema.Struct({
  code: Schema.String.annotate({ description: "The promo code the reservation's price applies", examples: ["DIRECT12"] }),
  name: Schema.String.annotate({ description: "Its name, in the reservation's language" })
}).annotate({ identifier: "ReservedPromoCode" })
export type ReservedPromoCode = typeof ReservedPromoCode.Type

export const ReservationPolicies = Schema.Struct({
  refundable: Schema.Boolean,
  free_cancellation_until: Schema.NullOr(Schema.String),
  check_in_from: TimeOfDay,
  check_out_by: TimeOfDay,
  cancellation: Schema.String,
  payment: Schema.String
}).annotate({ identifier: "ReservationPolicies" })

export const ReservationView = Schema.Struct({
  reservation_id: ReservationId,
  reservation_number: Schema.NullOr(Schema.String).annotate({ description: "Given at guest completion, e.g. BR-7K3Q9X" }),
  status: ReservationStatus,
  pms_status: Schema.NullOr(PmsStatus),
  language: Language,
  stay: QuoteStay,
  rooms: Schema.Array(ReservedRoom),
  guest: Schema.NullOr(GuestDetails),
  package: ReservedPackage,
  price: OfferPrice,
  promo_code: Schema.NullOr(ReservedPromoCode).annotate({
    description: "The promo code the price applies (package.promotions names it too); null when none"
  }),
  policies: ReservationPolicies,
  allowed_actions: Schema.Array(Schema.String),
  payment_required: Schema.Literal(false),
  workflow: Schema.Literal(WORKFLOW_VERSION)
})
export type ReservationView = typeof ReservationView.Type

export const GuestField = Schema.Struct({
  name: Schema.String.annotate({ description: "The field's name in POST /v1/reservation-complete" }),
  label: Schema.String,
  type: Schema.Literals(["text", "email", "tel", "country", "time", "textarea", "checkbox"]),
  required: Schema.Boolean,
  max_length: Schema.optionalKey(Schema.Int)
}).annotate({ identifier: "GuestField" })
export type GuestField = typeof GuestField.Type

/**
 * Why the manage link cannot cancel or change the stay now (CancellationPolicy and StayChangePolicy
 * decide which): a non-refundable rate, the free-cancellation deadline of the current stay passed, or
 * a reservation no longer completed (cancelled).
 */
export const RefusalReason = Schema.Literals(["non_refundable", "deadline_passed", "not_completed"]).annotate({
  identifier: "RefusalReason"
})
export type RefusalReason = typeof RefusalReason.Type

/** An action the manage link cannot take now, and why: a code to act on and a message to show as is. */
export const RefusedAction = Schema.Struct({
  action: Schema.Literals(["cancel", "change_stay"]),
  reason: RefusalReason,
  message: Schema.String.annotate({ description: "Why, in English, with what the guest can do instead" })
}).annotate({
  identifier: "RefusedAction",
  description: "reason: non_refundable (the rate cannot be cancelled or changed online: contact the hotel), deadline_passed " +
    "(policies.free_cancellation_until has passed: contact the hotel), not_completed (the reservation is cancelled)"
})
export type RefusedAction = typeof RefusedAction.Type

/** The reservation as its manage link shows it. */
export const ManagedReservation = Schema.Struct({
  ...ReservationView.fields,
  refused_actions: Schema.Array(RefusedAction).annotate({
    description: "Beside allowed_actions: cancel and change_stay, when POST /v1/reservation-manage would refuse them now, " +
      "with the refusal's reason (the 409's details.reason) and message"
  }),
  editable_fields: Schema.Array(GuestField).annotate({
    description: "The guest's details update_guest may change now, in the order a form asks them (as guest_fields); " +
      "empty when update_guest is not an allowed action"
  })
}).annotate({ identifier: "Reservation" })
export type ManagedReservation = typeof ManagedReservation.Type

export const Terms = Schema.Struct({
  version: Schema.String,
  text: Schema.String
}).annotate({ identifier: "Terms" })

export const PublicReservation = Schema.Struct({
  ...ReservationView.fields,
  guest: Schema.NullOr(GuestDetails).annotate({
    description: "null once the reservation is no longer PENDING_GUEST: the guest link never shows the guest's details " +
      "after completion or cancellation (the manage link does)"
  }),
  expires_at: Schema.String.annotate({ description: "Until when the guest link works" }),
  guest_fields: Schema.Array(GuestField),
  terms: Terms
}).annotate({ identifier: "PublicReservation" })
export type PublicReservation = typeof PublicReservation.Type

export const CompletionResponse = Schema.Struct({
  reservation_id: ReservationId,
  reservation_number: Schema.String,
  status: Schema.Literal("GUEST_COMPLETED"),
  pms_status: PmsStatus,
  price: OfferPrice,
  promo_code: Schema.NullOr(ReservedPromoCode).annotate({ description: "The promo code the price applies; null when none" }),
  message: Schema.String
}).annotate({ identifier: "ReservationCompleted" }).pipe((schema) =>
  wireExamples(schema, [{
    reservation_id: "r_bMs8aVQCIqWPbAYx6TM5" as ReservationId,
    reservation_number: "BR-9C8ES3",
    status: "GUEST_COMPLETED",
    pms_status: "PENDING",
    price: { room_total: 58000 as Cents, promotion_discount: 0 as Cents, tourist_tax: 1560 as Cents, total: 59560 as Cents, currency: "EUR" },
    promo_code: null,
    message: "Reservation completed. A confirmation email with the PDF and a secure link to manage the reservation is on its way to the guest."
  }])
)
export type CompletionResponse = typeof CompletionResponse.Type

/** Why a room request failed at completion. */
export const ChangedRoom = Schema.Struct({
  room_index: Schema.Int,
  room_type_id: RoomTypeId,
  reason: Schema.String.annotate({
    description: "A quote's unavailable reason (channel_stale, stop_sell, closed_to_arrival, closed_to_departure, min_stay, max_stay, sold_out, " +
      "rate_not_eligible, …), price_changed, or stay_not_bookable"
  }),
  min_stay: Schema.optionalKey(Schema.Int).annotate({ description: "With reason min_stay: the fewest nights allowed" }),
  max_stay: Schema.optionalKey(Schema.Int).annotate({ description: "With reason max_stay: the most nights allowed" })
}).annotate({ identifier: "ChangedRoom" })
export type ChangedRoom = typeof ChangedRoom.Type

/** A room request a live quote found unavailable, as a 409 names it. */
export const changedRoom = ({ message: _, ...room }: RoomUnavailability): ChangedRoom => room

/** `error.details` of a 409 at completion: what changed, so the guest or agent knows what to do. */
export const ChangeDetails = Schema.Struct({
  previous_total: Schema.NullOr(Amount),
  new_total: Schema.NullOr(Amount),
  currency: Currency,
  rooms: Schema.Array(ChangedRoom)
}).annotate({ identifier: "ChangeDetails" })

/** A reservation as stored: money in cents, instants as ISO strings. */
export const ReservationRecord = Schema.Struct({
  id: ReservationId,
  number: Schema.NullOr(Schema.String),
  status: ReservationStatus,
  pms_status: Schema.NullOr(PmsStatus),
  language: Language,
  quote_id: QuoteId,
  checkin: LocalDate,
  checkout: LocalDate,
  rooms: Schema.Array(Schema.toType(QuotedRoom)),
  offer: Schema.toType(PackageOffer),
  /** Each room request's share of the total, to tell which one changed. */
  line_totals: Schema.Array(Cents),
  guest: Schema.NullOr(GuestDetails),
  terms_version: Schema.NullOr(Schema.String),
  client: ClientInfo,
  /** The promo code the reservation's offer applies (upper case, as PromoCodes normalises it); counts as a use once completed. */
  promo_code: Schema.NullOr(Schema.String),
  guest_link_expires_at: Schema.String,
  created_at: Schema.String,
  completed_at: Schema.NullOr(Schema.String)
})
export type ReservationRecord = typeof ReservationRecord.Type
