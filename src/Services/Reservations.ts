import { Clock, Context, Effect, Layer, Metric, Option, Result } from "effect"
import {
  groupBooking,
  groupBookingMessage,
  intentHourStart,
  intentRefusal,
  roomNights
} from "../Domain/BookingLimits.js"
import {
  AvailabilityChanged,
  GroupBookingRequired,
  invalidRequest,
  InvalidToken,
  PriceChanged,
  QuoteNotReservable,
  RateLimited,
  ReservationNotPending
} from "../Domain/Errors.js"
import type { HotelDefinition, PromoCodeDefinition } from "../Domain/Hotel.js"
import type { ReservationId } from "../Domain/Ids.js"
import { guestLinkExpiry, manageLinkExpiry } from "../Domain/Lifetimes.js"
import { formatInstant } from "../Domain/LocalDate.js"
import { afterChanges, roomsByType, stayChanges } from "../Domain/Channel/BookedSince.js"
import { nightLookup, readUntil } from "../Domain/Channel/Nights.js"
import { lineTotals, priceStay, roomsNotToBeHad } from "../Domain/Pricing.js"
import type { ClientInfo } from "../Domain/Quote.js"
import type { Cents } from "../Domain/Money.js"
import type {
  ChangedRoom,
  CompletionRequest,
  CompletionResponse,
  GuestDetails,
  IntentRequest,
  IntentResponse,
  ReservationRecord
} from "../Domain/Reservation.js"
import { changedRoom, WORKFLOW_VERSION } from "../Domain/Reservation.js"
import { RESERVATION_NUMBER_RANDOM_BYTES, reservationNumber } from "../Domain/ReservationNumber.js"
import { completionMessage, publicReservation, reservedPromoCode } from "../Domain/ReservationViews.js"
import { appliedPromoCode, promoCodeOfOffer } from "../Domain/PromoCodes.js"
import { validateStay } from "../Domain/Stay.js"
import { InventoryRepo } from "../Layers/Persistence/InventoryRepo.js"
import { OutboxRepo } from "../Layers/Persistence/OutboxRepo.js"
import { type Completion, ReservationRepo } from "../Layers/Persistence/ReservationRepo.js"
import { Transactions } from "../Layers/Persistence/Transactions.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"
import { randomBytes, randomId } from "../Layers/Platform/RandomId.js"
import { AddressLimits, type Booking } from "./AddressLimits.js"
import { HotelCatalog } from "./HotelCatalog.js"
import { PromoCodes } from "./PromoCodes.js"
import { Idempotency } from "./Idempotency.js"
import { Quotes } from "./Quotes.js"
import { ReservationFeed } from "./ReservationFeed.js"
import { Tokens } from "./Tokens.js"
import * as Metrics from "../Layers/Platform/Metrics.js"
import * as Tracing from "../Layers/Platform/Tracing.js"
import { ChannelSilence } from "./ChannelSilence.js"

const newReservationId = Effect.sync(() => randomId("r_") as ReservationId)

/** Reservation intents from live quotes, and their completion by the guest. */
export class Reservations extends Context.Service<Reservations>()("Reservations", {
  make: Effect.gen(function*() {
    const config = yield* AppConfig
    const addressLimits = yield* AddressLimits
    const catalog = yield* HotelCatalog
    const quotes = yield* Quotes
    const tokens = yield* Tokens
    const idempotency = yield* Idempotency
    const inventory = yield* InventoryRepo
    const repo = yield* ReservationRepo
    const outbox = yield* OutboxRepo
    const promoCodes = yield* PromoCodes
    const silence = yield* ChannelSilence
    const feed = yield* ReservationFeed
    const { atomically } = yield* Transactions

    const load = (id: ReservationId) =>
      repo.find(id).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.die(new Error(`reservation ${id} has a token but no record`)),
          onSome: Effect.succeed
        }))
      )

    /** The reservation behind a guest link; a lapsed link expires its pending reservation. */
    const byGuestToken = Tracing.fn("Reservations.byGuestToken")(function*(token: string) {
      const verified = yield* tokens.verify(token, "guest")
      const reservation = yield* load(verified.reservationId)
      if (verified.expired || reservation.status === "EXPIRED") {
        yield* repo.markExpired(reservation.id)
        return yield* new InvalidToken({ message: "this guest link has expired: ask for a new quote and reservation" })
      }
      return reservation
    })

    /** The intent's answer, the same for the first request and every idempotent replay. */
    const intentResponse = Tracing.fn("Reservations.intentResponse")(function*(id: ReservationId) {
      const reservation = yield* load(id)
      const hotel = yield* catalog.definition()
      const token = yield* tokens.reveal(id, "guest").pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.die(`no guest token for ${id}`), onSome: Effect.succeed }))
      )
      const response: IntentResponse = {
        reservation_id: id,
        status: "PENDING_GUEST",
        continue_url: `${config.publicBaseUrl}/complete#token=${token}`,
        expires_at: formatInstant(new Date(reservation.guest_link_expires_at), hotel.timezone),
        language: reservation.language,
        payment_required: false,
        workflow: WORKFLOW_VERSION,
        message: "Reservation initiated, not yet completed: present continue_url to the guest as a clickable link. " +
          "The guest reviews it, gives contact details and accepts the terms there; only then is it GUEST_COMPLETED."
      }
      return response
    })

    /**
     * INTENT_LIMIT_PER_HOUR: this intent counted for its client address, in its transaction (a
     * refused or failed intent counts nothing, and an idempotent replay makes none), or refused.
     */
    const countIntent = (clientAddress: string, now: number) =>
      config.intentLimitPerHour === 0 ? Effect.void : Effect.flatMap(
        repo.countIntentFrom(clientAddress, new Date(intentHourStart(now)), config.intentLimitPerHour),
        (counted) => counted ? Effect.void : Effect.fail(new RateLimited(intentRefusal(config.intentLimitPerHour, now)))
      )

    const createIntent = Tracing.fn("Reservations.createIntent")(function*(
      request: IntentRequest,
      client: ClientInfo,
      clientAddress: string,
      remember: (id: ReservationId) => Effect.Effect<void>
    ) {
      const { response: quote } = yield* quotes.findValid(request.quote_id)
      const hotel = yield* catalog.definition()
      const group = groupBooking(hotel, quote.rooms)
      if (Option.isSome(group)) {
        return yield* new GroupBookingRequired({
          message: `quote ${quote.quote_id} cannot be reserved: ${groupBookingMessage(group.value)}`,
          quote_id: quote.quote_id,
          ...group.value
        })
      }
      const notReservable = (why: string) =>
        new QuoteNotReservable({ message: `quote ${quote.quote_id} cannot be reserved: ${why}`, quote_id: quote.quote_id })
      if (quote.status !== "available") return yield* notReservable("it has no offers; quote again")
      const offer = quote.package_offers.find((o) => o.package_code === request.package_code)
      if (offer === undefined) {
        return yield* notReservable(
          `it has no package ${request.package_code}; its packages are ${quote.package_offers.map((o) => o.package_code).join(", ")}`
        )
      }
      const nights = yield* silence.sellable(nightLookup(yield* inventory.nights(quote.stay.checkin, readUntil(quote.stay.checkout))))
      const [lost] = roomsNotToBeHad({ hotel, nights, rooms: quote.rooms, stay: quote.stay })
      if (lost !== undefined) return yield* notReservable(`${lost.message}; quote again`)
      const now = yield* Clock.currentTimeMillis
      const linkExpires = guestLinkExpiry(hotel, now, quote.stay.checkin)
      const stay = validateStay(hotel, yield* catalog.today(hotel), quote.stay.checkin, quote.stay.checkout)
      if (linkExpires <= now || Result.isFailure(stay)) return yield* notReservable("check-in time has passed")
      // only a code the chosen offer applies: a code that did not fit this package is no use of it
      const promoCode = promoCodeOfOffer(hotel, offer) ?? null
      const id = yield* newReservationId
      const record: ReservationRecord = {
        id,
        number: null,
        status: "PENDING_GUEST",
        pms_status: null,
        language: request.language,
        quote_id: quote.quote_id,
        checkin: quote.stay.checkin,
        checkout: quote.stay.checkout,
        rooms: quote.rooms,
        offer,
        // each room's share as completion will price it: with the code
        line_totals: lineTotals({
          hotel,
          stay: stay.success,
          rooms: quote.rooms,
          nights,
          promoCode
        }, offer.rate_code),
        guest: null,
        terms_version: null,
        client,
        promo_code: appliedPromoCode(hotel, offer),
        guest_link_expires_at: new Date(linkExpires).toISOString(),
        created_at: new Date(now).toISOString(),
        completed_at: null
      }
      yield* atomically(
        Effect.all([countIntent(clientAddress, now), repo.insert(record), tokens.issue(id, "guest", new Date(linkExpires)), remember(id)], {
          discard: true
        })
      )
      yield* Metric.update(Metrics.intents({}), 1)
      yield* Tracing.annotate({ "reservation.id": id, "quote.id": quote.quote_id })
      return id
    })

    const completionResponse = (hotel: HotelDefinition, reservation: ReservationRecord): CompletionResponse => ({
      reservation_id: reservation.id,
      reservation_number: reservation.number!,
      status: "GUEST_COMPLETED",
      pms_status: reservation.pms_status ?? "PENDING",
      price: reservation.offer.price,
      promo_code: reservedPromoCode(hotel, reservation),
      message: completionMessage(reservation.language)
    })

    /** Re-prices the stay on the locked nights; the offer of the reservation's plan, or why it cannot be had. */
    const revalidate = Tracing.fn("Reservations.revalidate")(function*(
      reservation: ReservationRecord,
      expectedTotal: Cents,
      promoCode: PromoCodeDefinition | null
    ) {
      const hotel = yield* catalog.definition()
      const roomTypes = [...roomsByType(reservation.rooms).keys()]
      // the check-out date's row too: closed to departure is said there
      const locked = yield* inventory.lockNights(roomTypes, reservation.checkin, readUntil(reservation.checkout))
      const changedRooms = (reason: string) =>
        reservation.rooms.map((room) => ({ room_index: room.room_index, room_type_id: room.room_type_id, reason }))
      const unavailable = (message: string, rooms: ReadonlyArray<ChangedRoom>) =>
        new AvailabilityChanged({ message, currency: hotel.currency, rooms })
      const stay = validateStay(hotel, yield* catalog.today(hotel), reservation.checkin, reservation.checkout)
      if (Result.isFailure(stay)) return yield* unavailable(`the stay can no longer be booked: ${stay.failure.message}`, changedRooms("stay_not_bookable"))
      const input = { hotel, stay: stay.success, rooms: reservation.rooms, nights: yield* silence.sellable(nightLookup(locked)), promoCode }
      const outcome = priceStay(input)
      if (outcome._tag === "Unavailable") {
        return yield* unavailable(
          "some rooms of this reservation are no longer available: ask for a new quote",
          outcome.rooms.map(changedRoom)
        )
      }
      const offer = outcome.offers.find((o) => o.rate_code === reservation.offer.rate_code)
      if (offer === undefined) {
        return yield* unavailable(
          `rate plan ${reservation.offer.rate_code} can no longer be booked for this stay: ask for a new quote`,
          changedRooms("rate_not_eligible")
        )
      }
      const totals = lineTotals(input, offer.rate_code)
      if (offer.price.total !== expectedTotal) {
        const changed = reservation.rooms.filter((_, i) => totals[i] !== reservation.line_totals[i])
        return yield* new PriceChanged({
          message: `the total changed from ${(expectedTotal / 100).toFixed(2)} to ${(offer.price.total / 100).toFixed(2)} ` +
            `${hotel.currency}: complete again with expected_total ${(offer.price.total / 100).toFixed(2)} to accept it`,
          previous_total: expectedTotal,
          new_total: offer.price.total,
          currency: hotel.currency,
          rooms: (changed.length > 0 ? changed : reservation.rooms).map((room) => ({
            room_index: room.room_index,
            room_type_id: room.room_type_id,
            reason: "price_changed"
          }))
        })
      }
      return { hotel, locked, offer, totals }
    })

    /** The terms accepted, in the version the hotel states now; else 400 `invalid_request`. */
    const checkTerms = (hotel: HotelDefinition, request: CompletionRequest) =>
      !request.accept_terms
        ? Effect.fail(invalidRequest("accept_terms: the terms must be accepted (true)"))
        : request.terms_version !== hotel.terms.version
        ? Effect.fail(invalidRequest(`terms_version: the terms are now version ${hotel.terms.version}; read and accept them again`))
        : Effect.void

    /** The guest's details as the reservation keeps them, the optional ones at their defaults. */
    const guestOf = (request: CompletionRequest): GuestDetails => ({
      first_name: request.first_name,
      last_name: request.last_name,
      email: request.email,
      phone: request.phone,
      country: request.country ?? null,
      arrival_time: request.arrival_time ?? null,
      special_requests: request.special_requests ?? null,
      baby_cot: request.baby_cot ?? false,
      early_check_in_request: request.early_check_in_request ?? false,
      late_check_out_request: request.late_check_out_request ?? false
    })

    /**
     * The locks a completion takes before any night, in the one order every completion takes them:
     * first the address (its completions counted one at a time), then a limited code's uses
     * (counted one completion at a time; the code was fixed with the intent, so the unlocked read
     * tells it), then the reservation row; the nights come after (`revalidate`). Nothing else takes
     * the code's lock (a cancellation gives a use back without it): no two transactions wait for
     * each other in a cycle, and a completion queued behind a code's last use holds no nights.
     */
    const lockInOrder = Effect.fnUntraced(function*(pending: ReservationRecord, clientAddress: string, now: number) {
      const recent = yield* addressLimits.lock(clientAddress, now)
      const promoCode = yield* promoCodes.lockForCompletion(pending.promo_code)
      const reservation = yield* repo.findForUpdate(pending.id).pipe(Effect.map(Option.getOrThrow))
      return { recent, promoCode, reservation }
    })

    /** What completing writes besides the rooms: the record, the address's booking, the manage link, the jobs and the feed's change. */
    const recordCompletion = Effect.fnUntraced(function*(
      hotel: HotelDefinition,
      reservation: ReservationRecord,
      completion: Completion,
      booking: Booking
    ) {
      yield* repo.complete(reservation.id, completion)
      yield* addressLimits.record(booking)
      yield* tokens.issue(reservation.id, "manage", new Date(manageLinkExpiry(hotel, reservation.checkout)))
      yield* outbox.enqueue([
        { kind: "confirmation_email", reservation_id: reservation.id },
        { kind: "pms_push", reservation_id: reservation.id }
      ])
      yield* feed.record(reservation.id, "completed")
    })

    const complete = Tracing.fn("Reservations.complete")(function*(token: string, request: CompletionRequest, clientAddress: string) {
      const pending = yield* byGuestToken(token)
      yield* Tracing.annotate({ "reservation.id": pending.id })
      // a second completion gives the first one's answer: never a second reservation
      const hotel = yield* catalog.definition()
      if (pending.status === "GUEST_COMPLETED") return completionResponse(hotel, pending)
      if (pending.status !== "PENDING_GUEST") {
        return yield* new ReservationNotPending({ message: `the reservation is ${pending.status}`, status: pending.status })
      }
      yield* checkTerms(hotel, request)
      const [response, sold] = yield* atomically(Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const { promoCode, recent, reservation } = yield* lockInOrder(pending, clientAddress, now)
        // completed by a concurrent request while this one waited for the lock
        if (reservation.status === "GUEST_COMPLETED") return [completionResponse(hotel, reservation), 0] as const
        if (reservation.status !== "PENDING_GUEST") {
          return yield* new ReservationNotPending({ message: `the reservation is ${reservation.status}`, status: reservation.status })
        }
        // counted across instances, in the database
        const booking: Booking = {
          id: reservation.id,
          address: clientAddress,
          roomNights: roomNights(reservation.rooms, reservation.checkin, reservation.checkout),
          at: now
        }
        yield* addressLimits.check(hotel, recent, booking)
        // priced without the code when it can no longer be used: its last use went meanwhile, or it expired
        const { locked, offer, totals } = yield* revalidate(reservation, request.expected_total, promoCode)
        // a figure of the hotel's cannot count these rooms: its change is written below, after every cursor it knows
        yield* inventory.writeBookings(afterChanges(locked, stayChanges(reservation.rooms, reservation.checkin, reservation.checkout, 1)))
        const completion: Completion = {
          number: reservationNumber(hotel.reservation_prefix, randomBytes(RESERVATION_NUMBER_RANDOM_BYTES)),
          guest: guestOf(request),
          terms_version: request.terms_version,
          offer,
          line_totals: totals,
          completed_at: new Date(now).toISOString(),
          promo_code: appliedPromoCode(hotel, offer)
        }
        yield* recordCompletion(hotel, reservation, completion, booking)
        const response = completionResponse(hotel, { ...reservation, ...completion, status: "GUEST_COMPLETED", pms_status: "PENDING" })
        return [response, booking.roomNights] as const
      }))
      // counted once committed, never for a completion answered again
      if (sold > 0) yield* Effect.all([Metric.update(Metrics.completions({}), 1), Metric.update(Metrics.roomNightsSold({}), sold)])
      return response
    })

    return {
      /**
       * POST /v1/reservation-intents: a pending reservation and its guest link, from a live quote,
       * counted for the client address (INTENT_LIMIT_PER_HOUR).
       */
      createIntent: Tracing.fn("Reservations.createIntentIdempotently")(
        function*(request: IntentRequest, client: ClientInfo, idempotencyKey: string | undefined, clientAddress: string) {
          return yield* idempotency.run(
            "reservation-intents",
            idempotencyKey,
            request,
            (remember) => createIntent(request, client, clientAddress, remember),
            (id) => intentResponse(id as ReservationId)
          )
        }
      ),
      /** GET /v1/reservation-public: the prefilled reservation and the form to complete it. */
      publicView: Tracing.fn("Reservations.publicView")(function*(token: string) {
        const reservation = yield* byGuestToken(token)
        const hotel = yield* catalog.definition()
        return publicReservation(hotel, reservation, formatInstant(new Date(reservation.guest_link_expires_at), hotel.timezone))
      }),
      /** POST /v1/reservation-complete: revalidated and completed in one transaction. */
      complete
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([
      HotelCatalog.layer,
      Quotes.layer,
      Tokens.layer,
      Idempotency.layer,
      PromoCodes.layer,
      ReservationFeed.layer,
      AddressLimits.layer,
      ChannelSilence.layer
    ])
  )
}
