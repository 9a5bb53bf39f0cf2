import { PgClient } from "@effect/sql-pg"
import { Array as Arr, Clock, Context, Effect, Layer, Option, Ref, Stream } from "effect"
import type { ReservationId } from "../../Domain/Ids.js"
import {
  channelKinds,
  type ClaimedJob,
  jobChannel,
  type JobChannel,
  type JobId,
  type JobKind,
  type NewJob,
  replacesWaiting
} from "../../Domain/Outbox.js"
import { randomId } from "../Platform/RandomId.js"
import * as Tracing from "../Platform/Tracing.js"
import { DatabaseReach } from "./PgClients.js"

/** The channel the workers listen on: a notification sent in a transaction arrives at its commit. */
const OUTBOX_CHANNEL = "outbox_jobs"

const newJobId = () => randomId("j_") as JobId

/** The advisory lock space of emails per recipient (with a hash of the address as the second key). */
const RECIPIENT_LOCK_SPACE = 7_240_008

type WrittenJob = NewJob & { readonly id: JobId; readonly created_at: Date }

const workerOnly = Effect.die(new Error("OutboxInMemory: the outbox worker runs on PostgreSQL only"))

/** What `OutboxRepo.InMemory` holds, for the service tests: the jobs written, in order. */
export class OutboxInMemory extends Context.Service<OutboxInMemory, {
  readonly jobs: Effect.Effect<ReadonlyArray<WrittenJob>>
}>()("OutboxInMemory") {}

/** The outbox: jobs written with the state change they follow, taken by the workers. */
export class OutboxRepo extends Context.Service<OutboxRepo, {
  /**
   * Inside the caller's transaction: writes the jobs, and wakes the workers when it commits. A job
   * that `replacesWaiting` takes the place of its kind's job still waiting for the reservation.
   */
  readonly enqueue: (jobs: ReadonlyArray<NewJob>) => Effect.Effect<void>
  /** When the newest job of a kind was written for a reservation. */
  readonly lastEnqueuedAt: (reservationId: ReservationId, kind: JobKind) => Effect.Effect<Option.Option<Date>>
  /** When the jobs of a kind written for a reservation since `since` were written, oldest first. */
  readonly enqueuedSince: (reservationId: ReservationId, kind: JobKind, since: Date) => Effect.Effect<ReadonlyArray<Date>>
  /**
   * Takes up to `limit` due jobs, oldest first, for `leaseMs`: each counts an attempt. A job waits
   * while an earlier job of its reservation and channel is pending; jobs other workers hold, or
   * are claiming at this moment, are skipped.
   */
  readonly claim: (limit: number, leaseMs: number) => Effect.Effect<ReadonlyArray<ClaimedJob>>
  /** The lease renewed for `leaseMs` from now, while this attempt holds the job. */
  readonly extendLease: (job: ClaimedJob, leaseMs: number) => Effect.Effect<void>
  /** Done, if the lease is still this attempt's (else another worker has taken the job again). */
  readonly finish: (job: ClaimedJob) => Effect.Effect<boolean>
  /** Another, later job of the same reservation and channel is pending. */
  readonly hasLaterPending: (job: ClaimedJob) => Effect.Effect<boolean>
  /** To run again in `delayMs`, with the error of this attempt. */
  readonly reschedule: (job: ClaimedJob, delayMs: number, error: string) => Effect.Effect<void>
  /** Failed for good, kept with its last error; false if the lease was no longer this attempt's. */
  readonly fail: (job: ClaimedJob, error: string) => Effect.Effect<boolean>
  /**
   * Inside a transaction: how many other emails were counted against `recipient` in the last
   * `windowMs`, and whether this job's already was (a retry). The recipient's count stays locked
   * until the transaction ends: two workers never both send its last email of the day.
   */
  readonly lockRecipientCount: (
    job: ClaimedJob,
    recipient: string,
    windowMs: number
  ) => Effect.Effect<{ readonly counted: boolean; readonly others: number }>
  /** The job's email counted against its recipient, from now. */
  readonly countRecipient: (job: ClaimedJob, recipient: string) => Effect.Effect<void>
  /** Held back, never sent: kept with its recipient and the reason; false if the lease was no longer this attempt's. */
  readonly holdBack: (job: ClaimedJob, recipient: string, reason: string) => Effect.Effect<boolean>
  /** Given back unfinished (a worker shutting down): due again at once, for any worker. */
  readonly release: (job: ClaimedJob) => Effect.Effect<void>
  /** Makes the channel's jobs waiting on a backoff due now, and wakes the workers; how many. */
  readonly bringForward: (channel: JobChannel) => Effect.Effect<number>
  /** Milliseconds until the next job may be claimed (0: now); none while no job is pending. */
  readonly nextDueInMs: Effect.Effect<Option.Option<number>>
  /** The jobs waiting to be delivered, and when the oldest of them was written (none: nothing waits). */
  readonly backlog: Effect.Effect<{ readonly pending: number; readonly oldest: Option.Option<Date> }>
  /**
   * A wake-up for each commit that wrote jobs, on any instance; none without a direct connection to
   * `LISTEN` on (behind a pooler, `DATABASE_LISTEN_URL` unset): the workers then poll.
   */
  readonly wakeUps: Option.Option<Stream.Stream<void>>
}>()("OutboxRepo") {
  static readonly layer = Layer.effect(
    OutboxRepo,
    Effect.gen(function*() {
      const sql = yield* PgClient.PgClient
      const { listens } = yield* DatabaseReach
      const pmsKinds = sql.in(channelKinds("pms"))
      /** `e` is pending in the queue of job `j`: the same reservation and channel. */
      const sameQueue = sql`e.reservation_id = j.reservation_id AND e.state = 'pending'
        AND (e.kind IN ${pmsKinds}) = (j.kind IN ${pmsKinds})`
      /** `job` waits for no earlier pending job of its reservation and channel. */
      const first = sql`NOT EXISTS (SELECT 1 FROM outbox_jobs e WHERE ${sameQueue} AND e.seq < j.seq)`
      // the workers wake on any notification of the channel; the payload only names it
      const wakeWorkers = sql`SELECT pg_notify(${OUTBOX_CHANNEL}, 'jobs')`
      /** This attempt still holds the job. */
      const ours = (job: ClaimedJob) => sql`id = ${job.id} AND attempts = ${job.attempt} AND state = 'pending'`
      const changed = (statement: Effect.Effect<ReadonlyArray<unknown>, unknown>) =>
        Effect.map(statement, (rows) => rows.length > 0)
      /**
       * The job's kind waiting last in its reservation's queue now stands for this change (its trace);
       * false if none waits. A worker claiming it at this moment holds its row: the update then finds
       * it held and a new job is written; a claim after the update waits for this transaction.
       */
      const replaceWaiting = (job: NewJob, trace_context: string | null) =>
        changed(sql`
          UPDATE outbox_jobs j SET trace_context = ${trace_context}
          WHERE j.id = (
              SELECT id FROM outbox_jobs l
              WHERE l.reservation_id = ${job.reservation_id} AND l.state = 'pending'
                AND l.kind IN ${sql.in(channelKinds(jobChannel[job.kind]))}
              ORDER BY seq DESC LIMIT 1)
            AND j.kind = ${job.kind} AND j.state = 'pending' AND (j.locked_until IS NULL OR j.locked_until < now())
          RETURNING j.id`)
      return {
        enqueue: (jobs) =>
          Effect.gen(function*() {
            if (jobs.length === 0) return
            // its delivery's trace links back to this one
            const trace_context = yield* Tracing.currentTraceparent
            const replaced = yield* Effect.filter(jobs, (job) =>
              replacesWaiting(job.kind) ? replaceWaiting(job, trace_context) : Effect.succeed(false))
            const added = jobs.filter((job) => !replaced.includes(job))
            if (Arr.isReadonlyArrayNonEmpty(added)) {
              yield* sql`INSERT INTO outbox_jobs ${sql.insert(Arr.map(added, (job) => ({ id: newJobId(), ...job, trace_context })))}`
            }
            yield* wakeWorkers
          }).pipe(Effect.orDie, Tracing.withSpan("OutboxRepo.enqueue", { attributes: { jobs: jobs.map((j) => j.kind) } })),
        lastEnqueuedAt: (reservationId, kind) =>
          sql<{ created_at: string }>`
            SELECT created_at FROM outbox_jobs WHERE reservation_id = ${reservationId} AND kind = ${kind}
            ORDER BY seq DESC LIMIT 1`.pipe(
            Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), (row) => new Date(row.created_at))),
            Effect.orDie,
            Tracing.withSpan("OutboxRepo.lastEnqueuedAt")
          ),
        enqueuedSince: (reservationId, kind, since) =>
          sql<{ created_at: string }>`
            SELECT created_at FROM outbox_jobs WHERE reservation_id = ${reservationId} AND kind = ${kind} AND created_at > ${since}
            ORDER BY seq`.pipe(
            Effect.map((rows) => rows.map((row) => new Date(row.created_at))),
            Effect.orDie,
            Tracing.withSpan("OutboxRepo.enqueuedSince")
          ),
        claim: (limit, leaseMs) =>
          sql<ClaimedJob>`
            WITH due AS (
              SELECT id FROM outbox_jobs j
              WHERE state = 'pending' AND run_at <= now() AND (locked_until IS NULL OR locked_until < now()) AND ${first}
              ORDER BY seq
              LIMIT ${limit}
              FOR UPDATE SKIP LOCKED
            )
            UPDATE outbox_jobs j
            SET locked_until = now() + make_interval(secs => ${leaseMs / 1000}), attempts = j.attempts + 1
            FROM due, reservations r
            WHERE j.id = due.id AND r.id = j.reservation_id
            RETURNING j.id, j.kind, j.reservation_id, r.number AS reservation_number, j.attempts AS attempt, j.created_at,
              j.trace_context`.pipe(
            Effect.orDie,
            Tracing.withSpan("OutboxRepo.claim")
          ),
        extendLease: (job, leaseMs) =>
          sql`UPDATE outbox_jobs SET locked_until = now() + make_interval(secs => ${leaseMs / 1000}) WHERE ${ours(job)}`.pipe(
            Effect.asVoid,
            Effect.orDie,
            Tracing.withSpan("OutboxRepo.extendLease")
          ),
        finish: (job) =>
          changed(sql`
            UPDATE outbox_jobs SET state = 'done', locked_until = NULL, finished_at = now()
            WHERE ${ours(job)} RETURNING id`).pipe(Effect.orDie, Tracing.withSpan("OutboxRepo.finish")),
        hasLaterPending: (job) =>
          changed(sql`
            SELECT 1 FROM outbox_jobs e, outbox_jobs j
            WHERE j.id = ${job.id} AND ${sameQueue} AND e.seq > j.seq
            LIMIT 1`).pipe(Effect.orDie, Tracing.withSpan("OutboxRepo.hasLaterPending")),
        reschedule: (job, delayMs, error) =>
          sql`
            UPDATE outbox_jobs SET run_at = now() + make_interval(secs => ${delayMs / 1000}), locked_until = NULL,
              last_error = ${error}
            WHERE ${ours(job)}`.pipe(Effect.asVoid, Effect.orDie, Tracing.withSpan("OutboxRepo.reschedule")),
        fail: (job, error) =>
          changed(sql`
            UPDATE outbox_jobs SET state = 'failed', locked_until = NULL, last_error = ${error}, finished_at = now()
            WHERE ${ours(job)} RETURNING id`).pipe(Effect.orDie, Tracing.withSpan("OutboxRepo.fail")),
        lockRecipientCount: (job, recipient, windowMs) =>
          Effect.gen(function*() {
            yield* sql`SELECT pg_advisory_xact_lock(${RECIPIENT_LOCK_SPACE}, hashtext(${recipient}))`
            const [row] = yield* sql<{ others: number; counted: boolean | null }>`
              SELECT count(*) FILTER (WHERE id <> ${job.id})::int AS others, bool_or(id = ${job.id}) AS counted
              FROM outbox_jobs
              WHERE recipient = ${recipient} AND recipient_counted_at > now() - make_interval(secs => ${windowMs / 1000})`
            return { others: row?.others ?? 0, counted: row?.counted === true }
          }).pipe(Effect.orDie, Tracing.withSpan("OutboxRepo.lockRecipientCount")),
        countRecipient: (job, recipient) =>
          sql`UPDATE outbox_jobs SET recipient = ${recipient}, recipient_counted_at = now() WHERE ${ours(job)}`.pipe(
            Effect.asVoid,
            Effect.orDie,
            Tracing.withSpan("OutboxRepo.countRecipient")
          ),
        holdBack: (job, recipient, reason) =>
          changed(sql`
            UPDATE outbox_jobs SET state = 'held_back', recipient = ${recipient}, locked_until = NULL, last_error = ${reason},
              finished_at = now()
            WHERE ${ours(job)} RETURNING id`).pipe(Effect.orDie, Tracing.withSpan("OutboxRepo.holdBack")),
        release: (job) =>
          sql`UPDATE outbox_jobs SET locked_until = NULL WHERE ${ours(job)}`.pipe(
            Effect.asVoid,
            Effect.orDie,
            Tracing.withSpan("OutboxRepo.release")
          ),
        bringForward: (channel) =>
          Effect.gen(function*() {
            const rows = yield* sql`
              UPDATE outbox_jobs SET run_at = now()
              WHERE state = 'pending' AND run_at > now() AND kind IN ${sql.in(channelKinds(channel))}
              RETURNING id`
            if (rows.length > 0) yield* wakeWorkers
            return rows.length
          }).pipe(Effect.orDie, Tracing.withSpan("OutboxRepo.bringForward")),
        nextDueInMs: sql<{ ms: number | null }>`
          SELECT (EXTRACT(EPOCH FROM min(GREATEST(run_at, COALESCE(locked_until, run_at))) - now()) * 1000)::float8 AS ms
          FROM outbox_jobs j WHERE state = 'pending' AND ${first}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]?.ms), (ms) => Math.max(0, ms))),
          Effect.orDie,
          Tracing.withSpan("OutboxRepo.nextDueInMs")
        ),
        // on the partial index of pending jobs: the delivered ones are never read
        backlog: sql<{ readonly pending: number; readonly oldest: string | null }>`
          SELECT count(*)::int AS pending, min(created_at) AS oldest FROM outbox_jobs WHERE state = 'pending'`.pipe(
          // the driver gives a timestamptz as its text
          Effect.map((rows) => ({ pending: rows[0]?.pending ?? 0, oldest: Option.map(Option.fromNullishOr(rows[0]?.oldest), (at) => new Date(at)) })),
          Effect.orDie,
          Tracing.withSpan("OutboxRepo.backlog")
        ),
        wakeUps: listens
          ? Option.some(Stream.unwrap(Effect.map(sql.listen(OUTBOX_CHANNEL), Stream.fromQueue)).pipe(Stream.as(undefined), Stream.orDie))
          : Option.none()
      }
    })
  )

  /** The outbox in memory, for the service tests: jobs are written, no worker takes them (`OutboxInMemory` lists them). */
  static readonly InMemory: Layer.Layer<OutboxRepo | OutboxInMemory> = Layer.effectContext(
    Effect.gen(function*() {
      const jobs = yield* Ref.make<ReadonlyArray<WrittenJob>>([])
      const repo: typeof OutboxRepo.Service = {
        // no worker takes a job here: every job waits
        enqueue: (added) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Ref.update(jobs, (all) =>
              added.reduce((queue, job) => {
                const channel = jobChannel[job.kind]
                const last = queue.filter((j) => j.reservation_id === job.reservation_id && jobChannel[j.kind] === channel).at(-1)
                return replacesWaiting(job.kind) && last?.kind === job.kind
                  ? queue
                  : [...queue, { ...job, id: newJobId(), created_at: new Date(now) }]
              }, all))),
        lastEnqueuedAt: (reservationId, kind) =>
          Effect.map(Ref.get(jobs), (all) =>
            Option.fromNullishOr(all.filter((job) => job.reservation_id === reservationId && job.kind === kind).at(-1)?.created_at)),
        enqueuedSince: (reservationId, kind, since) =>
          Effect.map(Ref.get(jobs), (all) =>
            all.filter((job) => job.reservation_id === reservationId && job.kind === kind && job.created_at > since).map((job) => job.created_at)),
        claim: () => workerOnly,
        extendLease: () => workerOnly,
        finish: () => workerOnly,
        hasLaterPending: () => workerOnly,
        reschedule: () => workerOnly,
        fail: () => workerOnly,
        lockRecipientCount: () => workerOnly,
        countRecipient: () => workerOnly,
        holdBack: () => workerOnly,
        release: () => workerOnly,
        bringForward: () => workerOnly,
        nextDueInMs: workerOnly,
        backlog: Effect.map(Ref.get(jobs), (all) => ({ pending: all.length, oldest: Option.fromNullishOr(all[0]?.created_at) })),
        wakeUps: Option.some(Stream.fromEffect(workerOnly))
      }
      return Context.make(OutboxRepo, repo).pipe(Context.add(OutboxInMemory, { jobs: Ref.get(jobs) }))
    })
  )
}
