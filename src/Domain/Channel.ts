import { Schema } from "effect"
import { rule, wireExamples } from "./Documentation.js"
import type { MessageIssue as MessageIssueSchema } from "./Errors.js"
import type { HotelDefinition } from "./Hotel.js"
import { FeedCursor, ReservationId, RoomTypeId } from "./Ids.js"
import { addDays, daysBetween, formatInstant, fromEpochDay, isCalendarDate, LocalDate, nightsOf, toEpochDay } from "./LocalDate.js"
import { Amount, type Cents, Currency, describedAmount } from "./Money.js"
import { Text } from "./Text.js"

/**
 * The hotel's own systems (its PMS or channel manager) tell this service, per room type and night,
 * how many rooms it may sell, the restrictions of the night and its base rate (docs/decisions.md#channel): the
 * figures every other channel also receives, in OpenTravel's terms (`BookingLimit`,
 * `RestrictionStatus`, `LengthOfStay`, `BaseByGuestAmts`).
 */

/** The most updates one message carries. */
export const MAX_UPDATES = 1_000
/** The most dates one update's range covers. */
export const MAX_UPDATE_DATES = 500
/** The longest `message_id`. */
export const MAX_MESSAGE_ID_LENGTH = 64
/** The most a base rate may be, in cents: 100,000.00 in the hotel's currency. */
export const MAX_BASE_RATE_CENTS = 10_000_000
/** How far in the future `as_of` may be: a clock gone wrong is refused, not trusted for days. */
export const MAX_AS_OF_AHEAD_MS = 5 * 60_000
/** The most dates the inventory view answers. */
export const MAX_VIEW_DATES = 62
/** The longest minimum or maximum stay: a stay is at most 30 nights. */
export const MAX_STAY_NIGHTS = 30

/** The fields a message sets per room type and date, in the order the answer and the view list them. */
export const CHANNEL_FIELDS = [
  "rooms_to_sell",
  "stop_sell",
  "closed_to_arrival",
  "closed_to_departure",
  "min_stay",
  "max_stay",
  "base_rate"
] as const
export type ChannelField = typeof CHANNEL_FIELDS[number]

/** The earliest `as_of`: a figure from before 2000 is a clock gone wrong, not a figure. */
export const EARLIEST_AS_OF = "2000-01-01T00:00:00Z"

/** Whether the fields of an instant's text name a real one: a real date, a time of day, an offset of at most 14 hours. */
const isRealInstant = (text: string): boolean => {
  const offset = text.endsWith("Z") ? "+00:00" : text.slice(-6)
  return isCalendarDate(text.slice(0, 10)) && Number(text.slice(11, 13)) <= 23 && Number(text.slice(14, 16)) <= 59 &&
    Number(text.slice(17, 19)) <= 59 && Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)) <= 14 * 60 &&
    Number(offset.slice(4, 6)) <= 59
}

/** An instant with its offset, milliseconds allowed: `2027-03-12T09:30:00.250+01:00` or `…Z`. */
export const AsOf = Schema.String.pipe(
  Schema.check(
    Schema.isMaxLength(35).abort(),
    // no u flag: the document says format date-time, not this pattern
    Schema.isPattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/, {
      message: "must be a date-time with its offset, e.g. 2027-03-12T09:30:00+01:00"
    }).abort(),
    rule(isRealInstant, "must be a real date-time (a real date, hours 00-23, an offset of at most 14 hours)").abort(),
    rule((text: string) => Date.parse(text) >= Date.parse(EARLIEST_AS_OF), `must not be before ${EARLIEST_AS_OF}`)
  ),
  Schema.annotate({
    identifier: "AsOf",
    description: "The instant the hotel's system computed the figures (date-time with offset, milliseconds allowed, " +
      "not before 2000, at most 5 minutes ahead): it orders the figures, newest wins per field",
    format: "date-time",
    examples: ["2027-03-01T09:30:00+01:00"]
  })
)

/** A base rate on the wire: an amount with at most two decimals, above 0 and at most 100,000.00. */
export const BaseRate = Schema.Finite.pipe(
  Schema.check(
    Schema.isGreaterThan(0).abort(),
    Schema.isLessThanOrEqualTo(MAX_BASE_RATE_CENTS / 100).abort(),
    rule((n: number) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-6, "must have at most 2 decimals")
  ),
  Schema.annotate({
    description: "Nightly base rate in the hotel's currency (FLEX room price before demand pricing), > 0, at most 100000.00, 2 decimals"
  }),
  Schema.decodeTo(Amount)
)

const Flag = Schema.NullOr(Schema.Boolean)
const StayBound = Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_STAY_NIGHTS })))

/** One update: a range of dates of one room type (or of all), with the fields it sets; `null` clears a field. */
export const AriUpdate = Schema.Struct({
  room_type_id: Schema.optionalKey(RoomTypeId).annotateKey({ description: "The room type; absent: every room type" }),
  from: LocalDate.annotateKey({ description: "First date (not before yesterday in hotel time)" }),
  to: LocalDate.annotateKey({ description: `Last date, inclusive; at most ${MAX_UPDATE_DATES} dates from from` }),
  rooms_to_sell: Schema.optionalKey(Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10_000 })))).annotate({
    description: "Rooms this service may sell (BookingLimit), 0 to the room type's count; null: the hotel file's count again"
  }),
  stop_sell: Schema.optionalKey(Flag).annotate({ description: "No stay through this night (RestrictionStatus Close)" }),
  closed_to_arrival: Schema.optionalKey(Flag).annotate({ description: "No check-in on this date" }),
  closed_to_departure: Schema.optionalKey(Flag).annotate({ description: "No check-out on this date" }),
  min_stay: Schema.optionalKey(StayBound).annotate({
    description: `Fewest nights of a stay arriving on this date (LengthOfStay MinLOS, arrival-based), 1 to ${MAX_STAY_NIGHTS}`
  }),
  max_stay: Schema.optionalKey(StayBound).annotate({
    description: `Most nights of a stay arriving on this date (MaxLOS), 1 to ${MAX_STAY_NIGHTS}, at least min_stay`
  }),
  base_rate: Schema.optionalKey(Schema.NullOr(BaseRate)).annotateKey({
    description: "Replaces the hotel file's nightly base rate (season and weekend supplement included); null: the file's again"
  })
}).annotate({ identifier: "AriUpdate" })
export type AriUpdate = typeof AriUpdate.Type

/**
 * `POST /internal/v1/ari`: availability, restrictions and rates (ARI) from the hotel's systems. An
 * unknown field, in the message or in an update, is refused: it is decoded with `onExcessProperty: "error"`.
 */
export const AriMessage = Schema.Struct({
  message_id: Text.check(
    Schema.isMinLength(1, { message: "must not be empty" }).abort(),
    Schema.isMaxLength(MAX_MESSAGE_ID_LENGTH, { message: `must be at most ${MAX_MESSAGE_ID_LENGTH} characters` })
  ).annotate({
    description: "Makes the message idempotent: the same id again answers the first answer and changes nothing"
  }),
  as_of: AsOf,
  reservations_through: Schema.optionalKey(FeedCursor).annotateKey({
    description: "The cursor of GET /internal/v1/reservations up to which the figures count this service's reservation " +
      "changes (a system that pulls the feed: the last cursor it processed). Changes after it are held back from " +
      "rooms_to_sell, exactly. Absent: a change counts as known only once its PMS push was acknowledged 5 minutes " +
      "before min(as_of, arrival), or a message's cursor covered it"
  }),
  updates: Schema.Array(AriUpdate).check(Schema.isMaxLength(MAX_UPDATES, { message: `must hold at most ${MAX_UPDATES} updates; send the rest in another message` })).annotate({
    description: `At most ${MAX_UPDATES}; applied in order; [] is a heartbeat`
  })
}).annotate({ identifier: "AriMessage" }).pipe((schema) =>
  wireExamples(schema, [{
    message_id: "cm-2027-03-01-0001",
    as_of: "2027-03-01T09:30:00+01:00",
    reservations_through: "1824",
    updates: [
      { room_type_id: "deluxe" as RoomTypeId, from: "2027-03-12" as LocalDate, to: "2027-03-14" as LocalDate, rooms_to_sell: 2 },
      { from: "2027-07-14" as LocalDate, to: "2027-07-14" as LocalDate, min_stay: 3, closed_to_departure: true },
      { room_type_id: "double" as RoomTypeId, from: "2027-03-20" as LocalDate, to: "2027-03-21" as LocalDate, base_rate: 139 as Cents }
    ]
  }])
)
export type AriMessage = typeof AriMessage.Type

export const AriAnswer = Schema.Struct({
  message_id: Schema.String,
  applied: Schema.Int.annotate({ description: "(room type, date, field) cells written" }),
  stale: Schema.Int.annotate({ description: "Cells left alone: a newer as_of had already set them" })
}).annotate({ identifier: "AriAnswer" })
export type AriAnswer = typeof AriAnswer.Type

/** One bad field of a message, named by its path (`updates[3].min_stay`). */
export type MessageIssue = typeof MessageIssueSchema.Type

/** What the hotel's systems set for one field of a room type's night, and when they computed it (epoch ms); null: never set. */
export interface Cell<A> {
  readonly value: A | null
  readonly as_of: number | null
}

/** Every field the hotel's systems set for one room type and night. */
export type ChannelCells = {
  readonly rooms_to_sell: Cell<number>
  readonly stop_sell: Cell<boolean>
  readonly closed_to_arrival: Cell<boolean>
  readonly closed_to_departure: Cell<boolean>
  readonly min_stay: Cell<number>
  readonly max_stay: Cell<number>
  readonly base_rate: Cell<Cents>
}

const unset: Cell<never> = { value: null, as_of: null }
export const noCells: ChannelCells = {
  rooms_to_sell: unset,
  stop_sell: unset,
  closed_to_arrival: unset,
  closed_to_departure: unset,
  min_stay: unset,
  max_stay: unset,
  base_rate: unset
}

/**
 * What the hotel's figure counts of this service's reservation changes (docs/decisions.md#what-may-be-sold
 * 2026-11-28): the changes up to the feed cursor `through`, and those whose PMS push was
 * acknowledged at or before `ackedBy` (epoch ms). A change neither covers is unknown to the hotel:
 * the rooms it took are held back from the figure until a later message counts them.
 */
export interface Knowledge {
  readonly through: bigint | null
  readonly ackedBy: number | null
}

/** A reservation change as the feed keeps it: its cursor, and when the hotel acknowledged its PMS push. */
export interface KnowableChange {
  readonly seq: bigint
  readonly acked_at: number | null
}

/** Whether a figure of this knowledge counts the change. */
export const knows = (knowledge: Knowledge, change: KnowableChange): boolean =>
  (knowledge.through !== null && change.seq <= knowledge.through) ||
  (knowledge.ackedBy !== null && change.acked_at !== null && change.acked_at <= knowledge.ackedBy)

/**
 * What a message's figures count. With `reservations_through`, exactly the changes up to it. Without,
 * the changes that an earlier message's cursor covered (`watermark`: the hotel's system that counted
 * them once still counts them), and those whose push was acknowledged before the figure was
 * computed. When it was computed is known only from the hotel's clock, trusted to be at most
 * `MAX_AS_OF_AHEAD_MS` ahead (further is refused): a push counts when acknowledged that long before
 * min(as_of, arrival), so a clock ahead, or a message slow to arrive, never makes a booking known early.
 */
export const knowledgeOf = (message: AriMessage, arrivedAt: number, watermark: bigint | null): Knowledge =>
  message.reservations_through === undefined
    ? { through: watermark, ackedBy: Math.min(Date.parse(message.as_of), arrivedAt) - MAX_AS_OF_AHEAD_MS }
    : { through: BigInt(message.reservations_through), ackedBy: null }

/** Rooms of one type a reservation holds on each night from `checkin` up to `checkout`. */
export interface Hold {
  readonly reservation_id: ReservationId
  readonly room_type_id: RoomTypeId
  readonly rooms: number
  readonly checkin: LocalDate
  readonly checkout: LocalDate
}

/** Rooms wanted per room type: a reservation takes (and gives back) the same rooms on every night. */
export const roomsByType = (rooms: ReadonlyArray<{ readonly room_type_id: RoomTypeId; readonly quantity: number }>): Map<RoomTypeId, number> => {
  const wanted = new Map<RoomTypeId, number>()
  for (const line of rooms) wanted.set(line.room_type_id, (wanted.get(line.room_type_id) ?? 0) + line.quantity)
  return wanted
}

/** The rooms per type a reservation's lines hold on every night of its stay. */
export const holdsOf = (
  reservationId: ReservationId,
  lines: ReadonlyArray<{ readonly room_type_id: RoomTypeId; readonly quantity: number }>,
  checkin: LocalDate,
  checkout: LocalDate
): ReadonlyArray<Hold> =>
  [...roomsByType(lines)].map(([room_type_id, rooms]) => ({ reservation_id: reservationId, room_type_id, rooms, checkin, checkout }))

/**
 * What a figure may count of one reservation: the rooms of the last change it surely has (by its
 * cursor or an acknowledged push), or those of any later change, which it may have heard of too (a
 * push it took after the figure's cursor, an acknowledgement that was lost). Oldest first; no
 * state at all: the figure has heard of none of its changes.
 */
export type CountedStates = ReadonlyArray<ReadonlyArray<Hold>>

/**
 * The fewest rooms of a type a figure may count for a reservation on a night: whichever of its
 * states the hotel has, it counts at least these. Counting fewer than it does only holds back a
 * room more until the next message; counting more would sell one twice.
 */
export const countedOn = (states: CountedStates | undefined, roomTypeId: RoomTypeId, night: LocalDate): number => {
  if (states === undefined || states.length === 0) return 0
  let fewest = Infinity
  for (const state of states) fewest = Math.min(fewest, roomsHeldOn(state, roomTypeId, night))
  return fewest
}

/**
 * The rooms a figure cannot count, per room type and night (its `booked_since`): what each
 * reservation holds now beyond what the figure may count it holding. A reservation the figure
 * counts with more rooms than it holds now (a cancellation or a shorter stay it has not heard of)
 * gives nothing back: the figure still counts those rooms as sold.
 */
export const unknownRooms = (
  current: ReadonlyArray<Hold>,
  counted: ReadonlyMap<ReservationId, CountedStates>
): (roomTypeId: RoomTypeId, night: LocalDate) => number => {
  const unknown = new Map<string, number>()
  for (const hold of current) {
    const states = counted.get(hold.reservation_id)
    for (const night of nightsOf(hold.checkin, hold.checkout)) {
      const extra = hold.rooms - countedOn(states, hold.room_type_id, night)
      if (extra <= 0) continue
      const key = `${hold.room_type_id}\u0000${night}`
      unknown.set(key, (unknown.get(key) ?? 0) + extra)
    }
  }
  return (roomTypeId, night) => unknown.get(`${roomTypeId}\u0000${night}`) ?? 0
}

/**
 * The rooms of `booked_since` a reservation gives back when it releases `rooms` of the `held` it
 * holds on a night, while the figure may count it holding `counted` there: only those the figure
 * cannot count.
 */
export const givenBack = (held: number, counted: number, rooms: number): number => Math.max(0, Math.min(rooms, held - counted))

/** The rooms of a type that `holds` hold on a night. */
export const roomsHeldOn = (holds: ReadonlyArray<Hold>, roomTypeId: RoomTypeId, night: LocalDate): number => {
  let rooms = 0
  for (const hold of holds) if (hold.room_type_id === roomTypeId && hold.checkin <= night && night < hold.checkout) rooms += hold.rooms
  return rooms
}

/** Names a knowledge, so that the nights whose figures share one read what they know once. */
export const knowledgeKey = (knowledge: Knowledge): string => `${knowledge.through}/${knowledge.ackedBy}`

/**
 * One room type's night as selling needs it: this service's own bookings and what the hotel's
 * systems said of it. `booked_since` counts the rooms of `booked` that the figure of `rooms_to_sell`
 * does not count, as `knowledge` says (null: no figure).
 */
export interface NightState {
  readonly booked: number
  readonly booked_since: number
  readonly cells: ChannelCells
  readonly knowledge: Knowledge | null
  /** The hotel's system fell silent and the hotel chose to stop selling then (`CHANNEL_STALE_ACTION=stop_selling`). */
  readonly channel_stale?: boolean
}

export const emptyNight: NightState = { booked: 0, booked_since: 0, cells: noCells, knowledge: null }

/** A night of a room type, as the repositories read and lock them. */
export interface StoredNight extends NightState {
  readonly room_type_id: RoomTypeId
  readonly night: LocalDate
}

/** Per room type and night, the state of the night; absent ones are empty. */
export type NightLookup = (roomTypeId: RoomTypeId, night: LocalDate) => NightState

/** The lookup of rows read or locked. */
export const nightLookup = (rows: ReadonlyArray<StoredNight>): NightLookup => {
  // per room type, then night: asked for every room and night of every stay priced, so no key is built per look-up
  const byType = new Map<RoomTypeId, Map<LocalDate, NightState>>()
  for (const row of rows) {
    let byNight = byType.get(row.room_type_id)
    if (byNight === undefined) byType.set(row.room_type_id, byNight = new Map())
    byNight.set(row.night, row)
  }
  return (roomTypeId, night) => byType.get(roomTypeId)?.get(night) ?? emptyNight
}

/**
 * The nights of `nights` closed while the channel is silent (docs/decisions.md#operators): the figures may be old,
 * so no stay is sold on them, whatever they say, until the hotel's system speaks again.
 */
export const closedWhileSilent = (nights: NightLookup): NightLookup => (roomTypeId, night) => ({
  ...nights(roomTypeId, night),
  channel_stale: true
})

/**
 * The rooms of a type that may still be sold on a night: what the hotel file's count leaves, and,
 * once the hotel's systems sent a figure, what that figure leaves after the rooms this service
 * took that it does not count. Never below 0: a night the hotel oversold elsewhere has none.
 */
export const freeRooms = (rooms: number, night: NightState): number => {
  const byCount = rooms - night.booked
  const toSell = night.cells.rooms_to_sell.value
  return Math.max(0, toSell === null ? byCount : Math.min(byCount, toSell - night.booked_since))
}

/** The rooms of a type free on every night from `checkin` up to `checkout`: a room is sold for the whole stay. */
export const freeDuringStay = (
  rooms: number,
  nights: NightLookup,
  roomTypeId: RoomTypeId,
  checkin: LocalDate,
  checkout: LocalDate
): number => {
  let free = rooms
  for (const night of nightsOf(checkin, checkout)) free = Math.min(free, freeRooms(rooms, nights(roomTypeId, night)))
  return Math.max(0, free)
}

/** A night after a reservation took `rooms` more: a night with a figure counts them as unknown to it (taken since). */
export const taken = (night: NightState, rooms: number): NightState => ({
  ...night,
  booked: night.booked + rooms,
  booked_since: night.booked_since + (night.knowledge === null ? 0 : rooms)
})

/** A night after a reservation gave back `rooms`, of which `back` the figure did not count (`givenBack`). */
export const released = (night: NightState, rooms: number, back: number): NightState => {
  const booked = night.booked - rooms
  return { ...night, booked, booked_since: Math.max(0, Math.min(booked, night.booked_since - back)) }
}

/** Whether the hotel's figure is below the rooms this service took that it does not count: sold elsewhere too. */
export const isOversold = (night: NightState): boolean => {
  const toSell = night.cells.rooms_to_sell.value
  return toSell !== null && toSell < night.booked_since
}

/** Why a stay cannot be booked in a room type, before counting rooms (docs/decisions.md#restrictions), in order of precedence. */
export const RestrictionReason = Schema.Literals([
  "channel_stale",
  "stop_sell",
  "closed_to_arrival",
  "closed_to_departure",
  "min_stay",
  "max_stay"
])
export type RestrictionReason = typeof RestrictionReason.Type

export interface Restriction {
  readonly reason: RestrictionReason
  /** The bound broken, for `min_stay` and `max_stay`. */
  readonly nights?: number
}

/**
 * The restriction a stay of a room type breaks, the first in order of precedence, or undefined:
 * a silent channel the hotel stops selling on; stop-sell on any night; closed to arrival on the check-in date, to departure on the check-out
 * date; the minimum and maximum stay of the check-in date (arrival-based, as Apaleo and Mews count).
 */
export const stayRestriction = (
  nights: NightLookup,
  roomTypeId: RoomTypeId,
  checkin: LocalDate,
  checkout: LocalDate
): Restriction | undefined => {
  const stayNights = nightsOf(checkin, checkout)
  if (stayNights.some((night) => nights(roomTypeId, night).channel_stale === true)) return { reason: "channel_stale" }
  if (stayNights.some((night) => nights(roomTypeId, night).cells.stop_sell.value === true)) return { reason: "stop_sell" }
  const arrival = nights(roomTypeId, checkin).cells
  if (arrival.closed_to_arrival.value === true) return { reason: "closed_to_arrival" }
  if (nights(roomTypeId, checkout).cells.closed_to_departure.value === true) return { reason: "closed_to_departure" }
  const min = arrival.min_stay.value
  if (min !== null && stayNights.length < min) return { reason: "min_stay", nights: min }
  const max = arrival.max_stay.value
  if (max !== null && stayNights.length > max) return { reason: "max_stay", nights: max }
  return undefined
}

/** The bound a restriction names, as answers carry it: `min_stay` or `max_stay` with its number, else nothing. */
export const restrictionBound = (
  restriction: Restriction | undefined
): { readonly min_stay?: number; readonly max_stay?: number } =>
  restriction?.reason === "min_stay"
    ? { min_stay: restriction.nights! }
    : restriction?.reason === "max_stay"
    ? { max_stay: restriction.nights! }
    : {}

/** A guest's or agent's words for a restriction. */
export const restrictionMessage = (roomTypeId: RoomTypeId, restriction: Restriction): string => {
  switch (restriction.reason) {
    case "channel_stale":
      return `the hotel's system has not confirmed its ${roomTypeId} rooms for a while, and the hotel sells none meanwhile`
    case "stop_sell":
      return `the hotel has closed ${roomTypeId} rooms on a night of this stay`
    case "closed_to_arrival":
      return `the hotel takes no ${roomTypeId} arrivals on the check-in date`
    case "closed_to_departure":
      return `the hotel takes no ${roomTypeId} departures on the check-out date`
    case "min_stay":
      return `a ${roomTypeId} stay arriving on this date is at least ${restriction.nights} nights`
    case "max_stay":
      return `a ${roomTypeId} stay arriving on this date is at most ${restriction.nights} nights`
  }
}

/** The nights a read must cover to price and check stays from `checkin` to `checkout`: the check-out date too (closed to departure). */
export const readUntil = (checkout: LocalDate): LocalDate => addDays(checkout, 1)

/** The positions in `CHANNEL_FIELDS` of the fields an update carries (present, `null` included). */
const fieldsOf = (update: AriUpdate): ReadonlyArray<number> =>
  CHANNEL_FIELDS.flatMap((field, f) => Object.hasOwn(update, field) ? [f] : [])

/**
 * The dates the channel interface speaks of, in hotel time: from yesterday (a night still being
 * sold after midnight) to the end of the booking window. A date outside is refused, never read.
 */
export const channelWindow = (hotel: HotelDefinition, today: LocalDate): { readonly first: LocalDate; readonly last: LocalDate } => ({
  first: addDays(today, -1),
  last: addDays(today, hotel.booking.max_days_ahead)
})

/** The issues of a message that the schema cannot see: they depend on the hotel and on today. */
export const messageIssues = (
  hotel: HotelDefinition,
  today: LocalDate,
  now: number,
  message: AriMessage
): ReadonlyArray<MessageIssue> => {
  const issues: Array<MessageIssue> = []
  if (Date.parse(message.as_of) > now + MAX_AS_OF_AHEAD_MS) {
    issues.push({ path: "as_of", message: "is more than 5 minutes in the future: check the sending system's clock" })
  }
  const { first, last } = channelWindow(hotel, today)
  message.updates.forEach((update, i) => {
    const at = (field: string, text: string) => issues.push({ path: `updates[${i}].${field}`, message: text })
    const room = update.room_type_id === undefined ? undefined : hotel.room_types.find((r) => r.id === update.room_type_id)
    if (update.room_type_id !== undefined && room === undefined) {
      at("room_type_id", `unknown room type "${update.room_type_id}"; known: ${hotel.room_types.map((r) => r.id).join(", ")}`)
    }
    const dates = daysBetween(update.from, update.to) + 1
    if (dates < 1) at("to", "must not be before from")
    else if (dates > MAX_UPDATE_DATES) at("to", `the range spans ${dates} dates; an update covers at most ${MAX_UPDATE_DATES}`)
    if (update.from < first) at("from", `must not be before ${first} (yesterday in hotel time)`)
    if (update.to > last) at("to", `must not be after ${last} (the booking window, ${hotel.booking.max_days_ahead} days ahead)`)
    const toSell = update.rooms_to_sell
    if (toSell !== undefined && toSell !== null) {
      const over = (room === undefined ? hotel.room_types : [room]).filter((r) => toSell > r.inventory)
      if (over.length > 0) {
        at("rooms_to_sell", `${toSell} is more than the hotel has: ${over.map((r) => `${r.id} ${r.inventory}`).join(", ")}`)
      }
    }
    if (update.min_stay != null && update.max_stay != null && update.min_stay > update.max_stay) {
      at("min_stay", `${update.min_stay} is above max_stay ${update.max_stay}`)
    }
  })
  return issues
}

/** A night of a room type that a message touched, with its cells after the message. */
export interface TouchedNight {
  readonly room_type_id: RoomTypeId
  readonly night: LocalDate
  readonly cells: ChannelCells
  /** Whether `rooms_to_sell` was written: its `booked_since` counts from the new `as_of`. */
  readonly roomsToSellWritten: boolean
}

export interface MessageOutcome {
  readonly nights: ReadonlyArray<TouchedNight>
  readonly applied: number
  readonly stale: number
  /** Nights whose `min_stay` ends above their `max_stay`: the message is refused whole. */
  readonly issues: ReadonlyArray<MessageIssue>
}

/**
 * The (room type, night) rows a message touches, as ranges to lock: per room type, its updates'
 * dates merged where they overlap or meet, so a message of many small updates locks a few ranges.
 */
export const messageRanges = (
  hotel: HotelDefinition,
  message: AriMessage
): ReadonlyArray<{ readonly roomTypeIds: ReadonlyArray<RoomTypeId>; readonly checkin: LocalDate; readonly checkout: LocalDate }> =>
  hotel.room_types.flatMap((room) => {
    const spans = message.updates
      .filter((update) => update.room_type_id === undefined || update.room_type_id === room.id)
      .map((update) => ({ checkin: update.from, checkout: addDays(update.to, 1) }))
      .sort((a, b) => a.checkin < b.checkin ? -1 : a.checkin > b.checkin ? 1 : 0)
    const merged: Array<{ checkin: LocalDate; checkout: LocalDate }> = []
    for (const span of spans) {
      const last = merged[merged.length - 1]
      if (last !== undefined && span.checkin <= last.checkout) {
        if (span.checkout > last.checkout) last.checkout = span.checkout
      } else merged.push({ ...span })
    }
    return merged.map((span) => ({ roomTypeIds: [room.id], ...span }))
  })

/**
 * A checked message applied to the current cells: for each (room type, date, field) it sets, the
 * value with the latest `as_of` wins, an equal one included (so a message repeated under a new id
 * changes nothing, and a later update of the same message wins over an earlier one); an older one
 * is stale and leaves the cell alone. `null` is a value like any other, with its `as_of`.
 * Checked: `messageIssues` found nothing, so its dates lie within the booking window.
 */
export const applyMessage = (
  hotel: HotelDefinition,
  current: NightLookup,
  message: AriMessage
): MessageOutcome => {
  const asOf = Date.parse(message.as_of)
  const types = hotel.room_types.map((room) => room.id)
  const active = message.updates.map((update, index) => ({ update, index, fields: fieldsOf(update) }))
    .filter(({ fields }) => fields.length > 0)
  if (active.length === 0) return { nights: [], applied: 0, stale: 0, issues: [] }
  // A message may cover every field of every room type's every date 1,000 times over (10 million
  // cells): per field, one slot per room type and date holds the last update that set it and how
  // many updates did, written without allocating. Every update shares the message's as_of, so the
  // last one wins and each one is applied or stale as the stored cell's as_of says.
  const first = Math.min(...active.map(({ update }) => toEpochDay(update.from)))
  const span = Math.max(...active.map(({ update }) => toEpochDay(update.to))) - first + 1
  const slots = types.length * span
  const setBy = CHANNEL_FIELDS.map(() => new Int32Array(slots).fill(-1))
  const hits = CHANNEL_FIELDS.map(() => new Int32Array(slots))
  for (const { fields, index, update } of active) {
    const typeIndexes = update.room_type_id === undefined ? types.map((_, t) => t) : [types.indexOf(update.room_type_id)]
    const from = toEpochDay(update.from) - first
    const to = toEpochDay(update.to) - first
    for (const f of fields) {
      for (const t of typeIndexes) {
        for (let day = from; day <= to; day++) {
          setBy[f]![t * span + day] = index
          hits[f]![t * span + day]!++
        }
      }
    }
  }
  const nights: Array<TouchedNight> = []
  const issues: Array<MessageIssue> = []
  let applied = 0
  let stale = 0
  for (let t = 0; t < types.length; t++) {
    for (let day = 0; day < span; day++) {
      const slot = t * span + day
      if (setBy.every((fieldSetBy) => fieldSetBy[slot] === -1)) continue
      const roomTypeId = types[t]!
      const night = fromEpochDay(first + day)
      const stored = current(roomTypeId, night).cells
      const cells: Record<ChannelField, Cell<unknown>> = { ...stored }
      let roomsToSellWritten = false
      CHANNEL_FIELDS.forEach((field, f) => {
        const by = setBy[f]![slot]!
        if (by === -1) return
        const asOfStored = stored[field].as_of
        if (asOfStored !== null && asOfStored > asOf) {
          stale += hits[f]![slot]!
          return
        }
        applied += hits[f]![slot]!
        cells[field] = { value: message.updates[by]![field], as_of: asOf }
        if (field === "rooms_to_sell") roomsToSellWritten = true
      })
      const after = cells as ChannelCells
      nights.push({ room_type_id: roomTypeId, night, cells: after, roomsToSellWritten })
      const min = after.min_stay.value
      const max = after.max_stay.value
      if (min !== null && max !== null && min > max) {
        // named by the update that last set this night's stay bounds
        const index = Math.max(setBy[CHANNEL_FIELDS.indexOf("min_stay")]![slot]!, setBy[CHANNEL_FIELDS.indexOf("max_stay")]![slot]!)
        if (index === -1) continue
        const path = `updates[${index}].${message.updates[index]!.min_stay !== undefined ? "min_stay" : "max_stay"}`
        if (!issues.some((issue) => issue.path === path)) {
          issues.push({ path, message: `${roomTypeId} on ${night} would have min_stay ${min} above max_stay ${max}` })
        }
      }
    }
  }
  return { nights, applied, stale, issues }
}

/** `GET /internal/v1/inventory`'s query. */
export const InventoryQuery = Schema.Struct({
  from: LocalDate,
  to: LocalDate.annotateKey({ description: `Last date, inclusive; at most ${MAX_VIEW_DATES} dates from from` }),
  room_type_id: Schema.optionalKey(RoomTypeId).annotateKey({ description: "Only this room type; absent: every one" })
}).annotate({ identifier: "InventoryQuery" })
export type InventoryQuery = typeof InventoryQuery.Type

export const BaseRateSource = Schema.Literals(["message", "hotel_file"])

export const InventoryNight = Schema.Struct({
  date: LocalDate,
  rooms: Schema.Int.annotate({ description: "The hotel file's count" }),
  booked_here: Schema.Int.annotate({ description: "Rooms this service's completed reservations hold" }),
  rooms_to_sell: Schema.NullOr(Schema.Int).annotate({ description: "The hotel's figure; null: none (the file's count applies)" }),
  rooms_to_sell_as_of: Schema.NullOr(Schema.String).annotate({ description: "When the hotel's system computed it" }),
  rooms_to_sell_reservations_through: Schema.NullOr(FeedCursor).annotate({
    description: "The feed cursor up to which the figure counts this service's reservation changes (its message's " +
      "reservations_through, or an earlier message's); null: none"
  }),
  booked_here_since: Schema.NullOr(Schema.Int).annotate({
    description: "Of booked_here, the rooms the figure does not count: taken by changes after its cursor whose PMS push " +
      "was not acknowledged before it was computed"
  }),
  free: Schema.Int.annotate({ description: "min(rooms - booked_here, rooms_to_sell - booked_here_since), never below 0" }),
  oversold: Schema.Boolean.annotate({ description: "rooms_to_sell is below booked_here_since: sold elsewhere too" }),
  stop_sell: Schema.Boolean,
  closed_to_arrival: Schema.Boolean,
  closed_to_departure: Schema.Boolean,
  min_stay: Schema.NullOr(Schema.Int),
  max_stay: Schema.NullOr(Schema.Int),
  base_rate: describedAmount("The nightly base rate quotes start from"),
  base_rate_source: BaseRateSource
}).annotate({ identifier: "InventoryNight" })
export type InventoryNight = typeof InventoryNight.Type

export const InventoryView = Schema.Struct({
  from: LocalDate,
  to: LocalDate,
  currency: Currency,
  room_types: Schema.Array(Schema.Struct({
    room_type_id: RoomTypeId,
    nights: Schema.Array(InventoryNight)
  }))
}).annotate({ identifier: "InventoryView" })
export type InventoryView = typeof InventoryView.Type

/**
 * An `as_of` as the view answers it, in hotel time, with its milliseconds when it has any: the
 * hotel's system compares it with the instant it sent, and two figures may be a second apart.
 */
const formatAsOf = (asOf: number, timeZone: string): string => {
  const text = formatInstant(new Date(asOf), timeZone)
  const millis = ((asOf % 1000) + 1000) % 1000
  return millis === 0 ? text : `${text.slice(0, 19)}.${String(millis).padStart(3, "0")}${text.slice(19)}`
}

/** One night of the inventory view. */
export const inventoryNight = (
  hotel: HotelDefinition,
  rooms: number,
  night: LocalDate,
  state: NightState,
  fileRate: Cents
): InventoryNight => {
  const { cells } = state
  const asOf = cells.rooms_to_sell.as_of
  return {
    date: night,
    rooms,
    booked_here: state.booked,
    rooms_to_sell: cells.rooms_to_sell.value,
    rooms_to_sell_as_of: asOf === null ? null : formatAsOf(asOf, hotel.timezone),
    rooms_to_sell_reservations_through: state.knowledge?.through?.toString() ?? null,
    booked_here_since: cells.rooms_to_sell.value === null ? null : state.booked_since,
    free: freeRooms(rooms, state),
    oversold: isOversold(state),
    stop_sell: cells.stop_sell.value === true,
    closed_to_arrival: cells.closed_to_arrival.value === true,
    closed_to_departure: cells.closed_to_departure.value === true,
    min_stay: cells.min_stay.value,
    max_stay: cells.max_stay.value,
    base_rate: cells.base_rate.value ?? fileRate,
    base_rate_source: cells.base_rate.value === null ? "hotel_file" : "message"
  }
}
