import { HttpClientRequest } from "@effect/platform"
import { expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { AriUpdate } from "../../src/Domain/Channel.js"
import type { ReservationId } from "../../src/Domain/Ids.js"
import type { Language } from "../../src/Domain/Language.js"
import { Channel } from "../../src/Services/Channel.js"
import { Tokens } from "../../src/Services/Tokens.js"
import { request } from "./TestApp.js"

export const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  request(HttpClientRequest.post(url).pipe(HttpClientRequest.bodyUnsafeJson(body), HttpClientRequest.setHeaders(headers)))

export const get = (url: string, headers: Record<string, string> = {}) =>
  request(HttpClientRequest.get(url).pipe(HttpClientRequest.setHeaders(headers)))

export interface RoomAsk {
  readonly room_type_id: string
  readonly adults: number
  readonly quantity?: number
  readonly children_ages?: ReadonlyArray<number>
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

export const guest = {
  first_name: "Ana",
  last_name: "Lopez",
  email: "ana@example.com",
  phone: "+34 600 123 456",
  accept_terms: true,
  terms_version: "2026-11"
}

export const completeWith = (token: string, expectedTotal: number, extra: Record<string, unknown> = {}) =>
  post("/v1/reservation-complete", { ...guest, expected_total: expectedTotal, ...extra }, { "x-reservation-token": token })

/** A reservation completed at its quoted total: its id, number, both links' tokens and that total. */
export const completedReservation = (checkin: string, checkout: string, rooms: ReadonlyArray<RoomAsk>, rateCode = "FLEX") =>
  Effect.gen(function*() {
    const pending = yield* pendingReservation(checkin, checkout, rooms, rateCode)
    const done = yield* completeWith(pending.token, pending.total)
    expect(done.status).toBe(200)
    const id = done.body.reservation_id as ReservationId
    const manageToken = yield* (yield* Tokens).reveal(id, "manage").pipe(Effect.map(Option.getOrThrow))
    return { id, number: done.body.reservation_number as string, guestToken: pending.token, manageToken, total: pending.total }
  })
