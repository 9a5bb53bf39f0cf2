import { SqlClient } from "@effect/sql"
import { Clock, Context, Effect, Layer, Option, Ref } from "effect"
import type { ReservationId } from "../Domain/Ids.js"
import { type JobId, type JobKind, type NewJob } from "../Domain/Outbox.js"
import { randomId } from "../Services/RandomId.js"
import * as Tracing from "./Tracing.js"

/** The channel the workers listen on: a notification sent in a transaction arrives at its commit. */
export const OUTBOX_CHANNEL = "outbox_jobs"

const newJobId = () => randomId("j_") as JobId

/** The outbox: jobs written with the state change they follow, taken by the workers. */
export class OutboxRepo extends Context.Tag("OutboxRepo")<OutboxRepo, {
  /** Inside the caller's transaction: writes the jobs, and wakes the workers when it commits. */
  readonly enqueue: (jobs: ReadonlyArray<NewJob>) => Effect.Effect<void>
  /** When the newest job of a kind was written for a reservation. */
  readonly lastEnqueuedAt: (reservationId: ReservationId, kind: JobKind) => Effect.Effect<Option.Option<Date>>
}>() {
  static readonly Live = Layer.effect(
    OutboxRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return {
        enqueue: (jobs) =>
          Effect.gen(function*() {
            if (jobs.length === 0) return
            yield* sql`INSERT INTO outbox_jobs ${sql.insert(jobs.map((job) => ({ id: newJobId(), ...job })))}`
            yield* sql`SELECT pg_notify(${OUTBOX_CHANNEL}, '')`
          }).pipe(Effect.orDie, Tracing.withSpan("OutboxRepo.enqueue", { attributes: { jobs: jobs.map((j) => j.kind) } })),
        lastEnqueuedAt: (reservationId, kind) =>
          sql<{ created_at: string }>`
            SELECT created_at FROM outbox_jobs WHERE reservation_id = ${reservationId} AND kind = ${kind}
            ORDER BY seq DESC LIMIT 1`.pipe(
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => new Date(row.created_at))),
            Effect.orDie,
            Tracing.withSpan("OutboxRepo.lastEnqueuedAt")
          )
      }
    })
  )
}

type WrittenJob = NewJob & { readonly id: JobId; readonly created_at: Date }

/** The outbox in memory, for the service tests: the jobs written, in order. */
export class OutboxInMemory extends Context.Tag("OutboxInMemory")<OutboxInMemory, {
  readonly jobs: Effect.Effect<ReadonlyArray<WrittenJob>>
}>() {
  static readonly layer: Layer.Layer<OutboxRepo | OutboxInMemory> = Layer.effectContext(
    Effect.gen(function*() {
      const jobs = yield* Ref.make<ReadonlyArray<WrittenJob>>([])
      const repo: Context.Tag.Service<OutboxRepo> = {
        enqueue: (added) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Ref.update(jobs, (all) => [...all, ...added.map((job) => ({ ...job, id: newJobId(), created_at: new Date(now) }))])),
        lastEnqueuedAt: (reservationId, kind) =>
          Effect.map(Ref.get(jobs), (all) =>
            Option.fromNullable(all.filter((job) => job.reservation_id === reservationId && job.kind === kind).at(-1)?.created_at))
      }
      return Context.make(OutboxRepo, repo).pipe(Context.add(OutboxInMemory, { jobs: Ref.get(jobs) }))
    })
  )
}
