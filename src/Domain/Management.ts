import { Option, Schema } from "effect"
import { slidingLimitWait } from "./BookingLimits.js"
import { cancellationRefusal } from "./CancellationPolicy.js"
import { rule } from "./Documentation.js"
import type { HotelDefinition } from "./Hotel.js"
import { TimeOfDay } from "./Ids.js"
import type { Language } from "./Language.js"
import { HOUR_MS } from "./Lifetimes.js"
import { type GuestDetails, type GuestField, type ManagedReservation, Phone, type RefusedAction, type ReservationRecord, SpecialRequests } from "./Reservation.js"
import { guestFields, reservationView } from "./ReservationViews.js"
import { ChangeStayAction, QuoteChangeAction } from "./StayChange.js"
import { changeRefusal } from "./StayChangePolicy.js"

/**
 * The guest's manage link, as the emails and the confirmation PDF give it: the token goes in the
 * fragment, which a browser never sends to the server.
 */
export const manageUrl = (publicBaseUrl: string, token: string): string => `${publicBaseUrl}/manage#token=${token}`

/** The guest may ask for the confirmation email again once in this time. */
export const RESEND_INTERVAL_MS = 5 * 60_000

/** Guest updates of one reservation in an hour: each queues an email (and a PMS push, and a new PDF). */
export const GUEST_UPDATES_PER_HOUR = 10
const GUEST_UPDATE_WINDOW_MS = HOUR_MS

/** Guest updates made before this instant no longer count. */
export const guestUpdateWindowStart = (now: number): number => now - GUEST_UPDATE_WINDOW_MS

/** Seconds until the reservation may take one more guest update, given those of the last hour (epoch ms, oldest first); none: now. */
export const guestUpdateWait = (recent: ReadonlyArray<number>, now: number): Option.Option<number> =>
  slidingLimitWait(GUEST_UPDATES_PER_HOUR, GUEST_UPDATE_WINDOW_MS, recent, now)

/** What the guest may change after completion; names, email and country stay as completed. */
const GuestChanges = Schema.Struct({
  phone: Schema.optionalKey(Phone),
  arrival_time: Schema.optionalKey(Schema.NullOr(TimeOfDay)),
  special_requests: Schema.optionalKey(Schema.NullOr(SpecialRequests)),
  baby_cot: Schema.optionalKey(Schema.Boolean),
  early_check_in_request: Schema.optionalKey(Schema.Boolean),
  late_check_out_request: Schema.optionalKey(Schema.Boolean)
})

export const GuestUpdate = Schema.Struct({
  action: Schema.Literal("update_guest"),
  ...GuestChanges.fields
}).pipe(
  Schema.check(rule((update: object) => Object.keys(update).length > 1 || "give at least one field to change")),
  Schema.annotate({ identifier: "GuestUpdate" })
)
export type GuestUpdate = typeof GuestUpdate.Type

export const CancelAction = Schema.Struct({ action: Schema.Literal("cancel") }).annotate({ identifier: "CancelAction" })
export const ResendConfirmationAction = Schema.Struct({ action: Schema.Literal("resend_confirmation") }).annotate({
  identifier: "ResendConfirmationAction"
})

/**
 * POST /v1/reservation-manage: one action per request. Decoded with `onExcessProperty: "error"`: a
 * field the action does not take (e.g. email in update_guest) is refused, not silently dropped.
 */
export const ManageRequest = Schema.Union([GuestUpdate, CancelAction, ResendConfirmationAction, QuoteChangeAction, ChangeStayAction])
  .annotate({
    identifier: "ReservationManageRequest",
    examples: [
      { action: "update_guest", phone: "+33 6 12 34 56 78", arrival_time: "21:30" },
      { action: "cancel" },
      { action: "resend_confirmation" }
      // quote_change and change_stay: QuoteChangeAction's and ChangeStayAction's own examples
    ]
  })
export type ManageRequest = typeof ManageRequest.Type

/** The guest's details with the update's fields; a field it leaves out stays as it was (null clears). */
export const applyGuestUpdate = (guest: GuestDetails, update: GuestUpdate): GuestDetails => ({
  ...guest,
  phone: update.phone ?? guest.phone,
  arrival_time: update.arrival_time === undefined ? guest.arrival_time : update.arrival_time,
  special_requests: update.special_requests === undefined ? guest.special_requests : update.special_requests,
  baby_cot: update.baby_cot ?? guest.baby_cot,
  early_check_in_request: update.early_check_in_request ?? guest.early_check_in_request,
  late_check_out_request: update.late_check_out_request ?? guest.late_check_out_request
})

/** Why the manage link cannot cancel or change the stay now, as the policies decide it. */
export const refusedActions = (r: ReservationRecord, now: number): ReadonlyArray<RefusedAction> => [
  ...Option.toArray(Option.map(cancellationRefusal(r, now), (refusal) => ({ action: "cancel" as const, ...refusal }))),
  ...Option.toArray(Option.map(changeRefusal(r, now), (refusal) => ({ action: "change_stay" as const, ...refusal })))
]

/** What the holder of the manage link may do now, given what the policies refuse. */
export const manageActions = (r: ReservationRecord, refused: ReadonlyArray<RefusedAction>): ReadonlyArray<string> => {
  const allowed = (action: RefusedAction["action"]) => refused.every((refusal) => refusal.action !== action)
  return r.status !== "GUEST_COMPLETED"
    ? []
    : [
      "update_guest",
      ...(allowed("cancel") ? ["cancel"] : []),
      // quote_change is answered whenever change_stay is
      ...(allowed("change_stay") ? ["change_stay"] : []),
      "resend_confirmation",
      "download_document"
    ]
}

/** The fields of the guest form that update_guest may change, with the same specs and labels as at completion. */
export const editableFields = (language: Language): ReadonlyArray<GuestField> =>
  guestFields(language).filter((field) => field.name in GuestChanges.fields)

/** The reservation as its manage link shows it. */
export const manageView = (hotel: HotelDefinition, r: ReservationRecord, now: number): ManagedReservation => {
  const refused = refusedActions(r, now)
  const actions = manageActions(r, refused)
  return {
    ...reservationView(hotel, r),
    allowed_actions: actions,
    refused_actions: refused,
    editable_fields: actions.includes("update_guest") ? editableFields(r.language) : []
  }
}
