import { Schema } from "effect"
import { ReservationId } from "./Ids.js"

/**
 * What a job delivers. Jobs of one reservation and one channel (email, PMS) run in the order they
 * were written: a cancellation never reaches the PMS before the reservation it cancels.
 */
export const JobKind = Schema.Literals([
  "confirmation_email",
  "cancellation_email",
  "guest_update_email",
  "stay_change_email",
  "pms_push",
  "pms_cancel"
])
export type JobKind = typeof JobKind.Type

/** `held_back`: an email beyond its recipient's daily limit, kept with the reason and never sent. */
export const JobState = Schema.Literals(["pending", "done", "failed", "held_back"])
export type JobState = typeof JobState.Type

/** A job to write in the transaction of the state change it follows. */
export interface NewJob {
  readonly kind: JobKind
  readonly reservation_id: ReservationId
}

export const JobId = Schema.String.pipe(Schema.brand("JobId"))
export type JobId = typeof JobId.Type

/** Jobs of one channel and one reservation are delivered in order; the channels run side by side. */
export type JobChannel = "email" | "pms"
export const jobChannel: Record<JobKind, JobChannel> = {
  confirmation_email: "email",
  cancellation_email: "email",
  guest_update_email: "email",
  stay_change_email: "email",
  pms_push: "pms",
  pms_cancel: "pms"
}
export const channelKinds = (channel: JobChannel): ReadonlyArray<JobKind> =>
  JobKind.literals.filter((kind) => jobChannel[kind] === channel)

/**
 * A PMS push sends the reservation as it is when delivered, not as it was when written: one still
 * waiting (pending, held by no worker, last of its reservation's PMS queue) already carries a later
 * change, so a new one replaces it instead of queueing a second push. Emails say what changed: each
 * is queued.
 */
export const replacesWaiting = (kind: JobKind): boolean => kind === "pms_push"

/** A job a worker holds until its lease ends. */
export interface ClaimedJob {
  readonly id: JobId
  readonly kind: JobKind
  readonly reservation_id: ReservationId
  readonly reservation_number: string | null
  /** This attempt's number, from 1: the claim counts it. */
  readonly attempt: number
  /** When the change the job delivers was written (ISO). */
  readonly created_at: string
  /** The W3C traceparent of the span that wrote the job, if traces were collected then. */
  readonly trace_context: string | null
}

export interface RetryPolicy {
  readonly maxAttempts: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
}

export interface OutboxWorkerOptions extends RetryPolicy {
  /** How long a claimed job is this worker's: a worker that dies loses its jobs to another after this. */
  readonly leaseMs: number
  /** The longest sleep between two looks at the table, should a wake-up be lost. */
  readonly pollMs: number
  /** Jobs delivered at once by this worker. */
  readonly concurrency: number
  /** At shutdown, how long the jobs in flight may take to finish before they are given back. */
  readonly drainMs: number
}

/** A worker's settings; `maxAttempts` and `concurrency` are also the defaults of `OUTBOX_MAX_ATTEMPTS` and `OUTBOX_CONCURRENCY`. */
export const defaultOutboxWorkerOptions: OutboxWorkerOptions = {
  maxAttempts: 20,
  baseDelayMs: 2_000,
  maxDelayMs: 300_000,
  leaseMs: 30_000,
  pollMs: 5_000,
  concurrency: 4,
  // after the HTTP drain (up to 8 s) the whole exit stays within 10 s; a job given back is
  // delivered by another worker, or by this one's next start
  drainMs: 1_500
}

/**
 * Exponential backoff with full jitter: after attempt n, a delay drawn evenly from
 * [0, min(max, base × 2^(n-1))], so the retries of many jobs that failed together spread out.
 * `random` is in [0, 1).
 */
export const retryDelayMs = (policy: RetryPolicy, attempt: number, random: number): number =>
  Math.round(random * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1)))
