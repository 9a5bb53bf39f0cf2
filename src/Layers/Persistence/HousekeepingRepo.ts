import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as Tracing from "../Platform/Tracing.js"

/**
 * Taken per batch, with the batch's name as the second key: of several instances sweeping at once,
 * one runs each kind of batch at a time. One lock for every kind would let two sweeps each skip the
 * kind the other held at that moment, and both leave it undone.
 */
const SWEEP_LOCK = 7_240_002

/** The in-memory twin's statements (`HousekeepingRepo.InMemory`). */
const unswept = (statement: string) => () =>
  Effect.die(new Error(`HousekeepingRepo.${statement} has no in-memory twin: the sweep is tested on PostgreSQL`))

/** The statements of the periodic sweep: each changes at most `limit` rows, in a short transaction of its own. */
export class HousekeepingRepo extends Context.Service<HousekeepingRepo, {
  /** Pending reservations whose guest link lapsed before `now` become EXPIRED; how many (0 while another instance sweeps). */
  readonly expireLapsedIntents: (now: Date, limit: number) => Effect.Effect<number>
  /**
   * Reservations never completed (EXPIRED) whose guest link lapsed before `before`, deleted with
   * their tokens and any idempotency record naming them; how many.
   */
  readonly deleteExpiredReservationsBefore: (before: Date, limit: number) => Effect.Effect<number>
  /** Quotes an intent was made from that expired before `used`, and others that expired before `unused`, deleted; how many. */
  readonly deleteQuotesExpiredBefore: (before: { readonly used: Date; readonly unused: Date }, limit: number) => Effect.Effect<number>
  /** Idempotency records whose 24 hours ended before `now`, deleted; how many. */
  readonly deleteLapsedIdempotencyKeys: (now: Date, limit: number) => Effect.Effect<number>
  /** Client addresses of completions made before `before` (no longer counted by the booking limit), deleted; how many. */
  readonly deleteCompletionAddressesBefore: (before: Date, limit: number) => Effect.Effect<number>
  /** The intents per client address counted in hours that started before `before` (over), deleted; how many. */
  readonly deleteIntentCountsBefore: (before: Date, limit: number) => Effect.Effect<number>
  /** The ids of channel messages received before `before`, forgotten; how many. */
  readonly deleteChannelMessagesBefore: (before: Date, limit: number) => Effect.Effect<number>
}>()("HousekeepingRepo") {
  static readonly layer = Layer.effect(
    HousekeepingRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      /** A batch under its kind's sweep lock; 0 rows when another instance is running that kind. */
      const batch = (name: string, statement: Effect.Effect<ReadonlyArray<unknown>, unknown>) =>
        Effect.gen(function*() {
          const [lock] = yield* sql<{ taken: boolean }>`SELECT pg_try_advisory_xact_lock(${SWEEP_LOCK}, hashtext(${name})) AS taken`
          return lock?.taken ? (yield* statement).length : 0
        }).pipe(sql.withTransaction, Effect.orDie, Tracing.withSpan(`HousekeepingRepo.${name}`))
      return {
        expireLapsedIntents: (now, limit) =>
          batch("expireLapsedIntents", sql`
            UPDATE reservations SET status = 'EXPIRED', updated_at = now()
            WHERE id IN (
              SELECT id FROM reservations WHERE status = 'PENDING_GUEST' AND guest_link_expires_at <= ${now}
              LIMIT ${limit} FOR UPDATE SKIP LOCKED)
            RETURNING id`),
        // an EXPIRED reservation has no outbox job and no feed entry (both follow a completion only);
        // its tokens and address go by the cascade, a replay of its intent's key with the record
        deleteExpiredReservationsBefore: (before, limit) =>
          batch("deleteExpiredReservationsBefore", sql`
            WITH gone AS (
              DELETE FROM reservations WHERE id IN (
                SELECT id FROM reservations WHERE status = 'EXPIRED' AND guest_link_expires_at < ${before}
                LIMIT ${limit} FOR UPDATE SKIP LOCKED)
              RETURNING id
            ), keys AS (
              DELETE FROM idempotency_keys WHERE resource_id IN (SELECT id FROM gone)
            )
            SELECT id FROM gone`),
        // an intent is made from a live quote only: once expired, a quote never gains one
        deleteQuotesExpiredBefore: ({ unused, used }, limit) =>
          batch("deleteQuotesExpiredBefore", sql`
            DELETE FROM quotes WHERE id IN (
              SELECT q.id FROM quotes q
              WHERE q.expires_at < ${unused}
                AND (q.expires_at < ${used} OR NOT EXISTS (SELECT 1 FROM reservations r WHERE r.quote_id = q.id))
              LIMIT ${limit} FOR UPDATE SKIP LOCKED)
            RETURNING id`),
        deleteLapsedIdempotencyKeys: (now, limit) =>
          batch("deleteLapsedIdempotencyKeys", sql`
            DELETE FROM idempotency_keys WHERE (scope, key) IN (
              SELECT scope, key FROM idempotency_keys WHERE expires_at <= ${now} LIMIT ${limit} FOR UPDATE SKIP LOCKED)
            RETURNING key`),
        deleteCompletionAddressesBefore: (before, limit) =>
          batch("deleteCompletionAddressesBefore", sql`
            DELETE FROM completions_by_address WHERE ctid IN (
              SELECT ctid FROM completions_by_address WHERE completed_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED)
            RETURNING reservation_id`),
        deleteIntentCountsBefore: (before, limit) =>
          batch("deleteIntentCountsBefore", sql`
            DELETE FROM intents_by_address WHERE (client_address, hour_start) IN (
              SELECT client_address, hour_start FROM intents_by_address WHERE hour_start < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED)
            RETURNING client_address`),
        deleteChannelMessagesBefore: (before, limit) =>
          batch("deleteChannelMessagesBefore", sql`
            DELETE FROM channel_messages WHERE message_id IN (
              SELECT message_id FROM channel_messages WHERE received_at < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED)
            RETURNING message_id`)
      }
    })
  )

  /** The requests' tests never sweep: a statement called in memory dies, named, rather than pretend to. */
  static readonly InMemory = Layer.succeed(HousekeepingRepo, {
    expireLapsedIntents: unswept("expireLapsedIntents"),
    deleteExpiredReservationsBefore: unswept("deleteExpiredReservationsBefore"),
    deleteQuotesExpiredBefore: unswept("deleteQuotesExpiredBefore"),
    deleteLapsedIdempotencyKeys: unswept("deleteLapsedIdempotencyKeys"),
    deleteCompletionAddressesBefore: unswept("deleteCompletionAddressesBefore"),
    deleteIntentCountsBefore: unswept("deleteIntentCountsBefore"),
    deleteChannelMessagesBefore: unswept("deleteChannelMessagesBefore")
  })
}
