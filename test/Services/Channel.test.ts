import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, Option, References, Schema } from "effect"
import { AriMessage } from "../../src/Domain/Channel/Message.js"
import { emptyNight } from "../../src/Domain/Channel/Nights.js"
import type { InventoryNight } from "../../src/Domain/Channel/View.js"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import { daysBetween, type LocalDate } from "../../src/Domain/LocalDate.js"
import type { Cents } from "../../src/Domain/Money.js"
import { priceStay } from "../../src/Domain/Pricing.js"
import { ReservationFeedRepo } from "../../src/Layers/Persistence/ReservationFeedRepo.js"
import { Channel } from "../../src/Services/Channel.js"
import { Inventory } from "../../src/Services/Inventory.js"
import { PriceCalendar } from "../../src/Services/PriceCalendar.js"
import { Quotes } from "../../src/Services/Quotes.js"
import { ReservationManagement } from "../../src/Services/ReservationManagement.js"
import { Reservations } from "../../src/Services/Reservations.js"
import { Tokens } from "../../src/Services/Tokens.js"
import { makeTestClock } from "../support/clock.js"
import { tokenOf } from "../support/flow.js"
import { demoHotel } from "../support/hotel.js"
import { ServicesInMemory } from "../support/TestApp.js"

// Today is Sunday 2026-11-22 in hotel time; every test has nights of its own in January or February
// 2027 (low season, weekdays unless said, 45 days ahead or more: the early-booking promotion applies).
const clock = makeTestClock("2026-11-22T10:00:00Z")
const d = (s: string) => s as LocalDate
const deluxe = "deluxe" as RoomTypeId
const client = { client: "channel-test", ai_agent: null, session: null }
const guest = { first_name: "Cha", last_name: "Nel", email: "channel@example.com", phone: "+33 6 00 00 00 02", accept_terms: true, terms_version: "2026-11" }
let messages = 0
let addresses = 0

/**
 * The hotel's message, computed `agoMs` before the clock's now (negative: a clock ahead), counting
 * this service's reservation changes up to `through` when given.
 */
const send = (updates: ReadonlyArray<Record<string, unknown>>, agoMs = 0, through?: bigint) =>
  Effect.flatMap(
    // as the wire carries it: amounts in the hotel's currency, decoded to cents
    Schema.decodeUnknownEffect(AriMessage)({
      message_id: `msg-${++messages}`,
      as_of: new Date(clock.now() - agoMs).toISOString(),
      ...(through === undefined ? {} : { reservations_through: through.toString() }),
      updates: updates.map((u) => ({ room_type_id: deluxe, ...u }))
    }).pipe(Effect.orDie),
    (message) => Effect.flatMap(Channel, (channel) => channel.applyMessage(message))
  )

/** The feed's last cursor: what a hotel that pulled it just now has counted. */
const feedCursor = Effect.flatMap(ReservationFeedRepo, (feed) => feed.lastCursor)

const deluxeRooms = (quantity = 1) => [{ room_type_id: deluxe, quantity, adults: 2, children_ages: [] }]
const quote = (checkin: string, checkout: string, quantity = 1) =>
  Effect.flatMap(Quotes, (q) => q.quoteRooms({ checkin: d(checkin), checkout: d(checkout), rooms: deluxeRooms(quantity) }, client))

/** A pending reservation of deluxe rooms on FLEX: its guest token and the total the guest saw. */
const pending = (checkin: string, checkout: string, quantity = 1) =>
  Effect.gen(function*() {
    const q = yield* quote(checkin, checkout, quantity)
    const offer = q.package_offers.find((o) => o.rate_code === "FLEX")!
    const { response } = yield* (yield* Reservations).createIntent({ quote_id: q.quote_id, package_code: offer.package_code, language: "en" }, client, undefined, "192.0.2.1")
    return { token: tokenOf(response.continue_url), total: offer.price.total }
  })
const complete = (p: { readonly token: string; readonly total: Cents }) =>
  Effect.flatMap(Reservations, (r) => r.complete(p.token, { ...guest, expected_total: p.total }, `192.0.2.${++addresses}`))
/** A completed reservation: its manage token. */
const completed = (checkin: string, checkout: string, quantity = 1) =>
  Effect.gen(function*() {
    const done = yield* complete(yield* pending(checkin, checkout, quantity))
    return Option.getOrThrow(yield* (yield* Tokens).reveal(done.reservation_id, "manage"))
  })
const cancel = (manageToken: string) => Effect.flatMap(ReservationManagement, (m) => m.act(manageToken, { action: "cancel" }, "192.0.2.1"))

const availability = (checkin: string, checkout: string) =>
  Effect.map(
    Effect.flatMap(Inventory, (i) => i.availability({ checkin: d(checkin), checkout: d(checkout), adults: 2, children: 0 })),
    (a) => a.room_types.find((r) => r.room_type_id === deluxe)!
  )
const calendar = (from: string, to: string, nights: number, roomTypeId?: RoomTypeId) =>
  Effect.map(
    Effect.flatMap(PriceCalendar, (c) =>
      c.calendar({ from: d(from), to: d(to), nights, adults: 2, children_ages: [], ...(roomTypeId === undefined ? {} : { room_type_id: roomTypeId }) })),
    (answer) => answer.days
  )
/** The inventory view of deluxe on one date. */
const view = (date: string) =>
  Effect.map(
    Effect.flatMap(Channel, (c) => c.inventory({ from: d(date), to: d(date), room_type_id: deluxe })),
    (v): InventoryNight => v.room_types[0]!.nights[0]!
  )

// the services run on the tests' fibers, which read the clock from the layer's context: merged, not only provided
layer(ServicesInMemory().pipe(Layer.provideMerge(clock.layer)), { excludeTestServices: true })("Channel, in memory", (it) => {
  it.effect("each restriction shows in quotes, availability and the calendar with its reason and numbers", () =>
    Effect.gen(function*() {
      // Mon 4 to Fri 8 January: CTA on the 4th, CTD on the 6th, stop-sell on the 7th; min 3 on the 5th; max 1 on the 6th
      yield* send([
        { from: "2027-01-04", to: "2027-01-04", closed_to_arrival: true },
        { from: "2027-01-06", to: "2027-01-06", closed_to_departure: true, max_stay: 1 },
        { from: "2027-01-07", to: "2027-01-07", stop_sell: true },
        { from: "2027-01-05", to: "2027-01-05", min_stay: 3 }
      ])
      const reasonOf = (checkin: string, checkout: string) =>
        Effect.map(quote(checkin, checkout), (q) => ({ status: q.status, rooms: q.unavailable_rooms.map(({ message: _, ...r }) => r) }))
      const unavailable = (reason: string, bound: object = {}) => ({
        status: "unavailable",
        rooms: [{ room_index: 0, room_type_id: deluxe, reason, ...bound }]
      })
      expect(yield* reasonOf("2027-01-04", "2027-01-05")).toEqual(unavailable("closed_to_arrival"))
      // leaving on the 6th is closed to departure, which outranks min_stay
      expect(yield* reasonOf("2027-01-05", "2027-01-06")).toEqual(unavailable("closed_to_departure"))
      expect(yield* reasonOf("2027-01-05", "2027-01-07")).toEqual(unavailable("min_stay", { min_stay: 3 }))
      expect(yield* reasonOf("2027-01-05", "2027-01-07")).not.toHaveProperty("rooms.0.max_stay")
      // arriving on the 6th: max 1 night; leaving on the 6th: closed to departure
      expect(yield* reasonOf("2027-01-06", "2027-01-08")).toEqual(unavailable("stop_sell"))
      expect(yield* reasonOf("2027-01-06", "2027-01-07")).toEqual({ status: "available", rooms: [] })
      expect(yield* reasonOf("2027-01-03", "2027-01-06")).toEqual(unavailable("closed_to_departure"))
      expect(yield* reasonOf("2027-01-08", "2027-01-10")).toEqual({ status: "available", rooms: [] })
      // stop-sell outranks min_stay: arriving on the 5th for 3 nights runs through the 7th
      expect(yield* reasonOf("2027-01-05", "2027-01-08")).toEqual(unavailable("stop_sell"))
      // the 6th: max 1 and the 7th stop-sold, so two nights from the 6th are stop_sell, not max_stay
      yield* send([{ from: "2027-01-11", to: "2027-01-11", max_stay: 2 }])
      expect(yield* reasonOf("2027-01-11", "2027-01-14")).toEqual(unavailable("max_stay", { max_stay: 2 }))

      expect(yield* availability("2027-01-05", "2027-01-07")).toMatchObject({ available_rooms: 5, bookable: false, reason: "min_stay", min_stay: 3 })
      expect(yield* availability("2027-01-11", "2027-01-14")).toMatchObject({ available_rooms: 5, bookable: false, reason: "max_stay", max_stay: 2 })
      expect(yield* availability("2027-01-06", "2027-01-07")).toMatchObject({ available_rooms: 5, bookable: true, reason: null })
      expect(yield* availability("2027-01-06", "2027-01-07")).not.toHaveProperty("min_stay")

      const days = yield* calendar("2027-01-04", "2027-01-08", 1, deluxe)
      expect(days.map(({ checkin, max_stay, min_stay, reason }) => ({ checkin, reason, min_stay, max_stay }))).toEqual([
        { checkin: "2027-01-04", reason: "closed_to_arrival", min_stay: undefined, max_stay: undefined },
        { checkin: "2027-01-05", reason: "closed_to_departure", min_stay: undefined, max_stay: undefined },
        { checkin: "2027-01-06", reason: null, min_stay: undefined, max_stay: undefined },
        { checkin: "2027-01-07", reason: "stop_sell", min_stay: undefined, max_stay: undefined },
        { checkin: "2027-01-08", reason: null, min_stay: undefined, max_stay: undefined }
      ])
      // two nights from the 5th: only a longer stay could book it
      expect((yield* calendar("2027-01-05", "2027-01-05", 2, deluxe))[0]).toMatchObject({ available: false, reason: "min_stay", min_stay: 3 })
      // without room_type_id the double and twin still sell the 4th
      expect((yield* calendar("2027-01-04", "2027-01-04", 1))[0]).toMatchObject({ available: true, reason: null })
    }))

  it.effect("a base_rate prices every plan from it to the cent, as if the hotel file said it; tourist tax unchanged", () =>
    Effect.gen(function*() {
      // Mon 18 and Tue 19 January: the file says 180.00 a deluxe night
      const before = yield* quote("2027-01-18", "2027-01-20")
      yield* send([{ from: "2027-01-18", to: "2027-01-19", base_rate: 150.55 }])
      const after = yield* quote("2027-01-18", "2027-01-20")
      const fileSaying = (rate: number) => ({
        ...demoHotel,
        room_types: demoHotel.room_types.map((r) => r.id === deluxe ? { ...r, base_rates_cents: { ...r.base_rates_cents, low: rate as Cents } } : r)
      })
      const priced = (rate: number) => {
        const outcome = priceStay({
          hotel: fileSaying(rate),
          stay: { checkin: d("2027-01-18"), checkout: d("2027-01-20"), nights: 2, daysAhead: daysBetween(d("2026-11-22"), d("2027-01-18")) },
          rooms: deluxeRooms().map((r) => ({ ...r, rate_code: null })),
          nights: () => emptyNight
        })
        if (outcome._tag !== "Available") throw new Error("expected offers")
        return outcome.offers.map((o) => ({ package_code: o.package_code, price: o.price }))
      }
      expect(before.package_offers.map((o) => ({ package_code: o.package_code, price: o.price }))).toEqual(priced(18000))
      expect(after.package_offers.map((o) => ({ package_code: o.package_code, price: o.price }))).toEqual(priced(15055))
      const byCode = Object.fromEntries(after.package_offers.map((o) => [o.rate_code, o.price]))
      // FLEX 2 × 150.55; breakfast for two on two nights; NRF 12 % off and early booking 10 % off, each night rounded; tax 2 × 2 × 2.88
      expect(byCode.FLEX!.room_total).toBe(30110)
      expect(byCode.FLEX_BB!.room_total - byCode.FLEX!.room_total).toBe(2 * 2 * 1600)
      expect(byCode.NRF!.room_total).toBe(30110 - 2 * 1807)
      expect(byCode.FLEX!.promotion_discount).toBe(2 * 1506)
      expect(byCode.FLEX!.tourist_tax).toBe(before.package_offers[0]!.price.tourist_tax)
      expect(byCode.FLEX!.tourist_tax).toBe(1152)
      // the inventory view says where the rate comes from; null gives the file's back
      expect(yield* view("2027-01-18")).toMatchObject({ base_rate: 15055, base_rate_source: "message" })
      expect(yield* view("2027-01-20")).toMatchObject({ base_rate: 18000, base_rate_source: "hotel_file" })
      yield* send([{ from: "2027-01-18", to: "2027-01-19", base_rate: null }])
      expect((yield* quote("2027-01-18", "2027-01-20")).package_offers.map((o) => o.price)).toEqual(before.package_offers.map((o) => o.price))
    }))

  it.effect("rooms_to_sell below the file's count: sold out at that figure, counting the rooms taken since; demand counts what is left", () =>
    Effect.gen(function*() {
      // Mon 25 and Tue 26 January: the hotel lets this service sell 2 of its 5 deluxe
      yield* send([{ from: "2027-01-25", to: "2027-01-26", rooms_to_sell: 2 }])
      expect((yield* quote("2027-01-25", "2027-01-27", 2)).status).toBe("available")
      expect((yield* quote("2027-01-25", "2027-01-27", 3)).unavailable_rooms).toMatchObject([{ reason: "sold_out" }])
      yield* completed("2027-01-25", "2027-01-27")
      // 1 left: 4 of 5 not free, 80 %: the demand surcharge applies to 180.00
      const last = yield* quote("2027-01-26", "2027-01-27")
      expect(last.package_offers.find((o) => o.rate_code === "FLEX")!.price.room_total).toBe(19800)
      yield* completed("2027-01-26", "2027-01-27")
      expect((yield* quote("2027-01-26", "2027-01-27")).unavailable_rooms).toMatchObject([{ reason: "sold_out" }])
      expect((yield* quote("2027-01-25", "2027-01-26")).status).toBe("available")
      expect(yield* availability("2027-01-25", "2027-01-27")).toMatchObject({ available_rooms: 0, bookable: false, reason: "sold_out" })
      expect(yield* view("2027-01-26")).toMatchObject({
        rooms: 5,
        booked_here: 2,
        rooms_to_sell: 2,
        booked_here_since: 2,
        free: 0,
        oversold: false,
        base_rate_source: "hotel_file"
      })
      // the hotel's next figure counts them (it pulled the feed): 1 more to sell
      clock.advance(1_000)
      yield* send([{ from: "2027-01-26", to: "2027-01-26", rooms_to_sell: 1 }], 0, yield* feedCursor)
      expect(yield* view("2027-01-26")).toMatchObject({ booked_here: 2, rooms_to_sell: 1, booked_here_since: 0, free: 1 })
    }))

  it.effect("a restriction appearing after the quote: completion is 409 availability_changed with that room's reason", () =>
    Effect.gen(function*() {
      const p = yield* pending("2027-02-01", "2027-02-03")
      yield* send([{ from: "2027-02-01", to: "2027-02-01", min_stay: 4 }])
      const refused = yield* Effect.flip(complete(p))
      expect(refused._tag).toBe("AvailabilityChanged")
      expect(refused).toMatchObject({ rooms: [{ room_index: 0, room_type_id: deluxe, reason: "min_stay", min_stay: 4 }] })
      // CTD on the check-out date is read at completion too
      const q = yield* pending("2027-02-08", "2027-02-10")
      yield* send([{ from: "2027-02-10", to: "2027-02-10", closed_to_departure: true }])
      expect(yield* Effect.flip(complete(q))).toMatchObject({ _tag: "AvailabilityChanged", rooms: [{ reason: "closed_to_departure" }] })
      expect((yield* view("2027-02-08")).booked_here).toBe(0)
    }))

  it.effect("a base_rate changed after the quote: completion is 409 price_changed with the new total, then completes at it", () =>
    Effect.gen(function*() {
      const p = yield* pending("2027-02-15", "2027-02-17")
      yield* send([{ from: "2027-02-15", to: "2027-02-16", base_rate: 200 }])
      const refused = yield* Effect.flip(complete(p))
      expect(refused._tag).toBe("PriceChanged")
      if (refused._tag !== "PriceChanged") return
      expect(refused.previous_total).toBe(p.total)
      // 2 × 200.00 less 10 % early booking, plus the tax of two adults on two nights
      expect(refused.new_total).toBe(40000 - 4000 + 1152)
      const done = yield* complete({ token: p.token, total: refused.new_total })
      expect(done.status).toBe("GUEST_COMPLETED")
    }))

  it.effect("change_stay revalidates the hotel's restrictions and rooms to sell", () =>
    Effect.gen(function*() {
      const token = yield* completed("2027-02-22", "2027-02-24")
      const management = yield* ReservationManagement
      const to = { checkin: d("2027-03-01"), checkout: d("2027-03-03"), rooms: deluxeRooms() }
      const quoted = yield* management.quoteChange(token, { action: "quote_change", ...to })
      yield* send([{ from: "2027-03-02", to: "2027-03-02", stop_sell: true }])
      const refused = yield* Effect.flip(management.act(token, { action: "change_stay", ...to, expected_total: quoted.new_total }, "192.0.2.1"))
      expect(refused).toMatchObject({ _tag: "AvailabilityChanged", rooms: [{ reason: "stop_sell" }] })
      // the quote of the change says it too
      expect(yield* Effect.flip(management.quoteChange(token, { action: "quote_change", ...to }))).toMatchObject({
        _tag: "AvailabilityChanged",
        rooms: [{ reason: "stop_sell" }]
      })
      // no room to sell on the new nights: refused; the old nights are kept
      yield* send([{ from: "2027-03-08", to: "2027-03-09", rooms_to_sell: 0 }])
      const zero = { checkin: d("2027-03-08"), checkout: d("2027-03-10"), rooms: deluxeRooms() }
      expect(yield* Effect.flip(management.quoteChange(token, { action: "quote_change", ...zero }))).toMatchObject({
        _tag: "AvailabilityChanged",
        rooms: [{ reason: "sold_out" }]
      })
      expect((yield* view("2027-02-22")).booked_here).toBe(1)
    }))

  it.effect("a figure that does not count a booking cannot sell its room twice, whatever its as_of says (docs/decisions.md#what-may-be-sold, 2026-11-28)", () =>
    Effect.gen(function*() {
      // the hotel leaves 1 room on Mon 15 March; a guest takes it
      const before = yield* feedCursor
      yield* send([{ from: "2027-03-15", to: "2027-03-15", rooms_to_sell: 1 }], 60_000)
      yield* completed("2027-03-15", "2027-03-16")
      // the hotel's next figure, computed after the booking but before its PMS heard of it: still 1
      clock.advance(1_000)
      yield* send([{ from: "2027-03-15", to: "2027-03-15", rooms_to_sell: 1 }])
      expect(yield* view("2027-03-15")).toMatchObject({ booked_here: 1, rooms_to_sell: 1, booked_here_since: 1, free: 0 })
      expect((yield* quote("2027-03-15", "2027-03-16")).unavailable_rooms).toMatchObject([{ reason: "sold_out" }])
      // its clock 4 minutes ahead: the same
      yield* send([{ from: "2027-03-15", to: "2027-03-15", rooms_to_sell: 1 }], -240_000)
      expect(yield* view("2027-03-15")).toMatchObject({ booked_here_since: 1, free: 0 })
      // a cursor read before the booking: the same (computed after the figure stamped 4 minutes ahead)
      clock.advance(241_000)
      yield* send([{ from: "2027-03-15", to: "2027-03-15", rooms_to_sell: 1 }], 0, before)
      expect(yield* view("2027-03-15")).toMatchObject({ booked_here_since: 1, free: 0, rooms_to_sell_reservations_through: String(before) })
      // a cursor that covers it: the hotel counted the booking and still has 1 room: exactly one more
      clock.advance(1_000)
      const after = yield* feedCursor
      yield* send([{ from: "2027-03-15", to: "2027-03-15", rooms_to_sell: 1 }], 0, after)
      expect(yield* view("2027-03-15")).toMatchObject({ booked_here_since: 0, free: 1, rooms_to_sell_reservations_through: String(after) })
      yield* completed("2027-03-15", "2027-03-16")
      expect(yield* view("2027-03-15")).toMatchObject({ booked_here: 2, booked_here_since: 1, free: 0 })
      // a later figure without a cursor still counts what a cursor covered: the first booking stays counted
      clock.advance(1_000)
      yield* send([{ from: "2027-03-15", to: "2027-03-15", rooms_to_sell: 0 }])
      expect(yield* view("2027-03-15")).toMatchObject({ booked_here_since: 1, free: 0, oversold: true, rooms_to_sell_reservations_through: String(after) })
      // an older figure arriving late is stale: it changes nothing
      expect(yield* send([{ from: "2027-03-15", to: "2027-03-15", rooms_to_sell: 3 }], 100_000)).toMatchObject({ applied: 0, stale: 1 })
      expect(yield* view("2027-03-15")).toMatchObject({ rooms_to_sell: 0, free: 0 })
    }))

  it.effect("a booking whose PMS push was acknowledged counts in figures computed 5 minutes after the acknowledgement", () =>
    Effect.gen(function*() {
      yield* send([{ from: "2027-03-17", to: "2027-03-17", rooms_to_sell: 2 }])
      const done = yield* complete(yield* pending("2027-03-17", "2027-03-18"))
      const feed = yield* ReservationFeedRepo
      // what Deliveries records when the PMS answers the push 2xx
      yield* feed.acknowledge(done.reservation_id, yield* feedCursor, new Date(clock.now()))
      clock.advance(60_000)
      yield* send([{ from: "2027-03-17", to: "2027-03-17", rooms_to_sell: 1 }])
      expect(yield* view("2027-03-17")).toMatchObject({ booked_here: 1, booked_here_since: 1, free: 0 })
      clock.advance(240_000)
      yield* send([{ from: "2027-03-17", to: "2027-03-17", rooms_to_sell: 1 }])
      expect(yield* view("2027-03-17")).toMatchObject({ booked_here: 1, booked_here_since: 0, free: 1 })
    }))

  it.effect("a cursor past the feed's last change is refused: no figure may claim a change that has not happened", () =>
    Effect.gen(function*() {
      const last = yield* feedCursor
      expect(yield* Effect.flip(send([{ from: "2027-03-16", to: "2027-03-16", rooms_to_sell: 1 }], 0, last + 1n))).toMatchObject({
        _tag: "InvalidMessage",
        issues: [{ path: "reservations_through" }]
      })
      expect(yield* view("2027-03-16")).toMatchObject({ rooms_to_sell: null })
    }))

  it.effect("a figure below what was booked here since its as_of: nothing cancelled, free 0, oversold in the view", () =>
    Effect.gen(function*() {
      yield* completed("2027-03-22", "2027-03-23", 2)
      const warnings: Array<string> = []
      const capture = Logger.make(({ fiber, logLevel, message }) => {
        if (logLevel === "Warn") warnings.push(`${String(message)} ${String(fiber.getRef(References.CurrentLogAnnotations)["channel.oversold"])}`)
      })
      yield* send([{ from: "2027-03-22", to: "2027-03-22", rooms_to_sell: 1 }], 60_000).pipe(
        Effect.provide(Logger.layer([capture]))
      )
      expect(warnings).toEqual(["channel: the hotel's rooms_to_sell is below the rooms this service took that it does not count deluxe 2027-03-22"])
      expect(yield* view("2027-03-22")).toMatchObject({ booked_here: 2, rooms_to_sell: 1, booked_here_since: 2, free: 0, oversold: true })
      // 22 nights oversold at once: one line naming the first 20
      yield* completed("2027-05-01", "2027-05-23", 2)
      yield* send([{ from: "2027-05-01", to: "2027-05-22", rooms_to_sell: 1 }], 60_000).pipe(
        Effect.provide(Logger.layer([capture]))
      )
      const first20 = Array.from({ length: 20 }, (_, i) => `deluxe 2027-05-${String(i + 1).padStart(2, "0")}`).join(", ")
      expect(warnings[1]).toBe(`channel: the hotel's rooms_to_sell is below the rooms this service took that it does not count ${first20} and 2 more`)
    }))

  it.effect("cancellations: one the figure counted gives nothing back; one it does not count leaves the count", () =>
    Effect.gen(function*() {
      const counted = yield* completed("2027-03-29", "2027-03-30")
      clock.advance(1_000)
      // the hotel counted that booking: it leaves 2 more to sell
      yield* send([{ from: "2027-03-29", to: "2027-03-29", rooms_to_sell: 2 }], 0, yield* feedCursor)
      clock.advance(1_000)
      const since = yield* completed("2027-03-29", "2027-03-30")
      expect(yield* view("2027-03-29")).toMatchObject({ booked_here: 2, booked_here_since: 1, free: 1 })
      yield* cancel(counted)
      // the figure still counts it until the hotel's next message: still 1 free, not 2
      expect(yield* view("2027-03-29")).toMatchObject({ booked_here: 1, booked_here_since: 1, free: 1 })
      yield* cancel(since)
      expect(yield* view("2027-03-29")).toMatchObject({ booked_here: 0, booked_here_since: 0, free: 2 })
    }))

  it.effect("the same message again answers the first answer; its id with another body is refused; a refused message uses up nothing", () =>
    Effect.gen(function*() {
      const channel = yield* Channel
      const as_of = new Date(clock.now()).toISOString()
      const first = { message_id: "dup-1", as_of, updates: [{ room_type_id: deluxe, from: d("2027-04-05"), to: d("2027-04-06"), rooms_to_sell: 3 }] }
      expect(yield* channel.applyMessage(first as never)).toEqual({ message_id: "dup-1", applied: 2, stale: 0 })
      expect(yield* channel.applyMessage({ ...first } as never)).toEqual({ message_id: "dup-1", applied: 2, stale: 0 })
      const other = { ...first, updates: [{ room_type_id: deluxe, from: d("2027-04-05"), to: d("2027-04-06"), rooms_to_sell: 1 }] }
      expect(yield* Effect.flip(channel.applyMessage(other as never))).toMatchObject({ _tag: "MessageIdReused", message_id: "dup-1" })
      expect((yield* view("2027-04-05")).rooms_to_sell).toBe(3)
      const bad = { message_id: "bad-1", as_of, updates: [{ room_type_id: deluxe, from: d("2027-04-05"), to: d("2027-04-05"), rooms_to_sell: 6 }] }
      expect(yield* Effect.flip(channel.applyMessage(bad as never))).toMatchObject({
        _tag: "InvalidMessage",
        issues: [{ path: "updates[0].rooms_to_sell" }]
      })
      const crossed = {
        message_id: "bad-2",
        as_of,
        updates: [
          { room_type_id: deluxe, from: d("2027-04-05"), to: d("2027-04-06"), max_stay: 2 },
          { room_type_id: deluxe, from: d("2027-04-06"), to: d("2027-04-06"), min_stay: 3, rooms_to_sell: 0 }
        ]
      }
      expect(yield* Effect.flip(channel.applyMessage(crossed as never))).toMatchObject({ issues: [{ path: "updates[1].min_stay" }] })
      expect(yield* view("2027-04-06")).toMatchObject({ rooms_to_sell: 3, min_stay: null, max_stay: null })
      expect(yield* channel.applyMessage({ ...bad, updates: [{ ...bad.updates[0]!, rooms_to_sell: 5 }] } as never)).toMatchObject({ applied: 1 })
    }))
  // the guest's own room goes back to the figure that counted it, and the nights the change keeps are
  // neither given back nor taken again (which would count them as taken since, over the figure)
  it.effect("a guest may extend a stay over nights the hotel's figure counted as full with that guest's room", () =>
    Effect.gen(function*() {
      const token = yield* completed("2027-04-12", "2027-04-14")
      clock.advance(1_000)
      // the hotel counted that booking and has nothing else to sell those two nights
      yield* send([{ from: "2027-04-12", to: "2027-04-13", rooms_to_sell: 0 }], 0, yield* feedCursor)
      const management = yield* ReservationManagement
      const longer = { checkin: d("2027-04-12"), checkout: d("2027-04-15"), rooms: deluxeRooms() }
      const quoted = yield* management.quoteChange(token, { action: "quote_change", ...longer })
      yield* management.act(token, { action: "change_stay", ...longer, expected_total: quoted.new_total }, "192.0.2.1")
      expect(yield* view("2027-04-12")).toMatchObject({ booked_here: 1, rooms_to_sell: 0, booked_here_since: 0, free: 0 })
      expect(yield* view("2027-04-14")).toMatchObject({ booked_here: 1, booked_here_since: null, free: 4 })
      // and back to two nights: the third is given back, the two kept are untouched
      const shorter = { checkin: d("2027-04-12"), checkout: d("2027-04-14"), rooms: deluxeRooms() }
      const back = yield* management.quoteChange(token, { action: "quote_change", ...shorter })
      yield* management.act(token, { action: "change_stay", ...shorter, expected_total: back.new_total }, "192.0.2.1")
      expect(yield* view("2027-04-13")).toMatchObject({ booked_here: 1, rooms_to_sell: 0, booked_here_since: 0, free: 0 })
      expect(yield* view("2027-04-14")).toMatchObject({ booked_here: 0, free: 5 })
    }))
})
