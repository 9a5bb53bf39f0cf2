import { Context, Effect, Layer, Ref, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { ReservationId } from "../../Domain/Ids.js"
import { PmsReservation } from "../../Domain/Pms.js"
import { FeedChange, FeedCursor } from "../../Domain/ReservationFeed.js"
import * as Tracing from "../Platform/Tracing.js"

/**
 * Taken just before a change is written, as the last statement of its transaction, and held until
 * that transaction ends: changes take their `seq` one transaction at a time, so `seq` follows the
 * commit order. A bigserial alone does not: a transaction that took 5 may commit after one that
 * took 6, and a reader that saw 6 would ask after it and never see 5. Nothing is locked after it,
 * so it closes no cycle of waits; what it serialises is each change's insert and commit.
 */
const FEED_LOCK = 7_240_011

/** A change as the feed keeps it: the reservation's content right after it. */
export const StoredChange = Schema.Struct({
  cursor: FeedCursor,
  change: FeedChange,
  changed_at: Schema.DateFromString,
  reservation: Schema.fromJsonString(PmsReservation)
})
export type StoredChange = typeof StoredChange.Type

/** The reservation changes a PMS pulls, in commit order. */
export class ReservationFeedRepo extends Context.Service<ReservationFeedRepo, {
  /** Inside the caller's transaction, as its last statement: the change, after every change already committed. */
  readonly record: (reservationId: ReservationId, change: FeedChange, content: PmsReservation, at: Date) => Effect.Effect<void>
  /** Up to `limit` changes after the cursor `after` (from the first when undefined), oldest first. */
  readonly page: (after: FeedCursor | undefined, limit: number) => Effect.Effect<ReadonlyArray<StoredChange>>
}>()("ReservationFeedRepo") {
  static readonly layer = Layer.effect(
    ReservationFeedRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const insert = SqlSchema.void({
        Request: Schema.Struct({
          reservation_id: ReservationId,
          change: FeedChange,
          changed_at: Schema.Date,
          content: Schema.fromJsonString(PmsReservation)
        }),
        execute: (row) => sql`
          INSERT INTO reservation_changes (reservation_id, change, changed_at, content)
          VALUES (${row.reservation_id}, ${row.change}, ${row.changed_at}, ${row.content}::jsonb)`
      })
      const page = SqlSchema.findAll({
        Request: Schema.Struct({ after: FeedCursor, limit: Schema.Int }),
        Result: StoredChange,
        execute: ({ after, limit }) => sql`
          SELECT seq::text AS cursor, change, changed_at, content::text AS reservation FROM reservation_changes
          WHERE seq > ${after}::bigint ORDER BY seq LIMIT ${limit}`
      })
      return {
        record: (reservation_id, change, content, at) =>
          sql`SELECT pg_advisory_xact_lock(${FEED_LOCK})`.pipe(
            Effect.andThen(insert({ reservation_id, change, changed_at: at, content })),
            Effect.orDie,
            Tracing.withSpan("ReservationFeedRepo.record", { attributes: { "reservation.id": reservation_id, change } })
          ),
        // seq starts at 1: after 0 is from the first
        page: (after, limit) =>
          page({ after: after ?? "0", limit }).pipe(Effect.orDie, Tracing.withSpan("ReservationFeedRepo.page"))
      }
    })
  )

  /** The feed in memory: the in-memory transactions run one at a time, so the order of writes is the commit order. */
  static readonly InMemory = Layer.effect(
    ReservationFeedRepo,
    Effect.map(Ref.make<ReadonlyArray<StoredChange>>([]), (changes) => ({
      record: (_reservationId, change, reservation, changed_at) =>
        Ref.update(changes, (all) => [...all, { cursor: String(all.length + 1), change, changed_at, reservation }]),
      page: (after, limit) =>
        Effect.map(Ref.get(changes), (all) => all.filter((c) => BigInt(c.cursor) > BigInt(after ?? "0")).slice(0, limit))
    }))
  )
}
