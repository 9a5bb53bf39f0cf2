import { Clock, Context, Effect, Layer, Metric, Option } from "effect"
import {
  AlreadyCancelled,
  CancellationNotAllowed,
  ChangeNotAllowed,
  InvalidToken,
  PriceChanged,
  RateLimited
} from "../Domain/Errors.js"
import { cancellationRefusal } from "../Domain/CancellationPolicy.js"
import { confirmationPdfFilename } from "../Domain/GuestEmails.js"
import type { ReservationId } from "../Domain/Ids.js"
import {
  applyGuestUpdate,
  type GuestUpdate,
  GUEST_UPDATES_PER_HOUR,
  guestUpdateWait,
  guestUpdateWindowStart,
  type ManageRequest,
  manageUrl,
  manageView,
  RESEND_INTERVAL_MS
} from "../Domain/Management.js"
import { afterChanges, type CountedStates, givenBackBy, holdsOf, roomsByType, stayChanges } from "../Domain/Channel/BookedSince.js"
import { type Knowledge, knowledgeKey } from "../Domain/Channel/Knowledge.js"
import { nightLookup, readUntil, type StoredNight } from "../Domain/Channel/Nights.js"
import { isCompleted } from "../Domain/CompletedReservation.js"
import type { HotelDefinition } from "../Domain/Hotel.js"
import { manageLinkExpiry } from "../Domain/Lifetimes.js"
import { pmsStatusAfterChange } from "../Domain/Pms.js"
import type { ReservationRecord } from "../Domain/Reservation.js"
import { roomNights } from "../Domain/BookingLimits.js"
import {
  changedRecord,
  changeLines,
  changeQuote,
  type ChangeStayAction,
  isCurrentStay,
  nightsChanges,
  priceChange,
  type QuoteChangeAction,
  withoutOwnRooms
} from "../Domain/StayChange.js"
import { validateStay } from "../Domain/Stay.js"
import { changeRefusal } from "../Domain/StayChangePolicy.js"
import { InventoryRepo } from "../Layers/Persistence/InventoryRepo.js"
import { OutboxRepo } from "../Layers/Persistence/OutboxRepo.js"
import { ReservationFeedRepo } from "../Layers/Persistence/ReservationFeedRepo.js"
import { ReservationRepo } from "../Layers/Persistence/ReservationRepo.js"
import * as Metrics from "../Layers/Platform/Metrics.js"
import * as Tracing from "../Layers/Platform/Tracing.js"
import { Transactions } from "../Layers/Persistence/Transactions.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"
import { Documents } from "./Documents.js"
import { HotelCatalog } from "./HotelCatalog.js"
import { ReservationFeed } from "./ReservationFeed.js"
import { AddressLimits } from "./AddressLimits.js"
import { Tokens } from "./Tokens.js"
import { ChannelSilence } from "./ChannelSilence.js"

const cancelled = (r: ReservationRecord) =>
  new AlreadyCancelled({ message: `reservation ${r.number} is cancelled: nothing more can change; contact the hotel` })

/** What a manage action can fail with. */
export type ManageFailure = Effect.Error<ReturnType<ReservationManagement["Service"]["act"] | ReservationManagement["Service"]["quoteChange"]>>

/** A completed reservation, managed by its guest through the manage link (endpoints 12 to 14). */
export class ReservationManagement extends Context.Service<ReservationManagement>()("ReservationManagement", {
  make: Effect.gen(function*() {
    const config = yield* AppConfig
    const catalog = yield* HotelCatalog
    const silence = yield* ChannelSilence
    const tokens = yield* Tokens
    const documents = yield* Documents
    const repo = yield* ReservationRepo
    const inventory = yield* InventoryRepo
    const outbox = yield* OutboxRepo
    const feed = yield* ReservationFeed
    const feedRepo = yield* ReservationFeedRepo
    const addressLimits = yield* AddressLimits
    const { atomically } = yield* Transactions

    const reservationOf = Tracing.fn("ReservationManagement.reservationOf")(function*(token: string) {
      const verified = yield* tokens.verify(token, "manage")
      if (verified.expired) return yield* new InvalidToken({ message: "this manage link has expired: contact the hotel" })
      return verified.reservationId
    })

    const viewOn = (hotel: HotelDefinition, id: ReservationId) =>
      Effect.gen(function*() {
        const reservation = yield* repo.find(id).pipe(Effect.map(Option.getOrThrow))
        return manageView(hotel, reservation, yield* Clock.currentTimeMillis)
      })
    const view = (id: ReservationId) => Effect.flatMap(catalog.definition(), (hotel) => viewOn(hotel, id))

    /** Inside a transaction: the reservation, locked, while it is still completed. */
    const lockActive = (id: ReservationId) =>
      Effect.gen(function*() {
        const reservation = yield* repo.findForUpdate(id).pipe(Effect.map(Option.getOrThrow))
        return reservation.status === "CANCELLED" ? yield* cancelled(reservation) : reservation
      })

    const updateGuest = Tracing.fn("ReservationManagement.updateGuest")(function*(id: ReservationId, update: GuestUpdate) {
      yield* atomically(Effect.gen(function*() {
        // the row lock serialises two updates of one reservation: only one passes the limit
        const reservation = yield* lockActive(id)
        const now = yield* Clock.currentTimeMillis
        // every update queues one guest_update_email: those jobs are the count
        const recent = yield* outbox.enqueuedSince(id, "guest_update_email", new Date(guestUpdateWindowStart(now)))
        const wait = guestUpdateWait(recent.map((at) => at.getTime()), now)
        if (Option.isSome(wait)) {
          return yield* new RateLimited({
            message: `the guest's details of this reservation were changed ${recent.length} times in the last hour, the most ` +
              `the hotel takes (${GUEST_UPDATES_PER_HOUR}): retry in ${wait.value} s`,
            retry_after_seconds: wait.value
          })
        }
        yield* repo.updateGuest(id, applyGuestUpdate(reservation.guest!, update))
        yield* outbox.enqueue([{ kind: "guest_update_email", reservation_id: id }, { kind: "pms_push", reservation_id: id }])
        yield* feed.record(id, "guest_updated")
      }))
    })

    /** What `booked_since` gets back when the reservation, as it stands, gives back rooms on nights it locked (`givenBackBy`). */
    const givenBackOn = Effect.fnUntraced(function*(reservation: ReservationRecord, locked: ReadonlyArray<StoredNight>) {
      const knowledges = new Map<string, Knowledge>()
      for (const row of locked) if (row.knowledge !== null) knowledges.set(knowledgeKey(row.knowledge), row.knowledge)
      const counted = new Map<string, CountedStates | undefined>()
      for (const [key, knowledge] of knowledges) {
        counted.set(key, (yield* feedRepo.countedStates(knowledge, [reservation.id])).get(reservation.id))
      }
      const held = holdsOf(reservation.id, reservation.rooms, reservation.checkin, reservation.checkout)
      return givenBackBy(held, nightLookup(locked), (knowledge) => counted.get(knowledgeKey(knowledge)))
    })

    /** The rooms go back to the inventory in the transaction that cancels: never twice, never lost. */
    const cancel = Tracing.fn("ReservationManagement.cancel")(function*(id: ReservationId) {
      yield* atomically(Effect.gen(function*() {
        const reservation = yield* lockActive(id)
        const now = yield* Clock.currentTimeMillis
        const refusal = cancellationRefusal(reservation, now)
        if (Option.isSome(refusal)) {
          return yield* new CancellationNotAllowed({
            ...refusal.value,
            refundable: reservation.offer.refundable,
            free_cancellation_until: reservation.offer.free_cancellation_until
          })
        }
        const { checkin, checkout } = reservation
        // the same lock order as completions (room type, then night): the two never deadlock
        const locked = yield* inventory.lockNights([...roomsByType(reservation.rooms).keys()], checkin, checkout)
        const back = yield* givenBackOn(reservation, locked)
        yield* inventory.writeBookings(afterChanges(locked, stayChanges(reservation.rooms, checkin, checkout, -1), back))
        yield* repo.cancel(id, new Date(now).toISOString(), pmsStatusAfterChange(reservation.pms_status))
        yield* outbox.enqueue([{ kind: "cancellation_email", reservation_id: id }, { kind: "pms_cancel", reservation_id: id }])
        yield* feed.record(id, "cancelled")
      }))
      yield* Metric.update(Metrics.cancellations({}), 1)
    })

    /** Refused as StayChangePolicy says (409 change_not_allowed with its reason). */
    const checkChangeAllowed = (reservation: ReservationRecord) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Option.match(changeRefusal(reservation, now), {
          onNone: () => Effect.void,
          onSome: (refusal) => Effect.fail(new ChangeNotAllowed(refusal))
        }))

    /** The request's new stay and rooms, checked as a quote checks them (400 otherwise). */
    const requestedStay = (hotel: HotelDefinition, reservation: ReservationRecord, request: QuoteChangeAction | ChangeStayAction) =>
      Effect.gen(function*() {
        const stay = yield* Effect.fromResult(validateStay(hotel, yield* catalog.today(hotel), request.checkin, request.checkout))
        const lines = yield* Effect.fromResult(changeLines(hotel, reservation, request.rooms))
        return { stay, lines }
      })

    /** What the change would cost, on live bookings; nothing is written. */
    const quoteChange = Tracing.fn("ReservationManagement.quoteChange")(function*(id: ReservationId, request: QuoteChangeAction) {
      const hotel = yield* catalog.definition()
      const reservation = yield* repo.find(id).pipe(Effect.map(Option.getOrThrow))
      yield* checkChangeAllowed(reservation)
      const { lines, stay } = yield* requestedStay(hotel, reservation, request)
      // change_stay would change nothing (the same change sent again): the stay as it was paid, not re-priced
      if (isCurrentStay(reservation, stay, lines)) return changeQuote(hotel, reservation, reservation)
      const nights = yield* silence.sellable(withoutOwnRooms(yield* inventory.nights(stay.checkin, readUntil(stay.checkout)), reservation))
      const priced = yield* Effect.fromResult(priceChange(hotel, reservation, stay, lines, nights))
      return changeQuote(hotel, reservation, changedRecord(reservation, stay, priced))
    })

    /**
     * The old nights given back and the new ones taken in one transaction, under the locks of the
     * union of both, in the order completions and cancellations take them: it never deadlocks with
     * them, never overbooks, and never leaves the guest without rooms half-way.
     */
    const changeStay = Tracing.fn("ReservationManagement.changeStay")(function*(
      id: ReservationId,
      request: ChangeStayAction,
      clientAddress: string
    ) {
      const hotel = yield* catalog.definition()
      const changed = yield* atomically(Effect.gen(function*() {
        // first, before any row lock, as a completion: what the address booked is counted one booking at a time
        const recent = yield* addressLimits.lock(clientAddress, yield* Clock.currentTimeMillis)
        const reservation = yield* repo.findForUpdate(id).pipe(Effect.map(Option.getOrThrow))
        const { lines, stay } = yield* requestedStay(hotel, reservation, request)
        // the same change sent again: it was made, nothing more to take or to tell
        if (reservation.status === "GUEST_COMPLETED" && isCurrentStay(reservation, stay, lines)) return false
        yield* checkChangeAllowed(reservation)
        const held = roomsByType(reservation.rooms)
        const wanted = roomsByType(lines)
        const locked = yield* inventory.lockRanges([
          { roomTypeIds: [...held.keys()], checkin: reservation.checkin, checkout: reservation.checkout },
          // the new check-out date's row too: closed to departure is said there
          { roomTypeIds: [...wanted.keys()], checkin: stay.checkin, checkout: readUntil(stay.checkout) }
        ])
        const priced = yield* Effect.fromResult(priceChange(hotel, reservation, stay, lines, yield* silence.sellable(withoutOwnRooms(locked, reservation))))
        const total = priced.offer.price.total
        if (total !== request.expected_total) {
          const amount = (c: number) => (c / 100).toFixed(2)
          return yield* new PriceChanged({
            message: `the new stay costs ${amount(total)} ${hotel.currency}, not ${amount(request.expected_total)}: ` +
              `send change_stay again with expected_total ${amount(total)} to accept it; the reservation is unchanged`,
            previous_total: request.expected_total,
            new_total: total,
            currency: hotel.currency,
            rooms: priced.rooms.map(({ room_index, room_type_id }) => ({ room_index, room_type_id, reason: "price_changed" }))
          })
        }
        // the room-nights it adds count against the address's limits as a completion's do; one that
        // adds none takes nothing the address had not booked already
        const added = roomNights(lines, stay.checkin, stay.checkout) -
          roomNights(reservation.rooms, reservation.checkin, reservation.checkout)
        const booking = added > 0 ? { id, address: clientAddress, roomNights: added, at: yield* Clock.currentTimeMillis } : undefined
        if (booking !== undefined) yield* addressLimits.check(hotel, recent, booking)
        const back = yield* givenBackOn(reservation, locked)
        yield* inventory.writeBookings(afterChanges(locked, nightsChanges(reservation, stay, lines), back))
        yield* repo.changeStay(id, {
          checkin: stay.checkin,
          checkout: stay.checkout,
          rooms: priced.rooms,
          offer: priced.offer,
          line_totals: priced.line_totals,
          promo_code: priced.promo_code,
          pms_status: pmsStatusAfterChange(reservation.pms_status)
        })
        if (booking !== undefined) yield* addressLimits.record(booking)
        // the same manage link, working as long after the new check-out as after the old one
        yield* tokens.setExpiry(id, "manage", new Date(manageLinkExpiry(hotel, stay.checkout)))
        yield* outbox.enqueue([{ kind: "stay_change_email", reservation_id: id }, { kind: "pms_push", reservation_id: id }])
        yield* feed.record(id, "stay_changed")
        return true
      }))
      if (changed) yield* Metric.update(Metrics.stayChanges({}), 1)
    })

    const resendConfirmation = Tracing.fn("ReservationManagement.resendConfirmation")(function*(id: ReservationId) {
      yield* atomically(Effect.gen(function*() {
        // the row lock serialises two resends of one reservation: only one passes the limit
        yield* lockActive(id)
        const now = yield* Clock.currentTimeMillis
        const last = yield* outbox.lastEnqueuedAt(id, "confirmation_email")
        const nextAllowed = Option.map(last, (at) => at.getTime() + RESEND_INTERVAL_MS)
        if (Option.isSome(nextAllowed) && now < nextAllowed.value) {
          return yield* new RateLimited({
            message: `a confirmation email was sent at ${last.pipe(Option.getOrThrow).toISOString()}: ` +
              `ask again after ${new Date(nextAllowed.value).toISOString()}`,
            retry_after_seconds: Math.ceil((nextAllowed.value - now) / 1000)
          })
        }
        yield* outbox.enqueue([{ kind: "confirmation_email", reservation_id: id }])
      }))
    })

    return {
      /** GET /v1/reservation-manage: the reservation, its policies and what the guest may do now. */
      view: Tracing.fn("ReservationManagement.view")(function*(token: string) {
        return yield* view(yield* reservationOf(token))
      }),
      /** POST /v1/reservation-manage: one action, then the reservation as it now is. */
      act: Tracing.fn("ReservationManagement.act")(function*(
        token: string,
        request: Exclude<ManageRequest, QuoteChangeAction>,
        clientAddress: string
      ) {
        const id = yield* reservationOf(token)
        yield* Tracing.annotate({ "reservation.id": id, "manage.action": request.action })
        switch (request.action) {
          case "change_stay":
            yield* changeStay(id, request, clientAddress)
            break
          case "update_guest":
            yield* updateGuest(id, request)
            break
          case "cancel":
            yield* cancel(id)
            break
          case "resend_confirmation":
            yield* resendConfirmation(id)
        }
        return yield* view(id)
      }),
      /** POST /v1/reservation-manage, quote_change: the reservation as the change would make it, and the difference. */
      quoteChange: Tracing.fn("ReservationManagement.quoteChangeByToken")(function*(token: string, request: QuoteChangeAction) {
        const id = yield* reservationOf(token)
        yield* Tracing.annotate({ "reservation.id": id, "manage.action": request.action })
        return yield* quoteChange(id, request)
      }),
      /** GET /v1/reservation-document: the confirmation PDF in the reservation's language. */
      document: Tracing.fn("ReservationManagement.document")(function*(token: string) {
        const id = yield* reservationOf(token)
        const hotel = yield* catalog.definition()
        const reservation = yield* viewOn(hotel, id)
        if (reservation.status === "CANCELLED" || !isCompleted(reservation)) {
          return yield* new AlreadyCancelled({ message: `reservation ${reservation.reservation_number} is cancelled: it has no confirmation` })
        }
        const content = yield* documents.confirmationPdf(hotel, reservation, manageUrl(config.publicBaseUrl, token))
        return { filename: confirmationPdfFilename(reservation), content }
      })
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([HotelCatalog.layer, Tokens.layer, Documents.layer, ReservationFeed.layer, AddressLimits.layer, ChannelSilence.layer])
  )
}
