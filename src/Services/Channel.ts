import { Clock, Context, Effect, Layer, Metric, Option } from "effect"
import { unknownRooms } from "../Domain/Channel/BookedSince.js"
import { knowledgeOf } from "../Domain/Channel/Knowledge.js"
import { messageRanges } from "../Domain/Channel/LockPlan.js"
import { applyMessage, type TouchedNight } from "../Domain/Channel/Merge.js"
import { type AriAnswer, type AriMessage, MAX_VIEW_DATES, type MessageIssue } from "../Domain/Channel/Message.js"
import { channelWindow, messageIssues } from "../Domain/Channel/MessageChecks.js"
import { isOversold, nightLookup, readUntil } from "../Domain/Channel/Nights.js"
import { type InventoryQuery, inventoryNight, type InventoryView } from "../Domain/Channel/View.js"
import { invalidDates, InvalidMessage, listIssues, MessageIdReused, rangeTooLong, unknownRoomType } from "../Domain/Errors.js"
import { addDays, daysBetween, nightsOf } from "../Domain/LocalDate.js"
import { fileBaseRate } from "../Domain/Pricing.js"
import { ChannelMessageRepo } from "../Layers/Persistence/ChannelMessageRepo.js"
import { InventoryRepo } from "../Layers/Persistence/InventoryRepo.js"
import { ReservationFeedRepo } from "../Layers/Persistence/ReservationFeedRepo.js"
import { ReservationRepo } from "../Layers/Persistence/ReservationRepo.js"
import { Transactions } from "../Layers/Persistence/Transactions.js"
import { ChannelSilence } from "./ChannelSilence.js"
import { HotelCatalog } from "./HotelCatalog.js"
import { bodyHash } from "./Idempotency.js"
import * as Metrics from "../Layers/Platform/Metrics.js"
import * as Tracing from "../Layers/Platform/Tracing.js"

/** A message refused (400, 422) counts in the metrics too. */
const countingRefusals = <A, E, R>(apply: (message: AriMessage) => Effect.Effect<A, E, R>) => (message: AriMessage) =>
  apply(message).pipe(Effect.tapError(() => Metric.update(Metrics.channelMessages({ outcome: "refused" }), 1)))

const invalid = (issues: ReadonlyArray<MessageIssue>) =>
  new InvalidMessage({
    message: `the message was not applied: ${listIssues(issues)}`,
    issues
  })

/** The oversold nights a WARN names; the inventory view shows them all. */
const MAX_LOGGED_NIGHTS = 20

/** The hotel's own systems as a sales channel's source: rooms to sell, restrictions and rates (docs/decisions.md#channel). */
export class Channel extends Context.Service<Channel>()("Channel", {
  make: Effect.gen(function*() {
    const catalog = yield* HotelCatalog
    const inventory = yield* InventoryRepo
    const messages = yield* ChannelMessageRepo
    const silence = yield* ChannelSilence
    const reservations = yield* ReservationRepo
    const feed = yield* ReservationFeedRepo
    const { atomically } = yield* Transactions

    /**
     * What the nights whose `rooms_to_sell` a message wrote hold back from its figure: the rooms of
     * this service's reservations that the changes it counts do not show (docs/decisions.md#what-may-be-sold).
     */
    const recount = Effect.fnUntraced(function*(message: AriMessage, arrivedAt: number, nights: ReadonlyArray<TouchedNight>) {
      if (nights.length === 0) return () => undefined
      const knowledge = knowledgeOf(
        message,
        arrivedAt,
        message.reservations_through === undefined ? yield* messages.watermark(new Date(message.as_of)) : null
      )
      const from = nights.reduce((min, n) => n.night < min ? n.night : min, nights[0]!.night)
      const until = addDays(nights.reduce((max, n) => n.night > max ? n.night : max, nights[0]!.night), 1)
      const current = yield* reservations.holdsBetween(from, until)
      const unknown = unknownRooms(current, yield* feed.countedStates(knowledge, [...new Set(current.map((hold) => hold.reservation_id))]))
      return (night: TouchedNight) => ({ knowledge, booked_since: unknown(night.room_type_id, night.night) })
    })

    return {
      /**
       * `POST /internal/v1/ari`: a message applied whole or not at all, in one transaction that locks
       * the rows it touches in the completions' order (room type, then night): it queues with them
       * and never deadlocks with them.
       */
      applyMessage: countingRefusals(Tracing.fn("Channel.applyMessage")(function*(message: AriMessage) {
        yield* Tracing.annotate({ "channel.message_id": message.message_id, "channel.updates": message.updates.length })
        const hotel = yield* catalog.definition()
        const now = yield* Clock.currentTimeMillis
        const issues = messageIssues(hotel, yield* catalog.today(hotel), now, message)
        if (issues.length > 0) return yield* invalid(issues)
        const through = message.reservations_through === undefined ? null : BigInt(message.reservations_through)
        const body = bodyHash(message)
        const result = yield* atomically(Effect.gen(function*() {
          const known = yield* messages.claim({
            message_id: message.message_id,
            body_hash: body,
            as_of: new Date(message.as_of),
            reservations_through: through,
            received_at: new Date(now)
          })
          if (Option.isSome(known)) {
            // applied before bodies were kept (no hash): answered as the same message
            if (known.value.body_hash !== null && known.value.body_hash !== body) {
              return yield* new MessageIdReused({
                message: `message_id "${message.message_id}" was already used by a message with another body: nothing ` +
                  "was applied; a new message takes a new message_id",
                message_id: message.message_id
              })
            }
            return { answer: known.value.answer, oversold: [] }
          }
          const states = nightLookup(yield* inventory.lockRangesAlone(messageRanges(hotel, message)))
          // behind the exclusive lock no reservation change is under way: the feed's last cursor is final
          const last = through === null ? 0n : yield* feed.lastCursor
          if (through !== null && through > last) {
            return yield* invalid([{
              path: "reservations_through",
              message: `${through} is past the feed's last change (${last}): send a cursor GET /internal/v1/reservations answered`
            }])
          }
          const outcome = applyMessage(hotel, states, message)
          if (outcome.issues.length > 0) return yield* invalid(outcome.issues)
          const recounted = yield* recount(message, now, outcome.nights.filter((night) => night.roomsToSellWritten))
          const written = outcome.nights.map((night) => ({
            room_type_id: night.room_type_id,
            night: night.night,
            cells: night.cells,
            recount: night.roomsToSellWritten ? recounted(night) : undefined
          }))
          yield* inventory.writeChannel(written)
          const answer: AriAnswer = { message_id: message.message_id, applied: outcome.applied, stale: outcome.stale }
          yield* messages.answer(answer)
          const oversold = written.filter((night) => {
            const state = states(night.room_type_id, night.night)
            return isOversold({ ...state, ...night.recount, cells: night.cells })
          })
          return { answer, oversold }
        }))
        const { answer, oversold } = result
        if (oversold.length > 0) {
          // nothing is cancelled: the hotel sold elsewhere what was booked here; the inventory view shows
          // every night, the log the first ones (one line, however many nights a message touched)
          const named = oversold.slice(0, MAX_LOGGED_NIGHTS).map((night) => `${night.room_type_id} ${night.night}`).join(", ")
          yield* Effect.logWarning("channel: the hotel's rooms_to_sell is below the rooms this service took that it does not count").pipe(
            Effect.annotateLogs({
              "channel.message_id": message.message_id,
              "channel.oversold": oversold.length > MAX_LOGGED_NIGHTS ? `${named} and ${oversold.length - MAX_LOGGED_NIGHTS} more` : named
            })
          )
        }
        yield* silence.heard(new Date(now))
        yield* Effect.all([
          Metric.update(Metrics.channelMessages({ outcome: answer.applied === 0 && answer.stale > 0 ? "stale" : "applied" }), 1),
          Metric.update(Metrics.channelOversoldNights({}), oversold.length)
        ])
        yield* Effect.logInfo("channel: message applied").pipe(
          Effect.annotateLogs({ "channel.message_id": message.message_id, applied: answer.applied, stale: answer.stale })
        )
        return answer
      })),

      /** `GET /internal/v1/inventory`: per room type and night, what this service believes it may sell, and why. */
      inventory: Tracing.fn("Channel.inventory")(function*(query: InventoryQuery) {
        const hotel = yield* catalog.definition()
        // a date outside the window is refused before it reaches the database (0000-01-01 is none of PostgreSQL's)
        const { first, last } = channelWindow(hotel, yield* catalog.today(hotel))
        if (query.from < first || query.to > last) {
          return yield* invalidDates(query.from < first
              ? `from: must not be before ${first} (yesterday in hotel time)`
              : `to: must not be after ${last} (the booking window, ${hotel.booking.max_days_ahead} days ahead)`)
        }
        const dates = daysBetween(query.from, query.to) + 1
        if (dates < 1) return yield* invalidDates("to: must not be before from")
        if (dates > MAX_VIEW_DATES) {
          return yield* rangeTooLong(`to: from to to spans ${dates} dates; the view answers at most ${MAX_VIEW_DATES}`)
        }
        const rooms = query.room_type_id === undefined
          ? hotel.room_types
          : hotel.room_types.filter((room) => room.id === query.room_type_id)
        if (rooms.length === 0) {
          return yield* unknownRoomType(`room_type_id: unknown room type "${query.room_type_id}"; known: ${hotel.room_types.map((r) => r.id).join(", ")}`)
        }
        const nights = nightLookup(yield* inventory.nightsBetween(query.from, readUntil(query.to)))
        const view: InventoryView = {
          from: query.from,
          to: query.to,
          currency: hotel.currency,
          room_types: rooms.map((room) => ({
            room_type_id: room.id,
            nights: nightsOf(query.from, readUntil(query.to)).map((night) =>
              inventoryNight(hotel, room.inventory, night, nights(room.id, night), fileBaseRate(hotel, room, night))
            )
          }))
        }
        return view
      })
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([HotelCatalog.layer, ChannelSilence.layer]))
}
