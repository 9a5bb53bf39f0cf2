import { Clock, Context, Effect, Layer, Option } from "effect"
import {
  type AriAnswer,
  type AriMessage,
  applyMessage,
  type InventoryQuery,
  inventoryNight,
  type InventoryView,
  isOversold,
  MAX_VIEW_DATES,
  messageIssues,
  messageRanges,
  type MessageIssue,
  nightLookup,
  readUntil
} from "../Domain/Channel.js"
import { InvalidMessage, listIssues, ValidationError } from "../Domain/Errors.js"
import type { RoomTypeId } from "../Domain/Ids.js"
import { addDays, daysBetween, type LocalDate, nightsOf } from "../Domain/LocalDate.js"
import { fileBaseRate } from "../Domain/Pricing.js"
import { ChannelMessageRepo } from "../Layers/Persistence/ChannelMessageRepo.js"
import { type HeldRooms, InventoryRepo } from "../Layers/Persistence/InventoryRepo.js"
import { Transactions } from "../Layers/Persistence/Transactions.js"
import { HotelCatalog } from "./HotelCatalog.js"
import * as Tracing from "../Layers/Platform/Tracing.js"

const invalid = (issues: ReadonlyArray<MessageIssue>) =>
  new InvalidMessage({
    message: `the message was not applied: ${listIssues(issues)}`,
    issues
  })

/** The oversold nights a WARN names; the inventory view shows them all. */
const MAX_LOGGED_NIGHTS = 20

/** Rooms taken since, per room type and night. */
const heldLookup = (rows: ReadonlyArray<HeldRooms>) => {
  const counts = new Map(rows.map((row) => [`${row.room_type_id}\u0000${row.night}`, row.rooms]))
  return (roomTypeId: RoomTypeId, night: LocalDate) => counts.get(`${roomTypeId}\u0000${night}`) ?? 0
}

/** The hotel's own systems as a sales channel's source: rooms to sell, restrictions and rates (DESIGN §12). */
export class Channel extends Context.Service<Channel>()("Channel", {
  make: Effect.gen(function*() {
    const catalog = yield* HotelCatalog
    const inventory = yield* InventoryRepo
    const messages = yield* ChannelMessageRepo
    const { atomically } = yield* Transactions

    return {
      /**
       * `POST /internal/v1/ari`: a message applied whole or not at all, in one transaction that locks
       * the rows it touches in the completions' order (room type, then night): it queues with them
       * and never deadlocks with them.
       */
      applyMessage: Tracing.fn("Channel.applyMessage")(function*(message: AriMessage) {
        yield* Tracing.annotate({ "channel.message_id": message.message_id, "channel.updates": message.updates.length })
        const hotel = yield* catalog.definition()
        const now = yield* Clock.currentTimeMillis
        const issues = messageIssues(hotel, yield* catalog.today(hotel), now, message)
        if (issues.length > 0) return yield* invalid(issues)
        const result = yield* atomically(Effect.gen(function*() {
          const known = yield* messages.claim(message.message_id, new Date(now))
          if (Option.isSome(known)) return { answer: known.value, oversold: [] }
          const states = nightLookup(yield* inventory.lockRangesAlone(messageRanges(hotel, message)))
          const outcome = applyMessage(hotel, states, message)
          if (outcome.issues.length > 0) return yield* invalid(outcome.issues)
          // a new figure counts from its as_of the rooms this service took since: the figure cannot know them
          const recounted = outcome.nights.filter((night) => night.roomsToSellWritten)
          const since = recounted.length === 0 ? () => 0 : heldLookup(
            yield* inventory.takenSince(
              new Date(message.as_of),
              recounted.reduce((min, n) => n.night < min ? n.night : min, recounted[0]!.night),
              addDays(recounted.reduce((max, n) => n.night > max ? n.night : max, recounted[0]!.night), 1)
            )
          )
          const written = outcome.nights.map((night) => ({
            room_type_id: night.room_type_id,
            night: night.night,
            cells: night.cells,
            booked_since: night.roomsToSellWritten ? since(night.room_type_id, night.night) : undefined
          }))
          yield* inventory.writeChannel(written)
          const answer: AriAnswer = { message_id: message.message_id, applied: outcome.applied, stale: outcome.stale }
          yield* messages.answer(answer)
          const oversold = written.filter((night) =>
            isOversold({
              booked: states(night.room_type_id, night.night).booked,
              booked_since: night.booked_since ?? states(night.room_type_id, night.night).booked_since,
              cells: night.cells
            })
          )
          return { answer, oversold }
        }))
        const { answer, oversold } = result
        if (oversold.length > 0) {
          // nothing is cancelled: the hotel sold elsewhere what was booked here; the inventory view shows
          // every night, the log the first ones (one line, however many nights a message touched)
          const named = oversold.slice(0, MAX_LOGGED_NIGHTS).map((night) => `${night.room_type_id} ${night.night}`).join(", ")
          yield* Effect.logWarning("channel: the hotel's rooms_to_sell is below what this service booked since its as_of").pipe(
            Effect.annotateLogs({
              "channel.message_id": message.message_id,
              "channel.oversold": oversold.length > MAX_LOGGED_NIGHTS ? `${named} and ${oversold.length - MAX_LOGGED_NIGHTS} more` : named
            })
          )
        }
        yield* Effect.logInfo("channel: message applied").pipe(
          Effect.annotateLogs({ "channel.message_id": message.message_id, applied: answer.applied, stale: answer.stale })
        )
        return answer
      }),

      /** `GET /internal/v1/inventory`: per room type and night, what this service believes it may sell, and why. */
      inventory: Tracing.fn("Channel.inventory")(function*(query: InventoryQuery) {
        const hotel = yield* catalog.definition()
        const dates = daysBetween(query.from, query.to) + 1
        if (dates < 1) return yield* new ValidationError({ code: "invalid_dates", message: "to: must not be before from" })
        if (dates > MAX_VIEW_DATES) {
          return yield* new ValidationError({
            code: "range_too_long",
            message: `to: from to to spans ${dates} dates; the view answers at most ${MAX_VIEW_DATES}`
          })
        }
        const rooms = query.room_type_id === undefined
          ? hotel.room_types
          : hotel.room_types.filter((room) => room.id === query.room_type_id)
        if (rooms.length === 0) {
          return yield* new ValidationError({
            code: "unknown_room_type",
            message: `room_type_id: unknown room type "${query.room_type_id}"; known: ${hotel.room_types.map((r) => r.id).join(", ")}`
          })
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
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(HotelCatalog.layer))
}
