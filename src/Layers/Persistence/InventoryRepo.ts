import { Context, Effect, Layer, Ref } from "effect"
import { SqlClient } from "effect/sql"
import {
  CHANNEL_FIELDS,
  type ChannelCells,
  type ChannelField,
  countsAsTakenSince,
  emptyNight,
  noCells,
  released,
  type StoredNight,
  taken
} from "../../Domain/Channel.js"
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

/** The cells a channel message leaves on a night it touched; `booked_since` counted again when `rooms_to_sell` was written. */
export interface ChannelWrite {
  readonly room_type_id: RoomTypeId
  readonly night: LocalDate
  readonly cells: ChannelCells
  readonly booked_since: number | undefined
}

/** Rooms held per room type and night, as `takenSince` counts them. */
export interface HeldRooms {
  readonly room_type_id: RoomTypeId
  readonly night: LocalDate
  readonly rooms: number
}

/**
 * Per room type and night: the rooms this service's reservations hold, and what the hotel's
 * systems said of the night (DESIGN §12). Rows that were never written read as empty nights.
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
   * Inside the same transaction: holds `rooms` more rooms of a type on every night of the stay, for
   * a reservation taking them at `takenAt`. A night with a figure from the hotel counts them in
   * `booked_since`: the figure, read committed before this take, cannot count them.
   */
  readonly take: (roomTypeId: RoomTypeId, rooms: number, checkin: LocalDate, checkout: LocalDate, takenAt: Date) => Effect.Effect<void>
  /**
   * Inside the transaction that locked them: gives back `rooms` rooms of a type on every night of
   * the stay, taken at `takenAt`; `booked_since` gives them back only when they were taken after
   * the hotel's figure (which otherwise still counts them, until its next message).
   */
  readonly release: (roomTypeId: RoomTypeId, rooms: number, checkin: LocalDate, checkout: LocalDate, takenAt: Date) => Effect.Effect<void>
  /** Inside the transaction that locked them: the cells a channel message leaves. */
  readonly writeChannel: (writes: ReadonlyArray<ChannelWrite>) => Effect.Effect<void>
  /** The rooms of completed reservations that took their nights at or after `asOf` (`Channel.countsAsTakenSince`), per room type and night from `from` up to `until`. */
  readonly takenSince: (asOf: Date, from: LocalDate, until: LocalDate) => Effect.Effect<ReadonlyArray<HeldRooms>>
}>()("InventoryRepo") {
  static readonly layer = Layer.effect(
    InventoryRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // each field with its as_of as epoch milliseconds (timestamptz keeps microseconds: a message's are whole)
      const columns = sql.unsafe(
        ["room_type_id", "night", "booked", "booked_since"].concat(CHANNEL_FIELDS.flatMap((field) => [
          field,
          `(extract(epoch FROM ${field}_as_of) * 1000)::float8 AS ${field}_as_of`
        ])).join(", ")
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
      const take = (roomTypeId: RoomTypeId, rooms: number, checkin: LocalDate, checkout: LocalDate) =>
        Effect.gen(function*() {
          // the capacity checks are the service's; these only guard against a bug ever overbooking
          const updated = yield* sql`
            UPDATE inventory_nights n SET booked = n.booked + ${rooms},
              booked_since = n.booked_since + CASE WHEN n.rooms_to_sell_as_of IS NULL THEN 0 ELSE ${rooms}::int END
            FROM room_types rt
            WHERE rt.id = n.room_type_id AND n.room_type_id = ${roomTypeId}
              AND n.night >= ${checkin}::date AND n.night < ${checkout}::date
              AND n.booked + ${rooms} <= rt.inventory
              AND (n.rooms_to_sell IS NULL OR n.booked_since + ${rooms} <= n.rooms_to_sell)
            RETURNING n.night`
          const nights = nightsOf(checkin, checkout).length
          if (updated.length !== nights) {
            return yield* Effect.die(new Error(`taking ${rooms} ${roomTypeId} would overbook: ${updated.length} of ${nights} nights fit`))
          }
        }).pipe(Effect.orDie, Tracing.withSpan("InventoryRepo.take", { attributes: { roomTypeId, rooms, checkin, checkout } }))
      const release = (roomTypeId: RoomTypeId, rooms: number, checkin: LocalDate, checkout: LocalDate, takenAt: Date) =>
        Effect.gen(function*() {
          // rooms taken before the hotel's figure stay in it until its next message: booked_since keeps
          // counting what the figure does not, and can never exceed what is booked
          const updated = yield* sql`
            UPDATE inventory_nights SET booked = booked - ${rooms},
              booked_since = least(booked - ${rooms}, booked_since - CASE
                WHEN rooms_to_sell_as_of IS NOT NULL AND ${takenAt}::timestamptz >= rooms_to_sell_as_of
                THEN least(${rooms}::int, booked_since) ELSE 0 END)
            WHERE room_type_id = ${roomTypeId} AND night >= ${checkin}::date AND night < ${checkout}::date
              AND booked >= ${rooms}
            RETURNING night`
          const nights = nightsOf(checkin, checkout).length
          if (updated.length !== nights) {
            return yield* Effect.die(new Error(`releasing ${rooms} ${roomTypeId} would give back rooms never taken: ${updated.length} of ${nights} nights`))
          }
        }).pipe(Effect.orDie, Tracing.withSpan("InventoryRepo.release", { attributes: { roomTypeId, rooms, checkin, checkout } }))
      const writeChannel = (writes: ReadonlyArray<ChannelWrite>) =>
        Effect.gen(function*() {
          if (writes.length === 0) return
          const records = writes.map((write) => {
            const record: Record<string, unknown> = {
              room_type_id: write.room_type_id,
              night: write.night,
              booked_since: write.booked_since ?? null
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
            UPDATE inventory_nights n SET ${sql.unsafe(sets)}, booked_since = coalesce(v.booked_since, n.booked_since)
            FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb)
              AS v(room_type_id text, night date, booked_since int, ${sql.unsafe(types)})
            WHERE n.room_type_id = v.room_type_id AND n.night = v.night`
        }).pipe(Effect.orDie, Tracing.withSpan("InventoryRepo.writeChannel", { attributes: { nights: writes.length } }))
      const takenSince = (asOf: Date, from: LocalDate, until: LocalDate) =>
        sql<HeldRooms>`
          SELECT line.room_type_id, d::date AS night, sum(line.quantity)::int AS rooms
          FROM reservations r
          CROSS JOIN LATERAL jsonb_to_recordset(r.rooms) AS line(room_type_id text, quantity int)
          CROSS JOIN LATERAL generate_series(greatest(r.checkin, ${from}::date), least(r.checkout, ${until}::date) - 1, interval '1 day') AS d
          WHERE r.status = 'GUEST_COMPLETED' AND r.nights_taken_at >= ${asOf}::timestamptz
            AND r.checkin < ${until}::date AND r.checkout > ${from}::date
          GROUP BY line.room_type_id, d`.pipe(
          Effect.orDie,
          Tracing.withSpan("InventoryRepo.takenSince", { attributes: { from, until } })
        )
      return {
        lockNights: (roomTypeIds, checkin, checkout) => lockRanges([{ roomTypeIds, checkin, checkout }]),
        lockRanges,
        lockRangesAlone: lockRangesWith(true),
        take,
        release,
        writeChannel,
        takenSince,
        nights: (from, until) =>
          nightsInRanges({ from, until }).pipe(Tracing.withSpan("InventoryRepo.nights", { attributes: { from, until } })),
        nightsBetween: (from, until) =>
          readBetween(from, until).pipe(Tracing.withSpan("InventoryRepo.nightsBetween", { attributes: { from, until } }))
      }
    })
  )

  /**
   * Inventory in memory: `inventory` rooms per type, `booked` rooms per type and night held
   * beforehand (taken long ago: no message counts them as taken since).
   */
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
        // every take, to count the rooms taken since a message's as_of as the reservations table does
        const holds = yield* Ref.make<ReadonlyArray<HeldRooms & { readonly takenAt: number }>>([])
        const nightOf = (rows: ReadonlyMap<string, StoredNight>, roomTypeId: RoomTypeId, night: LocalDate): StoredNight =>
          rows.get(key(roomTypeId, night)) ?? { ...emptyNight, room_type_id: roomTypeId, night }
        const between = (from: LocalDate, until: LocalDate) =>
          Effect.map(Ref.get(state), (rows) => [...rows.values()].filter((row) => row.night >= from && row.night < until))
        /** Adds `rooms` (taken) or removes them (released) on every night; never beyond what may be sold or below zero. */
        const hold = (roomTypeId: RoomTypeId, rooms: number, checkin: LocalDate, checkout: LocalDate, takenAt: Date) =>
          Effect.flatMap(Ref.get(state), (rows) => {
            const next = new Map(rows)
            for (const night of nightsOf(checkin, checkout)) {
              const row = nightOf(rows, roomTypeId, night)
              const { booked, booked_since } = rooms > 0 ? taken(row, rooms) : released(row, -rooms, takenAt.getTime())
              const toSell = row.cells.rooms_to_sell.value
              if (booked > (inventory[roomTypeId] ?? 0) || booked < 0 || (rooms > 0 && toSell !== null && booked_since > toSell)) {
                return Effect.die(new Error(`holding ${rooms} more ${roomTypeId} would overbook or free rooms never taken`))
              }
              next.set(key(roomTypeId, night), { ...row, booked, booked_since })
            }
            return Ref.set(state, next)
          })
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
          take: (roomTypeId, rooms, checkin, checkout, takenAt) =>
            Effect.andThen(
              hold(roomTypeId, rooms, checkin, checkout, takenAt),
              Ref.update(holds, (all) => [
                ...all,
                ...nightsOf(checkin, checkout).map((night) => ({ room_type_id: roomTypeId, night, rooms, takenAt: takenAt.getTime() }))
              ])
            ),
          release: (roomTypeId, rooms, checkin, checkout, takenAt) =>
            Effect.andThen(
              hold(roomTypeId, -rooms, checkin, checkout, takenAt),
              Ref.update(holds, (all) => {
                // the nights of that take, once: rooms seeded beforehand have none
                const left = [...all]
                for (const night of nightsOf(checkin, checkout)) {
                  const i = left.findIndex((h) =>
                    h.room_type_id === roomTypeId && h.night === night && h.rooms === rooms && h.takenAt === takenAt.getTime()
                  )
                  if (i >= 0) left.splice(i, 1)
                }
                return left
              })
            ),
          writeChannel: (writes) =>
            Ref.update(state, (rows) => {
              const next = new Map(rows)
              for (const write of writes) {
                const row = nightOf(rows, write.room_type_id, write.night)
                next.set(key(write.room_type_id, write.night), {
                  ...row,
                  cells: write.cells,
                  booked_since: write.booked_since ?? row.booked_since
                })
              }
              return next
            }),
          takenSince: (asOf, from, until) =>
            Effect.map(Ref.get(holds), (all) => {
              const counts = new Map<string, HeldRooms>()
              for (const h of all) {
                if (!countsAsTakenSince(h.takenAt, asOf.getTime()) || h.night < from || h.night >= until) continue
                const k = key(h.room_type_id, h.night)
                counts.set(k, { room_type_id: h.room_type_id, night: h.night, rooms: (counts.get(k)?.rooms ?? 0) + h.rooms })
              }
              return [...counts.values()]
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
    // a night no message touched shares the one empty set of cells
    cells: row.rooms_to_sell_as_of === null && CHANNEL_FIELDS.every((field) => row[`${field}_as_of`] === null)
      ? noCells
      : Object.fromEntries(CHANNEL_FIELDS.map((field) => [field, cell(field)])) as unknown as ChannelCells
  }
}
