import { Effect, Option } from "effect"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import type { Cents } from "../../src/Domain/Money.js"
import { Quotes } from "../../src/Services/Quotes.js"
import { ReservationManagement } from "../../src/Services/ReservationManagement.js"
import { Reservations } from "../../src/Services/Reservations.js"
import { Tokens } from "../../src/Services/Tokens.js"
import { tokenOf } from "./flow.js"

/**
 * The booking flow through the services themselves, without HTTP: a completed reservation and its
 * stay changes, as the guest would make them.
 */

const d = (s: string) => s as LocalDate

export interface Ask {
  readonly room_type_id: string
  readonly quantity?: number
  readonly adults?: number
  readonly children_ages?: ReadonlyArray<number>
}
export const roomsOf = (asks: ReadonlyArray<Ask>) =>
  asks.map((a) => ({ room_type_id: a.room_type_id as RoomTypeId, quantity: a.quantity ?? 1, adults: a.adults ?? 2, children_ages: a.children_ages ?? [] }))

const guest = { first_name: "Chan", last_name: "Ge", email: "change@example.com", phone: "+33 6 00 00 00 01", accept_terms: true, terms_version: "2026-11" }
export const client = { client: "stay-change-test", ai_agent: null, session: null }
let addresses = 0

/** A completed reservation of these rooms on a plan (with a promo code, when given): its id, manage token and total. */
export const completed = (checkin: string, checkout: string, asks: ReadonlyArray<Ask>, rateCode = "FLEX", promoCode?: string) =>
  Effect.gen(function*() {
    const quote = yield* (yield* Quotes).quoteRooms({
      checkin: d(checkin),
      checkout: d(checkout),
      rooms: roomsOf(asks),
      ...(promoCode === undefined ? {} : { promo_code: promoCode })
    }, client)
    const offer = quote.package_offers.find((o) => o.rate_code === rateCode)!
    const reservations = yield* Reservations
    const { response } = yield* reservations.createIntent({ quote_id: quote.quote_id, package_code: offer.package_code, language: "en" }, client, undefined, "192.0.2.1")
    // each on an address of its own: the booking limit per address stays out of these tests
    const done = yield* reservations.complete(tokenOf(response.continue_url), { ...guest, expected_total: offer.price.total }, `192.0.2.${++addresses}`)
    const token = Option.getOrThrow(yield* (yield* Tokens).reveal(done.reservation_id, "manage"))
    return { id: done.reservation_id, token, total: offer.price.total }
  })

export const quoteChange = (token: string, checkin: string, checkout: string, asks: ReadonlyArray<Ask>) =>
  Effect.flatMap(ReservationManagement, (m) =>
    m.quoteChange(token, { action: "quote_change", checkin: d(checkin), checkout: d(checkout), rooms: roomsOf(asks) }))

export const changeStay = (token: string, checkin: string, checkout: string, asks: ReadonlyArray<Ask>, expected: number) =>
  Effect.flatMap(ReservationManagement, (m) =>
    m.act(token, { action: "change_stay", checkin: d(checkin), checkout: d(checkout), rooms: roomsOf(asks), expected_total: expected as Cents }, `192.0.2.${++addresses}`))

/** Quotes the change, then makes it at the quoted total: the changed reservation's view. */
export const change = (token: string, checkin: string, checkout: string, asks: ReadonlyArray<Ask>) =>
  Effect.flatMap(quoteChange(token, checkin, checkout, asks), (q) => changeStay(token, checkin, checkout, asks, q.new_total))
