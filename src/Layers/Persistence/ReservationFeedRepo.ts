import { Context, Effect, Layer, Option, Ref, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { type CountedStates, type Hold, holdsOf } from "../../Domain/Channel/BookedSince.js"
import { type Knowledge, knows } from "../../Domain/Channel/Knowledge.js"
import { ReservationId, RoomTypeId } from "../../Domain/Ids.js"
import { LocalDate } from "../../Domain/LocalDate.js"
import { PmsReservation } from "../../Domain/Pms.js"
import { FeedCursor } from "../../Domain/Ids.js"
import { FeedChange } from "../../Domain/ReservationFeed.js"
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

/** A reservation's last change a figure counts, as much of it as tells which rooms it held. */
const KnownState = Schema.Struct({
  reservation_id: ReservationId,
  change: FeedChange,
  checkin: LocalDate,
  checkout: LocalDate,
  rooms: Schema.fromJsonString(Schema.Array(Schema.Struct({ room_type_id: RoomTypeId, quantity: Schema.Int })))
})
type KnownState = typeof KnownState.Type

/** Per reservation, the rooms each of its changes (oldest first) left it holding: none once cancelled. */
const statesByReservation = (states: ReadonlyArray<KnownState>): ReadonlyMap<ReservationId, CountedStates> => {
  const byReservation = new Map<ReservationId, Array<ReadonlyArray<Hold>>>()
  for (const state of states) {
    let own = byReservation.get(state.reservation_id)
    if (own === undefined) byReservation.set(state.reservation_id, own = [])
    own.push(state.change === "cancelled" ? [] : holdsOf(state.reservation_id, state.rooms, state.checkin, state.checkout))
  }
  return byReservation
}

/** The reservation changes a PMS pulls, in commit order. */
export class ReservationFeedRepo extends Context.Service<ReservationFeedRepo, {
  /** Inside the caller's transaction, as its last statement: the change, after every change already committed. */
  readonly record: (reservationId: ReservationId, change: FeedChange, content: PmsReservation, at: Date) => Effect.Effect<void>
  /** Up to `limit` changes after the cursor `after` (from the first when undefined), oldest first. */
  readonly page: (after: FeedCursor | undefined, limit: number) => Effect.Effect<ReadonlyArray<StoredChange>>
  /** The cursor of the last change committed; 0 before the first. */
  readonly lastCursor: Effect.Effect<bigint>
  /** The cursor of the reservation's last change committed, which its record now shows. */
  readonly lastCursorOf: (reservationId: ReservationId) => Effect.Effect<Option.Option<bigint>>
  /** The hotel's PMS acknowledged, at `at`, the reservation as it was after its change `through`: that one and every one before. */
  readonly acknowledge: (reservationId: ReservationId, through: bigint, at: Date) => Effect.Effect<void>
  /**
   * What a figure of this knowledge may count of these reservations (`Channel.CountedStates`): per
   * reservation, the rooms of its last change the figure counts and of every later one; absent when
   * the figure counts none of its changes.
   */
  readonly countedStates: (
    knowledge: Knowledge,
    reservationIds: ReadonlyArray<ReservationId>
  ) => Effect.Effect<ReadonlyMap<ReservationId, CountedStates>>
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
      const counted = SqlSchema.findAll({
        Request: Schema.Struct({
          ids: Schema.Array(ReservationId),
          through: Schema.NullOr(Schema.String),
          acked_by: Schema.NullOr(Schema.Date)
        }),
        Result: KnownState,
        execute: ({ acked_by, ids, through }) => sql`
          WITH surely AS (
            SELECT reservation_id, max(seq) AS seq FROM reservation_changes
            WHERE reservation_id IN ${sql.in(ids)} AND (seq <= ${through}::bigint OR acked_at <= ${acked_by}::timestamptz)
            GROUP BY reservation_id)
          SELECT c.reservation_id, c.change, c.content->'stay'->>'checkin' AS checkin,
            c.content->'stay'->>'checkout' AS checkout, (c.content->'rooms')::text AS rooms
          FROM reservation_changes c JOIN surely s ON s.reservation_id = c.reservation_id AND c.seq >= s.seq
          ORDER BY c.reservation_id, c.seq`
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
          page({ after: after ?? "0", limit }).pipe(Effect.orDie, Tracing.withSpan("ReservationFeedRepo.page")),
        lastCursor: sql<{ readonly last: string }>`SELECT coalesce(max(seq), 0)::text AS last FROM reservation_changes`.pipe(
          Effect.map((rows) => BigInt(rows[0]!.last)),
          Effect.orDie,
          Tracing.withSpan("ReservationFeedRepo.lastCursor")
        ),
        lastCursorOf: (reservationId) =>
          sql<{ readonly last: string | null }>`
            SELECT max(seq)::text AS last FROM reservation_changes WHERE reservation_id = ${reservationId}`.pipe(
            Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]?.last), BigInt)),
            Effect.orDie,
            Tracing.withSpan("ReservationFeedRepo.lastCursorOf")
          ),
        acknowledge: (reservationId, through, at) =>
          sql`
            UPDATE reservation_changes SET acked_at = ${at}
            WHERE reservation_id = ${reservationId} AND seq <= ${through.toString()}::bigint AND acked_at IS NULL`.pipe(
            Effect.asVoid,
            Effect.orDie,
            Tracing.withSpan("ReservationFeedRepo.acknowledge", { attributes: { "reservation.id": reservationId } })
          ),
        countedStates: (knowledge, reservationIds) =>
          (reservationIds.length === 0 || (knowledge.through === null && knowledge.ackedBy === null)
            ? Effect.succeed(new Map())
            : counted({
              ids: reservationIds,
              through: knowledge.through?.toString() ?? null,
              acked_by: knowledge.ackedBy === null ? null : new Date(knowledge.ackedBy)
            }).pipe(Effect.map(statesByReservation), Effect.orDie)).pipe(
              Tracing.withSpan("ReservationFeedRepo.countedStates", { attributes: { reservations: reservationIds.length } })
            )
      }
    })
  )

  /** The feed in memory: the in-memory transactions run one at a time, so the order of writes is the commit order. */
  static readonly InMemory = Layer.effect(
    ReservationFeedRepo,
    Effect.map(Ref.make<ReadonlyArray<StoredChange & { readonly acked_at: number | null }>>([]), (changes) => {
      const ofReservation = <C extends StoredChange>(all: ReadonlyArray<C>, reservationId: ReservationId) =>
        all.filter((c) => c.reservation.reservation_id === reservationId)
      return {
        record: (_reservationId, change, reservation, changed_at) =>
          Ref.update(changes, (all) => [...all, { cursor: String(all.length + 1), change, changed_at, reservation, acked_at: null }]),
        page: (after, limit) =>
          Effect.map(Ref.get(changes), (all) => all.filter((c) => BigInt(c.cursor) > BigInt(after ?? "0")).slice(0, limit)),
        lastCursor: Effect.map(Ref.get(changes), (all) => BigInt(all.length)),
        lastCursorOf: (reservationId) =>
          Effect.map(Ref.get(changes), (all) => Option.map(Option.fromNullishOr(ofReservation(all, reservationId).at(-1)), (c) => BigInt(c.cursor))),
        acknowledge: (reservationId, through, at) =>
          Ref.update(changes, (all) =>
            all.map((c) =>
              c.reservation.reservation_id === reservationId && BigInt(c.cursor) <= through && c.acked_at === null
                ? { ...c, acked_at: at.getTime() }
                : c
            )),
        countedStates: (knowledge, reservationIds) =>
          Effect.map(Ref.get(changes), (all) =>
            statesByReservation(reservationIds.flatMap((reservationId) => {
              const own = ofReservation(all, reservationId)
              const surely = own.findLastIndex((c) => knows(knowledge, { seq: BigInt(c.cursor), acked_at: c.acked_at }))
              return surely === -1 ? [] : own.slice(surely).map((c) => ({
                reservation_id: reservationId,
                change: c.change,
                checkin: c.reservation.stay.checkin,
                checkout: c.reservation.stay.checkout,
                rooms: c.reservation.rooms
              }))
            })))
      }
    })
  )
}
