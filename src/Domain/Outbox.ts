import { Schema } from "effect"
import { ReservationId } from "./Ids.js"

/**
 * What a job delivers. Jobs of one reservation and one channel (email, PMS) run in the order they
 * were written: a cancellation never reaches the PMS before the reservation it cancels.
 */
export const JobKind = Schema.Literal("confirmation_email", "cancellation_email", "guest_update_email", "pms_push", "pms_cancel")
export type JobKind = typeof JobKind.Type

export const JobState = Schema.Literal("pending", "done", "failed")
export type JobState = typeof JobState.Type

/** A job to write in the transaction of the state change it follows. */
export interface NewJob {
  readonly kind: JobKind
  readonly reservation_id: ReservationId
}

export const JobId = Schema.String.pipe(Schema.brand("JobId"))
export type JobId = typeof JobId.Type
