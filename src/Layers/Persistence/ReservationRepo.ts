import { Context, Effect, Layer, Option, Ref, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import type { CountedCompletion } from "../../Domain/BookingLimits.js"
import { type Hold, holdsOf } from "../../Domain/Channel/BookedSince.js"
import { ReservationId, RoomTypeId } from "../../Domain/Ids.js"
import type { Cents } from "../../Domain/Money.js"
import { LocalDate } from "../../Domain/LocalDate.js"
import type { PackageOffer, QuotedRoom } from "../../Domain/Quote.js"
import { type GuestDetails, type PmsStatus, ReservationRecord } from "../../Domain/Reservation.js"
import * as Tracing from "../Platform/Tracing.js"

export interface Completion {
  readonly number: string
  readonly guest: GuestDetails
  readonly terms_version: string
  readonly offer: PackageOffer
  readonly line_totals: ReadonlyArray<Cents>
  readonly completed_at: string
  /** The promo code the completed offer applies: the one of the intent, or null when it no longer could be used. */
  readonly promo_code: string | null
}

/** A completed reservation's new stay, and the PMS status that follows. */
export interface StayChange {
  readonly checkin: LocalDate
  readonly checkout: LocalDate
  readonly rooms: ReadonlyArray<QuotedRoom>
  readonly offer: PackageOffer
  readonly line_totals: ReadonlyArray<Cents>
  /** The promo code the new offer applies, or null (its use given back). */
  readonly promo_code: string | null
  readonly pms_status: PmsStatus | null
}

/** The advisory lock space of completions per client address (with a hash of the address as the second key). */
const COMPLETIONS_LOCK_SPACE = 7_240_007
/** The advisory lock space of a promo code's uses (with a hash of the code as the second key). */
const PROMO_CODE_LOCK_SPACE = 7_240_009

const JSON_COLUMNS = ["rooms", "offer", "line_totals", "guest", "client"] as const
const decodeRow = Schema.decodeUnknownEffect(ReservationRecord)

export class ReservationRepo extends Context.Service<ReservationRepo, {
  readonly insert: (record: ReservationRecord) => Effect.Effect<void>
  readonly find: (id: ReservationId) => Effect.Effect<Option.Option<ReservationRecord>>
  /** Inside a transaction: the reservation, locked until the transaction ends. */
  readonly findForUpdate: (id: ReservationId) => Effect.Effect<Option.Option<ReservationRecord>>
  /** A pending reservation whose guest link lapsed. */
  readonly markExpired: (id: ReservationId) => Effect.Effect<void>
  readonly complete: (id: ReservationId, completion: Completion) => Effect.Effect<void>
  /** A completed reservation's new guest details. */
  readonly updateGuest: (id: ReservationId, guest: GuestDetails) => Effect.Effect<void>
  /** A completed reservation's stay changed: dates, rooms, offer (number, guest and tokens stay). */
  readonly changeStay: (id: ReservationId, change: StayChange) => Effect.Effect<void>
  /** A completed reservation cancelled at `cancelledAt`, with the PMS status that follows. */
  readonly cancel: (id: ReservationId, cancelledAt: string, pmsStatus: PmsStatus | null) => Effect.Effect<void>
  /** The PMS's view of the reservation; its reference replaced when one is given, else kept. */
  readonly setPmsStatus: (id: ReservationId, status: PmsStatus, reference: Option.Option<string>) => Effect.Effect<void>
  /**
   * Inside a transaction: the completions from a client address since `since` (when, how many
   * room-nights), oldest first. The address's completions stay locked until the transaction ends:
   * a concurrent completion from it, on any instance, waits until this one has counted and committed.
   */
  readonly lockCompletionsFrom: (address: string, since: Date) => Effect.Effect<ReadonlyArray<CountedCompletion>>
  /** A completion from a client address, counted by `lockCompletionsFrom` from now on. */
  readonly recordCompletionFrom: (id: ReservationId, address: string, completion: CountedCompletion) => Effect.Effect<void>
  /**
   * Inside a transaction: one more intent from a client address in the hour starting at
   * `hourStart`, if it has made fewer than `limit` in it; false, counting nothing, when it has. The
   * count stays locked until the transaction ends (a concurrent intent from the address, on any
   * instance, waits for it) and is undone with it.
   */
  readonly countIntentFrom: (address: string, hourStart: Date, limit: number) => Effect.Effect<boolean>
  /** The uses of a promo code: completed, not cancelled reservations that name it. */
  readonly countPromoCodeUses: (code: string) => Effect.Effect<number>
  /**
   * Inside a transaction: the uses of a promo code, its uses locked until the transaction ends: a
   * concurrent completion with it, on any instance, waits until this one has counted and committed.
   */
  readonly lockPromoCodeUses: (code: string) => Effect.Effect<number>
  /** The rooms completed reservations hold on nights from `from` up to `until`, per reservation and room type. */
  readonly holdsBetween: (from: LocalDate, until: LocalDate) => Effect.Effect<ReadonlyArray<Hold>>
}>()("ReservationRepo") {
  static readonly layer = Layer.effect(
    ReservationRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const heldBetween = SqlSchema.findAll({
        Request: Schema.Struct({ from: LocalDate, until: LocalDate }),
        Result: Schema.Struct({
          id: ReservationId,
          checkin: LocalDate,
          checkout: LocalDate,
          rooms: Schema.fromJsonString(Schema.Array(Schema.Struct({ room_type_id: RoomTypeId, quantity: Schema.Int })))
        }),
        execute: ({ from, until }) => sql`
          SELECT id, checkin, checkout, rooms::text FROM reservations
          WHERE status = 'GUEST_COMPLETED' AND checkin < ${until}::date AND checkout > ${from}::date`
      })
      const columns = sql.unsafe(
        `id, number, status, pms_status, language, quote_id, checkin, checkout, rooms::text, offer::text,
         line_totals::text, guest::text, terms_version, client::text, promo_code, guest_link_expires_at, created_at,
         completed_at`
      )
      const parse = (rows: ReadonlyArray<Record<string, unknown>>) =>
        Effect.forEach(rows, (row) => {
          const parsed: Record<string, unknown> = { ...row }
          for (const column of JSON_COLUMNS) parsed[column] = row[column] === null ? null : JSON.parse(row[column] as string)
          return decodeRow(parsed)
        }).pipe(Effect.map((records) => Option.fromNullishOr(records[0])))
      const countUses = (code: string) =>
        sql<{ uses: number }>`
          SELECT count(*)::int AS uses FROM reservations WHERE promo_code = ${code} AND status = 'GUEST_COMPLETED'`.pipe(
          Effect.map((rows) => rows[0]!.uses),
          Effect.orDie
        )
      const select = (id: ReservationId, forUpdate: boolean) =>
        sql`SELECT ${columns} FROM reservations WHERE id = ${id} ${forUpdate ? sql`FOR UPDATE` : sql``}`.pipe(
          Effect.flatMap(parse),
          Effect.orDie
        )
      return {
        insert: (record) =>
          sql`INSERT INTO reservations ${
            sql.insert({
              ...record,
              rooms: JSON.stringify(record.rooms),
              offer: JSON.stringify(record.offer),
              line_totals: JSON.stringify(record.line_totals),
              guest: record.guest === null ? null : JSON.stringify(record.guest),
              client: JSON.stringify(record.client)
            })
          }`.pipe(Effect.asVoid, Effect.orDie, Tracing.withSpan("ReservationRepo.insert")),
        find: (id) => select(id, false).pipe(Tracing.withSpan("ReservationRepo.find")),
        findForUpdate: (id) => select(id, true).pipe(Tracing.withSpan("ReservationRepo.findForUpdate")),
        markExpired: (id) =>
          sql`UPDATE reservations SET status = 'EXPIRED', updated_at = now() WHERE id = ${id} AND status = 'PENDING_GUEST'`.pipe(
            Effect.asVoid,
            Effect.orDie,
            Tracing.withSpan("ReservationRepo.markExpired")
          ),
        complete: (id, c) =>
          sql`
            UPDATE reservations SET status = 'GUEST_COMPLETED', pms_status = 'PENDING', number = ${c.number},
              guest = ${JSON.stringify(c.guest)}::jsonb, terms_version = ${c.terms_version},
              offer = ${JSON.stringify(c.offer)}::jsonb, line_totals = ${JSON.stringify(c.line_totals)}::jsonb,
              completed_at = ${c.completed_at}::timestamptz, promo_code = ${c.promo_code}, updated_at = now()
            WHERE id = ${id} AND status = 'PENDING_GUEST'`.pipe(
            Effect.asVoid,
            Effect.orDie,
            Tracing.withSpan("ReservationRepo.complete")
          ),
        updateGuest: (id, guest) =>
          sql`
            UPDATE reservations SET guest = ${JSON.stringify(guest)}::jsonb, updated_at = now()
            WHERE id = ${id} AND status = 'GUEST_COMPLETED'`.pipe(
            Effect.asVoid,
            Effect.orDie,
            Tracing.withSpan("ReservationRepo.updateGuest")
          ),
        changeStay: (id, c) =>
          sql`
            UPDATE reservations SET checkin = ${c.checkin}::date, checkout = ${c.checkout}::date,
              rooms = ${JSON.stringify(c.rooms)}::jsonb, offer = ${JSON.stringify(c.offer)}::jsonb,
              line_totals = ${JSON.stringify(c.line_totals)}::jsonb, promo_code = ${c.promo_code}, pms_status = ${c.pms_status},
              updated_at = now()
            WHERE id = ${id} AND status = 'GUEST_COMPLETED'`.pipe(
            Effect.asVoid,
            Effect.orDie,
            Tracing.withSpan("ReservationRepo.changeStay")
          ),
        cancel: (id, cancelledAt, pmsStatus) =>
          sql`
            UPDATE reservations SET status = 'CANCELLED', cancelled_at = ${cancelledAt}::timestamptz,
              pms_status = ${pmsStatus}, updated_at = now()
            WHERE id = ${id} AND status = 'GUEST_COMPLETED'`.pipe(
            Effect.asVoid,
            Effect.orDie,
            Tracing.withSpan("ReservationRepo.cancel")
          ),
        setPmsStatus: (id, status, reference) =>
          sql`
            UPDATE reservations SET pms_status = ${status},
              pms_reference = COALESCE(${Option.getOrNull(reference)}, pms_reference)
            WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie, Tracing.withSpan("ReservationRepo.setPmsStatus")),
        lockCompletionsFrom: (address, since) =>
          Effect.gen(function*() {
            // two 32-bit keys: a space of its own, apart from the single-key locks of start-up and housekeeping
            yield* sql`SELECT pg_advisory_xact_lock(${COMPLETIONS_LOCK_SPACE}, hashtext(${address}))`
            const rows = yield* sql<{ completed_at: string; room_nights: number }>`
              SELECT completed_at, room_nights FROM completions_by_address
              WHERE client_address = ${address} AND completed_at > ${since}
              ORDER BY completed_at`
            return rows.map((row) => ({ at: new Date(row.completed_at).getTime(), roomNights: row.room_nights }))
          }).pipe(Effect.orDie, Tracing.withSpan("ReservationRepo.lockCompletionsFrom")),
        recordCompletionFrom: (id, address, { at, roomNights }) =>
          sql`INSERT INTO completions_by_address ${
            sql.insert({ reservation_id: id, client_address: address, completed_at: new Date(at), room_nights: roomNights })
          }`.pipe(
            Effect.asVoid,
            Effect.orDie,
            Tracing.withSpan("ReservationRepo.recordCompletionFrom")
          ),
        countIntentFrom: (address, hourStart, limit) =>
          sql<{ intents: number }>`
            INSERT INTO intents_by_address AS counted (client_address, hour_start, intents)
            VALUES (${address}, ${hourStart}, 1)
            ON CONFLICT (client_address, hour_start) DO UPDATE SET intents = counted.intents + 1
            WHERE counted.intents < ${limit}
            RETURNING intents`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie,
            Tracing.withSpan("ReservationRepo.countIntentFrom")
          ),
        countPromoCodeUses: (code) => countUses(code).pipe(Tracing.withSpan("ReservationRepo.countPromoCodeUses")),
        lockPromoCodeUses: (code) =>
          sql`SELECT pg_advisory_xact_lock(${PROMO_CODE_LOCK_SPACE}, hashtext(${code}))`.pipe(
            Effect.andThen(countUses(code)),
            Effect.orDie,
            Tracing.withSpan("ReservationRepo.lockPromoCodeUses")
          ),
        holdsBetween: (from, until) =>
          heldBetween({ from, until }).pipe(
            Effect.map((rows) => rows.flatMap((row) => holdsOf(row.id, row.rooms, row.checkin, row.checkout))),
            Effect.orDie,
            Tracing.withSpan("ReservationRepo.holdsBetween", { attributes: { from, until } })
          )
      }
    })
  )

  static readonly InMemory = Layer.effect(
    ReservationRepo,
    Effect.gen(function*() {
      const store = yield* Ref.make(new Map<string, ReservationRecord>())
      // the in-memory transactions run one at a time: that is the lock
      const completions = yield* Ref.make<ReadonlyArray<CountedCompletion & { readonly address: string }>>([])
      const intents = yield* Ref.make(new Map<string, number>())
      const find = (id: ReservationId) => Effect.map(Ref.get(store), (all) => Option.fromNullishOr(all.get(id)))
      const update = (id: ReservationId, change: (r: ReservationRecord) => ReservationRecord) =>
        Ref.update(store, (all) => {
          const current = all.get(id)
          return current === undefined ? all : new Map(all).set(id, change(current))
        })
      const countUses = (code: string) =>
        Effect.map(Ref.get(store), (all) => [...all.values()].filter((r) => r.promo_code === code && r.status === "GUEST_COMPLETED").length)
      const utc = (instant: string) => new Date(instant).toISOString()
      /** Kept as PostgreSQL keeps it: instants answered as ISO strings in UTC, a number given to one reservation only. */
      const save = (r: ReservationRecord) =>
        Effect.flatten(Ref.modify(store, (all) =>
          r.number !== null && [...all.values()].some((other) => other.id !== r.id && other.number === r.number)
            ? [Effect.die(new Error(`reservation number ${r.number} is taken`)), all]
            : [Effect.void, new Map(all).set(r.id, {
              ...r,
              guest_link_expires_at: utc(r.guest_link_expires_at),
              created_at: utc(r.created_at),
              completed_at: r.completed_at === null ? null : utc(r.completed_at)
            })]
        ))
      return {
        insert: save,
        find,
        findForUpdate: find,
        markExpired: (id) => update(id, (r) => r.status === "PENDING_GUEST" ? { ...r, status: "EXPIRED" } : r),
        complete: (id, c) =>
          Effect.flatMap(find(id), (current) =>
            Option.isSome(current) && current.value.status === "PENDING_GUEST"
              ? save({ ...current.value, ...c, status: "GUEST_COMPLETED", pms_status: "PENDING" })
              : Effect.void),
        updateGuest: (id, guest) => update(id, (r) => r.status === "GUEST_COMPLETED" ? { ...r, guest } : r),
        changeStay: (id, change) =>
          update(id, (r) => r.status === "GUEST_COMPLETED" ? { ...r, ...change } : r),
        cancel: (id, _cancelledAt, pmsStatus) =>
          update(id, (r) => r.status === "GUEST_COMPLETED" ? { ...r, status: "CANCELLED", pms_status: pmsStatus } : r),
        // the record has no PMS reference: only the database keeps it
        setPmsStatus: (id, status) => update(id, (r) => ({ ...r, pms_status: status })),
        lockCompletionsFrom: (address, since) =>
          Effect.map(Ref.get(completions), (all) =>
            all.filter((c) => c.address === address && c.at > since.getTime())
              .map(({ at, roomNights }) => ({ at, roomNights }))
              .sort((a, b) => a.at - b.at)),
        recordCompletionFrom: (_id, address, completion) => Ref.update(completions, (all) => [...all, { address, ...completion }]),
        countIntentFrom: (address, hourStart, limit) =>
          Ref.modify(intents, (all) => {
            const key = `${address} ${hourStart.toISOString()}`
            const made = all.get(key) ?? 0
            return made < limit ? [true, new Map(all).set(key, made + 1)] as const : [false, all] as const
          }),
        countPromoCodeUses: (code) => countUses(code),
        lockPromoCodeUses: (code) => countUses(code),
        holdsBetween: (from, until) =>
          Effect.map(Ref.get(store), (all) =>
            [...all.values()]
              .filter((r) => r.status === "GUEST_COMPLETED" && r.checkin < until && r.checkout > from)
              .flatMap((r) => holdsOf(r.id, r.rooms, r.checkin, r.checkout)))
      }
    })
  )
}
