import type { GuestDetails, ReservationView } from "./Reservation.js"

/** A reservation the guest has completed: it has a number and the guest's details (emails, PMS). */
export type CompletedReservation = ReservationView & {
  readonly reservation_number: string
  readonly guest: GuestDetails
}

export const isCompleted = (view: ReservationView): view is CompletedReservation =>
  view.reservation_number !== null && view.guest !== null
