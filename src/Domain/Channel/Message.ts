import { Schema } from "effect"
import { rule, wireExamples } from "../Documentation.js"
import type { MessageIssue as MessageIssueSchema } from "../Errors.js"
import { FeedCursor, RoomTypeId } from "../Ids.js"
import { isCalendarDate, LocalDate } from "../LocalDate.js"
import { Amount, type Cents } from "../Money.js"
import { Text } from "../Text.js"

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

/**
 * The fields a message sets per room type and date, each with its schema on the wire, in the order
 * the update, the answer and the view list them; `null` clears a field. A new field is one more
 * line here: the cells, the merge and the store follow this list.
 */
export const channelFieldSchemas = {
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
}
export type ChannelField = keyof typeof channelFieldSchemas
/** The fields, in `channelFieldSchemas`' order. */
export const CHANNEL_FIELDS = Object.keys(channelFieldSchemas) as ReadonlyArray<ChannelField>

/** One update: a range of dates of one room type (or of all), with the fields it sets; `null` clears a field. */
export const AriUpdate = Schema.Struct({
  room_type_id: Schema.optionalKey(RoomTypeId).annotateKey({ description: "The room type; absent: every room type" }),
  from: LocalDate.annotateKey({ description: "First date (not before yesterday in hotel time)" }),
  to: LocalDate.annotateKey({ description: `Last date, inclusive; at most ${MAX_UPDATE_DATES} dates from from` }),
  ...channelFieldSchemas
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
