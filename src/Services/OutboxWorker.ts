import { Cause, Effect, Fiber, FiberSet, Layer, Metric, Option, Queue, Random, Ref, Stream } from "effect"
import { type ClaimedJob, defaultOutboxWorkerOptions, type JobChannel, jobChannel, type OutboxWorkerOptions, retryDelayMs } from "../Domain/Outbox.js"
import { OutboxRepo } from "../Layers/Persistence/OutboxRepo.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"
import * as Metrics from "../Layers/Platform/Metrics.js"
import { DatabaseOutage } from "./DatabaseOutage.js"
import { Deliveries, isRetryable } from "./Deliveries.js"

/** Failures in a row after which a channel counts as having been down (a mail server, the PMS). */
const OUTAGE_STREAK = 3
/** Never loop faster than this while a job is due that another worker is claiming. */
const MIN_WAIT_MS = 10

/**
 * What a worker tells beside its work. `idle` runs each time a claim found nothing due while no
 * delivery of this worker is in flight: from then on it sends nothing until a job becomes due.
 * Tests wait on it to assert that nothing more arrives; the service passes nothing.
 */
export interface OutboxWorkerHooks {
  readonly idle: Effect.Effect<void>
}

const run = (options: OutboxWorkerOptions, hooks: OutboxWorkerHooks) =>
  Effect.gen(function*() {
    const outbox = yield* OutboxRepo
    const deliveries = yield* Deliveries
    const outage = yield* DatabaseOutage
    // wake-ups collapse into one: a commit, a finished delivery, or a channel back up
    const wake = yield* Queue.sliding<void>(1)
    const signal = Queue.offer(wake, undefined)
    const inFlight = yield* FiberSet.make<void>()
    const busy = yield* Ref.make(0)
    const failureStreak = yield* Ref.make<Record<JobChannel, number>>({ email: 0, pms: 0 })

    const retryOrGiveUp = (job: ClaimedJob, error: string, retryable: boolean) =>
      Effect.gen(function*() {
        yield* Metric.update(Metrics.outboxFailures({ kind: jobChannel[job.kind] }), 1)
        if (retryable && job.attempt < options.maxAttempts) {
          const delayMs = retryDelayMs(options, job.attempt, yield* Random.next)
          yield* outbox.reschedule(job, delayMs, error)
          yield* Effect.logWarning(`outbox: ${job.kind} failed, retry in ${delayMs} ms`).pipe(Effect.annotateLogs({ error }))
        } else {
          yield* deliveries.giveUp(job, error)
          yield* Effect.logError(`outbox: ${job.kind} failed for good after ${job.attempt} attempt(s)`).pipe(
            Effect.annotateLogs({ error })
          )
        }
      })

    /** After a channel's outage, its first success makes the jobs waiting on a backoff due at once. */
    const succeeded = (channel: JobChannel) =>
      Effect.gen(function*() {
        const streak = yield* Ref.getAndUpdate(failureStreak, (all) => ({ ...all, [channel]: 0 }))
        if (streak[channel] < OUTAGE_STREAK) return
        const count = yield* outbox.bringForward(channel)
        if (count > 0) yield* Effect.logInfo(`outbox: ${channel} is back, ${count} waiting job(s) due now`)
      })

    // no span of its own: the delivery is a trace of its own (Deliveries.deliver)
    const attempt = Effect.fnUntraced(function*(job: ClaimedJob) {
      const channel = jobChannel[job.kind]
      // a slow delivery (a mail server that tarpits) keeps its lease, so no other worker sends it again
      const keepLease = outbox.extendLease(job, options.leaseMs).pipe(
        Effect.delay(options.leaseMs / 3),
        Effect.forever,
        Effect.catchCause((cause) => Effect.logWarning("outbox: lease not renewed", cause))
      )
      yield* Effect.andThen(Effect.forkScoped(keepLease), deliveries.deliver(job)).pipe(
        Effect.scoped,
        Effect.andThen(succeeded(channel)),
        Effect.catchCause((cause) => {
          if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
          // a defect (the database gone for a moment, a bug) is retried: the job is never dropped
          const [error, retryable] = Option.match(Cause.findErrorOption(cause), {
            onNone: () => [Cause.pretty(cause), true] as const,
            onSome: (failure) => [failure.message, isRetryable(failure)] as const
          })
          return Effect.andThen(
            retryable ? Ref.update(failureStreak, (all) => ({ ...all, [channel]: all[channel] + 1 })) : Effect.void,
            retryOrGiveUp(job, error, retryable)
          )
        }),
        // its bookkeeping failing too (the database down): the lease runs out and the job is taken again
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause)
            : outage.logUnlessDatabase(cause, Effect.logError("outbox: job left to its lease", cause))
        ),
        Effect.onInterrupt(() => outbox.release(job)),
        Effect.annotateLogs({ "job.id": job.id, "job.kind": job.kind, "reservation.number": job.reservation_number ?? "", attempt: job.attempt })
      )
    })

    /** Claims what there is room for, starts it, then sleeps until a wake-up or the next due job. */
    const tick = Effect.gen(function*() {
      const room = options.concurrency - (yield* Ref.get(busy))
      // a job claimed is always started, so a shutdown cannot strand it until its lease ends
      const claimed = yield* Effect.uninterruptible(Effect.gen(function*() {
        const jobs = room > 0 ? yield* outbox.claim(room, options.leaseMs) : []
        for (const job of jobs) {
          yield* Ref.update(busy, (n) => n + 1)
          // interruptible again, or a shutdown could not give the job back
          const delivery = Effect.interruptible(attempt(job)).pipe(Effect.ensuring(Effect.andThen(Ref.update(busy, (n) => n - 1), signal)))
          yield* FiberSet.run(inFlight, delivery)
        }
        return jobs.length
      }))
      if (room > 0 && claimed === room) return // more may be due
      if (claimed === 0 && (yield* Ref.get(busy)) === 0) yield* hooks.idle
      const nextDue = room > claimed ? yield* outbox.nextDueInMs : Option.none()
      const waitMs = Option.match(nextDue, {
        onNone: () => options.pollMs,
        onSome: (ms) => Math.min(options.pollMs, Math.max(MIN_WAIT_MS, ms))
      })
      yield* Effect.timeoutOption(Queue.take(wake), waitMs)
    })

    if (Option.isSome(outbox.wakeUps)) {
      yield* outbox.wakeUps.value.pipe(
        Stream.runForEach(() => signal),
        Effect.catchCause((cause) =>
          outage.logUnlessDatabase(cause, Effect.logWarning("outbox: no wake-ups from the database, polling meanwhile", cause))
        ),
        Effect.andThen(Effect.sleep(options.pollMs)),
        Effect.forever,
        Effect.forkScoped
      )
    }
    const loop = yield* tick.pipe(
      Effect.catchCause((cause) =>
        Effect.andThen(
          outage.logUnlessDatabase(cause, Effect.logError("outbox: worker loop failed, again shortly", cause)),
          Effect.sleep(options.pollMs)
        )
      ),
      Effect.forever,
      Effect.forkScoped
    )
    // runs before the fibers above are interrupted: no new claims, then the jobs in flight finish
    // (or, after drainMs, are interrupted and given back)
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        yield* Fiber.interrupt(loop)
        // a finalizer is uninterruptible: the wait must be made interruptible for the timeout to end it
        yield* Effect.timeoutOption(Effect.interruptible(Fiber.awaitAll(Array.from(inFlight))), options.drainMs)
      })
    )
    const woken = Option.isSome(outbox.wakeUps)
      ? "woken by the database's notifications"
      : `polling every ${options.pollMs / 1000} s: no direct connection to LISTEN on (behind a pooler, set DATABASE_LISTEN_URL)`
    yield* Effect.logInfo(
      `outbox: worker started (${options.concurrency} at once, ${options.maxAttempts} attempts, lease ${options.leaseMs / 1000} s), ${woken}`
    )
  })

/**
 * The outbox worker, for the life of the layer: delivers each job as soon as its transaction
 * commits (woken by the database's notification), retries with exponential backoff and full
 * jitter, fails a job after its last attempt (logged, kept), and takes over the jobs of a worker
 * that died once their lease ends. Any number of instances may run one on the same database.
 */
const layerWith = (options: OutboxWorkerOptions, hooks: OutboxWorkerHooks = { idle: Effect.void }) =>
  Layer.effectDiscard(run(options, hooks)).pipe(Layer.provide(Deliveries.layer))

export const OutboxWorker = {
  layerWith,
  /** With the defaults, `OUTBOX_MAX_ATTEMPTS` and `OUTBOX_CONCURRENCY`. */
  layer: Layer.unwrap(Effect.map(AppConfig, (config) =>
    layerWith({ ...defaultOutboxWorkerOptions, maxAttempts: config.outboxMaxAttempts, concurrency: config.outboxConcurrency })))
}
