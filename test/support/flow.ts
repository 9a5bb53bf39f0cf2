import { Effect, Option } from "effect"
import { HttpClientRequest } from "effect/http"
import type { AriUpdate } from "../../src/Domain/Channel/Message.js"
import { RateCode, RoomTypeId } from "../../src/Domain/Ids.js"
import type { Language } from "../../src/Domain/Language.js"
import { LocalDate } from "../../src/Domain/LocalDate.js"
import type { Cents } from "../../src/Domain/Money.js"
import type { MultiRoomQuoteRequest, RoomRequest } from "../../src/Domain/Quote.js"
import type { ManageRequest } from "../../src/Domain/Management.js"
import type { CompletionRequest, ManagedReservation } from "../../src/Domain/Reservation.js"
import { Channel } from "../../src/Services/Channel.js"
import { Tokens } from "../../src/Services/Tokens.js"
import { apiClient, apiClientWith, request } from "./TestApp.js"

export const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  request(HttpClientRequest.post(url).pipe(HttpClientRequest.bodyJsonUnsafe(body), HttpClientRequest.setHeaders(headers)))

export const get = (url: string, headers: Record<string, string> = {}) =>
  request(HttpClientRequest.get(url).pipe(HttpClientRequest.setHeaders(headers)))

export interface RoomAsk {
  readonly room_type_id: string
  readonly adults: number
  readonly quantity?: number
  readonly children_ages?: ReadonlyArray<number>
  readonly rate_code?: string
}

/** A live quote for the stay: its body. */
export const quote = (checkin: string, checkout: string, rooms: ReadonlyArray<RoomAsk>) =>
  Effect.map(post("/v1/quotes", { checkin, checkout, rooms }), (r) => r.body)

let messages = 0
/** The hotel's own systems change what may be sold now, as its channel manager's message would. */
export const hotelSets = (...updates: ReadonlyArray<AriUpdate>) =>
  Effect.flatMap(Channel, (channel) =>
    channel.applyMessage({ message_id: `test-message-${++messages}`, as_of: new Date().toISOString(), updates }))

export const tokenOf = (continueUrl: string) => new URL(continueUrl).hash.replace("#token=", "")

/**
 * Quote, then an intent for a plan (in `language`, when given): the guest token and the total the
 * guest sees. Throws when the quote or the intent is refused.
 */
export const pendingReservation = (
  checkin: string,
  checkout: string,
  rooms: ReadonlyArray<RoomAsk>,
  rateCode = "FLEX",
  language?: Language
) =>
  Effect.gen(function*() {
    const quoted = yield* post("/v1/quotes", { checkin, checkout, rooms })
    if (quoted.status !== 200) throw new Error(`quote failed: ${quoted.text}`)
    const q = quoted.body
    const offer = q.package_offers.find((o: { rate_code: string }) => o.rate_code === rateCode)
    const intent = yield* post("/v1/reservation-intents", {
      quote_id: q.quote_id,
      package_code: offer.package_code,
      ...(language === undefined ? {} : { language })
    })
    if (intent.status !== 200) throw new Error(`intent failed: ${intent.text}`)
    return { token: tokenOf(intent.body.continue_url), total: offer.price.total as number, intent: intent.body, quote: q }
  })

/** The guest's details of every completion (raw JSON and the typed payload alike). */
export const guest = {
  first_name: "Ana",
  last_name: "Lopez",
  email: "ana@example.com",
  phone: "+34 600 123 456",
  accept_terms: true,
  terms_version: "2026-11"
} satisfies Omit<CompletionRequest, "expected_total">

export const completeWith = (token: string, expectedTotal: number, extra: Record<string, unknown> = {}) =>
  post("/v1/reservation-complete", { ...guest, expected_total: expectedTotal, ...extra }, { "x-reservation-token": token })

/*
 * The same flow through the typed client (`HttpApiClient`): payloads checked by the compiler and
 * encoded by the API's own schemas, answers decoded by them (amounts in cents), refusals too: each
 * error body comes back as the error that sent it (test/Api/TypedErrors.test.ts). The raw helpers
 * above stay for the tests of the wire itself.
 */

/** An amount in euros as the typed client reads it: integer cents. */
export const eur = (amount: number) => Math.round(amount * 100) as Cents

export const stayOf = (checkin: string, checkout: string) => ({ checkin: LocalDate.make(checkin), checkout: LocalDate.make(checkout) })

/** Room requests as the API takes them once decoded: the defaults (one room, no children) written out. */
export const roomRequests = (rooms: ReadonlyArray<RoomAsk>): ReadonlyArray<RoomRequest> =>
  rooms.map((room) => ({
    room_type_id: RoomTypeId.make(room.room_type_id),
    quantity: room.quantity ?? 1,
    adults: room.adults,
    children_ages: room.children_ages ?? [],
    ...(room.rate_code === undefined ? {} : { rate_code: RateCode.make(room.rate_code) })
  }))

/** A live quote for the stay (`extra`: a session_id or a promo_code). */
export const quoteStay = (
  checkin: string,
  checkout: string,
  rooms: ReadonlyArray<RoomAsk>,
  extra: Pick<MultiRoomQuoteRequest, "session_id" | "promo_code"> = {}
) =>
  Effect.flatMap(apiClient, (api) =>
    api.quotes.quoteRooms({ headers: {}, payload: { ...stayOf(checkin, checkout), rooms: roomRequests(rooms), ...extra } }))

/** Quote, then an intent for a plan (in `language`): the guest token, the total the guest sees, the offer, intent and quote. */
export const pendingBooking = (
  checkin: string,
  checkout: string,
  rooms: ReadonlyArray<RoomAsk>,
  rateCode = "FLEX",
  language: Language = "en",
  extra: Pick<MultiRoomQuoteRequest, "promo_code"> = {}
) =>
  Effect.gen(function*() {
    const quote = yield* quoteStay(checkin, checkout, rooms, extra)
    const offer = quote.package_offers.find((o) => o.rate_code === rateCode)
    if (offer === undefined) return yield* Effect.die(new Error(`no ${rateCode} offer in the quote`))
    const intent = yield* (yield* apiClient).reservations.createIntent({
      headers: {},
      payload: { quote_id: quote.quote_id, package_code: offer.package_code, language }
    })
    return { token: tokenOf(intent.continue_url), total: offer.price.total, offer, intent, quote }
  })

/** The guest completes with the guest link's token, at `expectedTotal` (`extra`: optional details). */
export const complete = (token: string, expectedTotal: Cents, extra: Partial<CompletionRequest> = {}) =>
  Effect.flatMap(apiClientWith(token), (api) =>
    api.reservations.complete({ payload: { ...guest, expected_total: expectedTotal, ...extra } }))

/** A reservation completed at its quoted total, typed: its id, number, both links' tokens and that total (cents). */
export const completedBooking = (checkin: string, checkout: string, rooms: ReadonlyArray<RoomAsk>, rateCode = "FLEX") =>
  Effect.gen(function*() {
    const pending = yield* pendingBooking(checkin, checkout, rooms, rateCode)
    const done = yield* complete(pending.token, pending.total)
    const manageToken = yield* (yield* Tokens).reveal(done.reservation_id, "manage").pipe(Effect.map(Option.getOrThrow))
    return { id: done.reservation_id, number: done.reservation_number, guestToken: pending.token, manageToken, total: pending.total }
  })

/** The manage endpoints with a link's token. */
export const manageWith = (token: string) => Effect.map(apiClientWith(token), (api) => api.manage)

/** A manage action that answers the reservation as it now is (every action but quote_change). */
export const manageAct = (token: string, payload: Exclude<ManageRequest, { readonly action: "quote_change" }>) =>
  // the client's parameter is one request type per action: a payload of any action is one of them
  Effect.flatMap(manageWith(token), (manage) => manage.act({ payload } as Parameters<typeof manage.act>[0])).pipe(
    Effect.filterOrElse(
      (answer): answer is ManagedReservation => "reservation_id" in answer,
      () => Effect.die(new Error(`${payload.action} answered no reservation`))
    )
  )
