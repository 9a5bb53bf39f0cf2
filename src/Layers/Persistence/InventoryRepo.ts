import { Context, Effect, Layer, Ref } from "effect"
import { SqlClient } from "effect/sql"
import type { BookedNight } from "../../Domain/Channel/BookedSince.js"
import { type ChannelCells, noCells } from "../../Domain/Channel/Cells.js"
import type { Knowledge } from "../../Domain/Channel/Knowledge.js"
import { CHANNEL_FIELDS, type ChannelField } from "../../Domain/Channel/Message.js"
import { emptyNight, type StoredNight } from "../../Domain/Channel/Nights.js"
import { RoomTypeId } from "../../Domain/Ids.js"
import { LocalDate, nightsOf } from "../../Domain/LocalDate.js"
import { makeBatcher } from "./Batcher.js"
import * as Tracing from "../Platform/Tracing.js"

/** The advisory lock before the nights (`lockRangesAlone`). */
const NIGHTS_GATE = 7_240_013

/** Nights of some room types: from `checkin` up to `checkout`. */
export interface NightRange {
  readonly roomTypeIds: ReadonlyArray<RoomTypeId>
  readonly checkin: LocalDate
  readonly checkout: LocalDate
}

/**
 * The cells a channel message leaves on a night it touched; when it wrote `rooms_to_sell`, what its
 * figure counts of this service's reservations and the rooms it does not count (`booked_since`).
 */
export interface ChannelWrite {
  readonly room_type_id: RoomTypeId
  readonly night: LocalDate
  readonly cells: ChannelCells
  readonly recount: { readonly knowledge: Knowledge; readonly booked_since: number } | undefined
}

/**
 * Per room type and night: the rooms this service's reservations hold, and what the hotel's
 * systems said of the night (docs/decisions.md#channel). Rows that were never written read as empty nights.
 */
export class InventoryRepo extends Context.Service<InventoryRepo, {
  /** The written nights from `from` up to `until`: the reads of quotes at one moment share a statement. */
  readonly nights: (from: LocalDate, until: LocalDate) => Effect.Effect<ReadonlyArray<StoredNight>>
  /** The same, in one statement of its own: a read over many stays at once (the price calendar) shares no batch. */
  readonly nightsBetween: (from: LocalDate, until: LocalDate) => Effect.Effect<ReadonlyArray<StoredNight>>
  /**
   * Inside a transaction: locks the nights of these room types in one fixed order (room type,
   * then night), so concurrent bookings and channel messages queue instead of deadlocking, and
   * answers every one of them, written or not.
   */
  readonly lockNights: (
    roomTypeIds: ReadonlyArray<RoomTypeId>,
    checkin: LocalDate,
    checkout: LocalDate
  ) => Effect.Effect<ReadonlyArray<StoredNight>>
  /**
   * `lockNights` for several ranges at once (a stay change: the nights it gives back and those it
   * takes; a channel message: its updates): their union, in the same fixed order, each row once.
   */
  readonly lockRanges: (ranges: ReadonlyArray<NightRange>) => Effect.Effect<ReadonlyArray<StoredNight>>
  /**
   * `lockRanges` for a channel message, which locks hundreds of nights: it first waits for the
   * bookings under way to finish and holds new ones back until it commits, instead of queueing
   * behind each booking that locks a night ahead of it (1,000 nights took 4 s beside 20 completions).
   */
  readonly lockRangesAlone: (ranges: ReadonlyArray<NightRange>) => Effect.Effect<ReadonlyArray<StoredNight>>
  /**
   * Inside the transaction that locked them: the nights' bookings as `BookedSince.afterChanges`
   * computed them, which decides; this stores. It dies, changing nothing, on a night not as it was
   * locked, or that would then hold fewer rooms than none or, taking, more than the hotel has or its
   * figure leaves: the service checks capacity first, so only a bug gets here.
   */
  readonly writeBookings: (nights: ReadonlyArray<BookedNight>) => Effect.Effect<void>
  /** Inside the transaction that locked them: the cells a channel message leaves. */
  readonly writeChannel: (writes: ReadonlyArray<ChannelWrite>) => Effect.Effect<void>
}>()("InventoryRepo") {
  static readonly layer = Layer.effect(
    InventoryRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // each field with its as_of as epoch milliseconds (timestamptz keeps microseconds: a message's are whole)
      const epochMs = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8 AS ${column}`
      const columns = sql.unsafe(
        ["room_type_id", "night", "booked", "booked_since", "rooms_to_sell_through::text", epochMs("rooms_to_sell_acked_by")]
          .concat(CHANNEL_FIELDS.flatMap((field) => [field, epochMs(`${field}_as_of`)])).join(", ")
      )
      const readBetween = (from: LocalDate, until: LocalDate) =>
        sql<NightRow>`SELECT ${columns} FROM inventory_nights WHERE night >= ${from}::date AND night < ${until}::date`.pipe(
          Effect.map((rows) => rows.map(storedNight)),
          Effect.orDie
        )
      // Quotes read nights on every call: the reads waiting at one moment share one query over
      // the span of all their stays, and each takes its own nights from it.
      const nightsInRanges = yield* makeBatcher(
        (ranges: ReadonlyArray<{ readonly from: LocalDate; readonly until: LocalDate }>) =>
          readBetween(
            ranges.reduce((min, r) => r.from < min ? r.from : min, ranges[0]!.from),
            ranges.reduce((max, r) => r.until > max ? r.until : max, ranges[0]!.until)
          ).pipe(
            Effect.map((rows) => ranges.map((r) => rows.filter((row) => row.night >= r.from && row.night < r.until))),
            Tracing.withSpan("InventoryRepo.nightsBatch", { attributes: { ranges: ranges.length } })
          ),
        { maxBatch: 100, concurrency: 1 }
      )
      // Every lock of nights first takes this gate: shared by bookings, which never wait for each
      // other on it, exclusive for a channel message. It is taken after any other lock of the
      // transaction and before the nights, by everyone, so it adds no cycle to the lock order.
      const gate = (alone: boolean) =>
        alone ? sql`SELECT pg_advisory_xact_lock(${NIGHTS_GATE})` : sql`SELECT pg_advisory_xact_lock_shared(${NIGHTS_GATE})`
      const lockRangesWith = (alone: boolean) => (ranges: ReadonlyArray<NightRange>) =>
        Effect.gen(function*() {
          const wanted = ranges.filter((range) => range.roomTypeIds.length > 0 && range.checkin < range.checkout)
          if (wanted.length === 0) return []
          yield* gate(alone)
          const inRange = (range: NightRange) =>
            sql`(room_type_id IN ${sql.in(range.roomTypeIds)} AND night >= ${range.checkin}::date AND night < ${range.checkout}::date)`
          // rows are created on first use, in the same order as they are locked
          yield* sql`
            INSERT INTO inventory_nights (room_type_id, night)
            SELECT room_type_id, night FROM (${
            sql.join(" UNION ", false)(wanted.map((range) =>
              sql`
                SELECT rt.id AS room_type_id, d::date AS night FROM room_types rt
                CROSS JOIN generate_series(${range.checkin}::date, ${range.checkout}::date - 1, interval '1 day') AS d
                WHERE rt.id IN ${sql.in(range.roomTypeIds)}`
            ))
          }) AS wanted
            ORDER BY room_type_id, night
            ON CONFLICT DO NOTHING`
          const rows = yield* sql<NightRow>`
            SELECT ${columns} FROM inventory_nights
            WHERE ${sql.or(wanted.map(inRange))}
            ORDER BY room_type_id, night
            FOR UPDATE`
          return rows.map(storedNight)
        }).pipe(Effect.orDie, Tracing.withSpan("InventoryRepo.lockNights", { attributes: { ranges: ranges.length, alone } }))
      const lockRanges = lockRangesWith(false)
      const writeBookings = (nights: ReadonlyArray<BookedNight>) =>
        Effect.gen(function*() {
          if (nights.length === 0) return
          const records = nights.map((n) => ({
            room_type_id: n.room_type_id,
            night: n.night,
            booked: n.booked,
            booked_since: n.booked_since,
            locked_booked: n.locked.booked,
            locked_booked_since: n.locked.booked_since
          }))
          // all or nothing: every night is checked before any is written
          const updated = yield* sql`
            WITH v AS (
              SELECT * FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb)
                AS v(room_type_id text, night date, booked int, booked_since int, locked_booked int, locked_booked_since int)
            ), fitting AS (
              SELECT count(*) AS nights FROM v
              JOIN inventory_nights n ON n.room_type_id = v.room_type_id AND n.night = v.night
              JOIN room_types rt ON rt.id = n.room_type_id
              WHERE n.booked = v.locked_booked AND n.booked_since = v.locked_booked_since AND v.booked >= 0
                AND (v.booked <= n.booked OR (v.booked <= rt.inventory AND (n.rooms_to_sell IS NULL OR v.booked_since <= n.rooms_to_sell)))
            )
            UPDATE inventory_nights n SET booked = v.booked, booked_since = v.booked_since
            FROM v, fitting
            WHERE n.room_type_id = v.room_type_id AND n.night = v.night AND fitting.nights = ${nights.length}
            RETURNING n.night`
          if (updated.length !== nights.length) {
            return yield* Effect.die(new Error(`writing bookings: ${nights.length - updated.length} of ${nights.length} nights were not as locked, or would overbook or free rooms never taken`))
          }
        }).pipe(Effect.orDie, Tracing.withSpan("InventoryRepo.writeBookings", { attributes: { nights: nights.length } }))
      const writeChannel = (writes: ReadonlyArray<ChannelWrite>) =>
        Effect.gen(function*() {
          if (writes.length === 0) return
          const records = writes.map((write) => {
            const record: Record<string, unknown> = {
              room_type_id: write.room_type_id,
              night: write.night,
              recount: write.recount !== undefined,
              booked_since: write.recount?.booked_since ?? null,
              through: write.recount?.knowledge.through?.toString() ?? null,
              acked_by: write.recount?.knowledge.ackedBy ?? null
            }
            for (const field of CHANNEL_FIELDS) {
              record[field] = write.cells[field].value
              record[`${field}_as_of`] = write.cells[field].as_of
            }
            return record
          })
          const types = CHANNEL_FIELDS.flatMap((field) => [`${field} ${fieldTypes[field]}`, `${field}_as_of float8`]).join(", ")
          const sets = CHANNEL_FIELDS.flatMap((field) => [
            `${field} = v.${field}`,
            `${field}_as_of = to_timestamp(v.${field}_as_of / 1000.0)`
          ]).join(", ")
          yield* sql`
            UPDATE inventory_nights n SET ${sql.unsafe(sets)},
              booked_since = CASE WHEN v.recount THEN v.booked_since ELSE n.booked_since END,
              rooms_to_sell_through = CASE WHEN v.recount THEN v.through ELSE n.rooms_to_sell_through END,
              rooms_to_sell_acked_by = CASE WHEN v.recount THEN to_timestamp(v.acked_by / 1000.0) ELSE n.rooms_to_sell_acked_by END
            FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb)
              AS v(room_type_id text, night date, recount boolean, booked_since int, through bigint, acked_by float8, ${sql.unsafe(types)})
            WHERE n.room_type_id = v.room_type_id AND n.night = v.night`
        }).pipe(Effect.orDie, Tracing.withSpan("InventoryRepo.writeChannel", { attributes: { nights: writes.length } }))
      return {
        lockNights: (roomTypeIds, checkin, checkout) => lockRanges([{ roomTypeIds, checkin, checkout }]),
        lockRanges,
        lockRangesAlone: lockRangesWith(true),
        writeBookings,
        writeChannel,
        nights: (from, until) =>
          nightsInRanges({ from, until }).pipe(Tracing.withSpan("InventoryRepo.nights", { attributes: { from, until } })),
        nightsBetween: (from, until) =>
          readBetween(from, until).pipe(Tracing.withSpan("InventoryRepo.nightsBetween", { attributes: { from, until } }))
      }
    })
  )

  /** Inventory in memory: `inventory` rooms per type, `booked` rooms per type and night held beforehand. */
  static readonly InMemory = (
    inventory: Readonly<Record<string, number>>,
    booked: Readonly<Record<string, Readonly<Record<string, number>>>> = {}
  ) =>
    Layer.effect(
      InventoryRepo,
      Effect.gen(function*() {
        const key = (roomTypeId: RoomTypeId, night: LocalDate) => `${roomTypeId}\u0000${night}`
        const seeded = new Map<string, StoredNight>()
        for (const [roomTypeId, byNight] of Object.entries(booked)) {
          for (const [night, count] of Object.entries(byNight)) {
            seeded.set(key(roomTypeId as RoomTypeId, night as LocalDate), {
              ...emptyNight,
              room_type_id: roomTypeId as RoomTypeId,
              night: night as LocalDate,
              booked: count
            })
          }
        }
        const state = yield* Ref.make<ReadonlyMap<string, StoredNight>>(seeded)
        const nightOf = (rows: ReadonlyMap<string, StoredNight>, roomTypeId: RoomTypeId, night: LocalDate): StoredNight =>
          rows.get(key(roomTypeId, night)) ?? { ...emptyNight, room_type_id: roomTypeId, night }
        const between = (from: LocalDate, until: LocalDate) =>
          Effect.map(Ref.get(state), (rows) => [...rows.values()].filter((row) => row.night >= from && row.night < until))
        const lockRanges = (ranges: ReadonlyArray<NightRange>) =>
          Effect.map(Ref.get(state), (rows) => {
            // every night of each range, written or not, once, in the order PostgreSQL locks them
            const keys = new Set(ranges.flatMap((range) =>
              range.roomTypeIds.flatMap((roomTypeId) => nightsOf(range.checkin, range.checkout).map((night) => key(roomTypeId, night)))
            ))
            return [...keys].sort().map((k) => {
              const [roomTypeId, night] = k.split("\u0000") as [RoomTypeId, LocalDate]
              return nightOf(rows, roomTypeId, night)
            })
          })
        const nights = (from: LocalDate, until: LocalDate) => between(from, until)
        return {
          nights,
          nightsBetween: nights,
          lockNights: (roomTypeIds, checkin, checkout) => lockRanges([{ roomTypeIds, checkin, checkout }]),
          lockRanges,
          // the in-memory transactions run one at a time: every lock is taken alone
          lockRangesAlone: lockRanges,
          // the same guards as PostgreSQL's, checked on every night before any is written
          writeBookings: (written) =>
            Effect.flatMap(Ref.get(state), (rows) => {
              const next = new Map(rows)
              for (const { booked, booked_since, locked, night, room_type_id } of written) {
                const row = nightOf(rows, room_type_id, night)
                const toSell = row.cells.rooms_to_sell.value
                const asLocked = row.booked === locked.booked && row.booked_since === locked.booked_since
                const fits = booked <= row.booked || (booked <= (inventory[room_type_id] ?? 0) && (toSell === null || booked_since <= toSell))
                if (!asLocked || booked < 0 || !fits) {
                  return Effect.die(new Error(`writing bookings: ${room_type_id} on ${night} was not as locked, or would overbook or free rooms never taken`))
                }
                next.set(key(room_type_id, night), { ...row, booked, booked_since })
              }
              return Ref.set(state, next)
            }),
          writeChannel: (writes) =>
            Ref.update(state, (rows) => {
              const next = new Map(rows)
              for (const write of writes) {
                const row = nightOf(rows, write.room_type_id, write.night)
                next.set(key(write.room_type_id, write.night), {
                  ...row,
                  cells: write.cells,
                  ...(write.recount ?? {})
                })
              }
              return next
            })
        }
      })
    )
}

/** A night as PostgreSQL answers it: flat columns, each as_of in epoch milliseconds. */
type NightRow = {
  readonly room_type_id: RoomTypeId
  readonly night: LocalDate
  readonly booked: number
  readonly booked_since: number
  readonly rooms_to_sell_through: string | null
  readonly rooms_to_sell_acked_by: number | null
} & { readonly [K in ChannelField]: unknown } & { readonly [K in `${ChannelField}_as_of`]: number | null }

const fieldTypes: Record<ChannelField, string> = {
  rooms_to_sell: "int",
  stop_sell: "boolean",
  closed_to_arrival: "boolean",
  closed_to_departure: "boolean",
  min_stay: "int",
  max_stay: "int",
  base_rate: "int"
}

const storedNight = (row: NightRow): StoredNight => {
  const cell = (field: ChannelField) => {
    const asOf = row[`${field}_as_of`]
    return { value: row[field] ?? null, as_of: asOf === null ? null : Math.round(asOf) }
  }
  return {
    room_type_id: row.room_type_id,
    night: row.night,
    booked: row.booked,
    booked_since: row.booked_since,
    knowledge: row.rooms_to_sell_as_of === null ? null : {
      through: row.rooms_to_sell_through === null ? null : BigInt(row.rooms_to_sell_through),
      ackedBy: row.rooms_to_sell_acked_by === null ? null : Math.round(row.rooms_to_sell_acked_by)
    },
    // a night no message touched shares the one empty set of cells
    cells: row.rooms_to_sell_as_of === null && CHANNEL_FIELDS.every((field) => row[`${field}_as_of`] === null)
      ? noCells
      : Object.fromEntries(CHANNEL_FIELDS.map((field) => [field, cell(field)])) as unknown as ChannelCells
  }
}
