import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { makeTestClock } from "../support/clock.js"
import { complete, completedBooking, completeWith, get, guest, pendingBooking, post, quoteStay, type RoomAsk } from "../support/flow.js"
import { apiClientWith, TestApp } from "../support/TestApp.js"

// Today is Sunday 2026-11-22 in hotel time.
const clock = makeTestClock("2026-11-22T10:00:00Z")
const MINUTE = 60_000
const HOUR = 60 * MINUTE

const contact = { email: "reservations@belle-rive-nice.example", phone: "+33 4 93 00 12 34" }

/** A stay change through the manage link, at the total its quote_change gives: the raw answer. */
const changeTo = (manageToken: string, checkin: string, checkout: string, rooms: ReadonlyArray<RoomAsk>) =>
  Effect.gen(function*() {
    const link = { "x-reservation-token": manageToken }
    const quoted = yield* post("/v1/reservation-manage", { action: "quote_change", checkin, checkout, rooms }, link)
    return yield* post("/v1/reservation-manage", { action: "change_stay", checkin, checkout, rooms, expected_total: quoted.body.new_total }, link)
  })
const stayOfReservation = (manageToken: string) =>
  Effect.map(get("/v1/reservation-manage", { "x-reservation-token": manageToken }), (view) => view.body.stay)
const twoDoubles = [{ room_type_id: "double", adults: 2, quantity: 2 }]

layer(TestApp().pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("rooms per reservation", (it) => {
  it.effect("more rooms than booking.max_rooms_per_reservation (6): priced, reservable false, an intent is 409 group_booking", () =>
    Effect.gen(function*() {
      const stay = { checkin: "2027-01-12", checkout: "2027-01-14" }
      const group = yield* quoteStay(stay.checkin, stay.checkout, [
        { room_type_id: "double", adults: 2, quantity: 4 },
        { room_type_id: "twin", adults: 1, quantity: 3 }
      ])
      expect(group).toMatchObject({
        status: "available",
        reservable: false,
        not_reservable: { reason: "group_booking", max_rooms: 6, requested_rooms: 7, contact }
      })
      expect(group.package_offers.length).toBeGreaterThan(0)

      // the refusal as the wire carries it
      const intent = yield* post("/v1/reservation-intents", { quote_id: group.quote_id, package_code: "FLEX" })
      expect(intent.status).toBe(409)
      expect(intent.body.error).toEqual({
        code: "quote_not_reservable",
        message: expect.stringContaining("7 rooms are more than the 6 one reservation may hold"),
        details: { quote_id: group.quote_id, reason: "group_booking", max_rooms: 6, requested_rooms: 7, contact }
      })

      // six rooms, in as many requests as they come, are one reservation
      const six = yield* pendingBooking(stay.checkin, stay.checkout, [
        { room_type_id: "double", adults: 2, quantity: 4 },
        { room_type_id: "twin", adults: 1 },
        { room_type_id: "deluxe", adults: 2 }
      ])
      expect(six.quote).toMatchObject({ reservable: true, not_reservable: null })
    }))

  it.effect("an unavailable quote is not reservable either", () =>
    Effect.gen(function*() {
      const quote = yield* quoteStay("2027-01-20", "2027-01-21", [{ room_type_id: "deluxe", adults: 2, quantity: 6 }])
      expect(quote).toMatchObject({ status: "unavailable", reservable: false, not_reservable: null })
    }))
})

layer(TestApp({ config: { bookingLimitPerHour: 2 } }).pipe(Layer.provide(clock.layer)), { excludeTestServices: true })(
  "completions per client address (BOOKING_LIMIT_PER_HOUR 2)",
  (it) => {
    it.effect("the third completion within the hour is 429 rate_limited with Retry-After until the first leaves the hour", () =>
      Effect.gen(function*() {
        const stays = [["2027-02-01", "2027-02-02"], ["2027-02-03", "2027-02-04"], ["2027-02-05", "2027-02-06"]] as const
        const [first, second, third] = yield* Effect.forEach(stays, ([checkin, checkout]) =>
          pendingBooking(checkin, checkout, [{ room_type_id: "double", adults: 2 }]))
        yield* complete(first!.token, first!.total)
        clock.advance(10 * MINUTE)
        yield* complete(second!.token, second!.total)
        // completing the same reservation again answers it again: it is no second completion
        yield* complete(second!.token, second!.total)
        clock.advance(20 * MINUTE)

        // the refusal as the wire carries it: status, Retry-After, body
        const refused = yield* completeWith(third!.token, third!.total / 100)
        expect(refused.status).toBe(429)
        expect(refused.headers["retry-after"]).toBe("1800")
        expect(refused.body.error).toMatchObject({ code: "rate_limited", details: { retry_after_seconds: 1800 } })
        expect(refused.body.error.message).toContain("contact the hotel")

        clock.advance(30 * MINUTE)
        const later = yield* complete(third!.token, third!.total)
        expect(later.status).toBe("GUEST_COMPLETED")
        clock.set("2026-11-22T10:00:00Z")
      }))

    it.effect("a stay change that adds room-nights counts as a booking of the hour; one that adds none is no booking", () =>
      Effect.gen(function*() {
        clock.set("2026-11-25T10:00:00Z")
        const booked = yield* completedBooking("2027-02-10", "2027-02-12", twoDoubles)
        // one night more: the second booking of the hour
        expect((yield* changeTo(booked.manageToken, "2027-02-10", "2027-02-13", twoDoubles)).status).toBe(200)
        const refused = yield* changeTo(booked.manageToken, "2027-02-10", "2027-02-14", twoDoubles)
        expect([refused.status, refused.headers["retry-after"]]).toEqual([429, "3600"])
        expect(refused.body.error.code).toBe("rate_limited")
        expect(yield* stayOfReservation(booked.manageToken)).toMatchObject({ checkin: "2027-02-10", checkout: "2027-02-13" })
        // shorter, then moved at the same size: nothing more taken, so no booking
        expect((yield* changeTo(booked.manageToken, "2027-02-10", "2027-02-12", twoDoubles)).status).toBe(200)
        expect((yield* changeTo(booked.manageToken, "2027-02-20", "2027-02-22", twoDoubles)).status).toBe(200)
        clock.set("2026-11-22T10:00:00Z")
      }))
  }
)

/** A completion through a reverse proxy at the test client's address, which says the guest is at `forwardedFor` (total in cents). */
const completeFrom = (forwardedFor: string, { token, total }: { token: string; total: number }) =>
  Effect.map(
    post("/v1/reservation-complete", { ...guest, expected_total: total / 100 }, { "x-reservation-token": token, "x-forwarded-for": forwardedFor }),
    (response) => response.status
  )

const threeStays = Effect.forEach(
  [["2027-02-10", "2027-02-11"], ["2027-02-12", "2027-02-13"], ["2027-02-14", "2027-02-15"]] as const,
  ([checkin, checkout]) => pendingBooking(checkin, checkout, [{ room_type_id: "double", adults: 2 }])
)

layer(
  TestApp({ config: { bookingLimitPerHour: 1, trustedProxies: ["127.0.0.1", "::1"] } }).pipe(Layer.provide(clock.layer)),
  { excludeTestServices: true }
)("BOOKING_LIMIT_PER_HOUR behind the hotel's own proxy (TRUSTED_PROXIES)", (it) => {
  it.effect("counts each guest's address from X-Forwarded-For, not the proxy's, and believes no hop the client wrote", () =>
    Effect.gen(function*() {
      const [first, second, third] = yield* threeStays
      // the client wrote 203.0.113.7 itself; the proxy appended the address it saw
      expect(yield* completeFrom("203.0.113.7, 198.51.100.1", first!)).toBe(200)
      expect(yield* completeFrom("198.51.100.2", second!)).toBe(200)
      expect(yield* completeFrom("203.0.113.7, 198.51.100.1", third!)).toBe(429)
      clock.set("2026-11-22T10:00:00Z")
    }))
})

layer(TestApp({ config: { bookingLimitPerHour: 1 } }).pipe(Layer.provide(clock.layer)), { excludeTestServices: true })(
  "BOOKING_LIMIT_PER_HOUR without TRUSTED_PROXIES",
  (it) => {
    it.effect("believes no X-Forwarded-For: any client could write one", () =>
      Effect.gen(function*() {
        const [first, second] = yield* threeStays
        expect(yield* completeFrom("198.51.100.1", first!)).toBe(200)
        expect(yield* completeFrom("198.51.100.2", second!)).toBe(429)
        clock.set("2026-11-22T10:00:00Z")
      }))
  }
)

layer(TestApp({ config: { roomNightsPerAddressPerDay: 60 } }).pipe(Layer.provide(clock.layer)), { excludeTestServices: true })(
  "room-nights per client address (ROOM_NIGHTS_PER_ADDRESS_PER_DAY 60)",
  (it) => {
    it.effect("the completion that takes the address's day beyond 60 room-nights is 429 with Retry-After and the hotel's contact; nothing taken", () =>
      Effect.gen(function*() {
        // 2 rooms for 14 nights each: 28 room-nights, twice within the budget, the third beyond it
        const stays = [["2027-03-01", "2027-03-15"], ["2027-04-01", "2027-04-15"], ["2027-05-01", "2027-05-15"]] as const
        const [first, second, third] = yield* Effect.forEach(stays, ([checkin, checkout]) =>
          pendingBooking(checkin, checkout, [{ room_type_id: "double", adults: 2, quantity: 2 }]))
        const availableBefore = yield* quoteStay(stays[2][0], stays[2][1], [{ room_type_id: "double", adults: 2 }])
        yield* complete(first!.token, first!.total)
        clock.advance(2 * HOUR)
        yield* complete(second!.token, second!.total)
        clock.advance(HOUR)

        // the refusal as the wire carries it: status, Retry-After, body
        const refused = yield* completeWith(third!.token, third!.total / 100)
        expect(refused.status).toBe(429)
        // the first completion leaves the 24 hours in 21 hours: then 28 + 28 fit
        expect(refused.headers["retry-after"]).toBe(String(21 * 3600))
        expect(refused.body.error).toEqual({
          code: "rate_limited",
          message: expect.stringContaining("beyond the 60 the hotel books online from one address in 24 hours"),
          details: { retry_after_seconds: 21 * 3600, contact }
        })
        // nothing taken: still pending, the rooms as they were
        expect((yield* (yield* apiClientWith(third!.token)).reservations.publicView()).status).toBe("PENDING_GUEST")
        expect(yield* quoteStay(stays[2][0], stays[2][1], [{ room_type_id: "double", adults: 2 }])).toMatchObject({
          package_offers: availableBefore.package_offers
        })

        // once the first has left the 24 hours, it fits (asked again: the guest link lasts 24 hours)
        clock.advance(21 * HOUR)
        const again = yield* pendingBooking(stays[2][0], stays[2][1], [{ room_type_id: "double", adults: 2, quantity: 2 }])
        yield* complete(again.token, again.total)
        clock.set("2026-11-22T10:00:00Z")
      }))

    it.effect("a stay change counts the room-nights it adds: up to the budget it is made, beyond it 429 with Retry-After and the hotel's contact", () =>
      Effect.gen(function*() {
        clock.set("2026-11-26T10:00:00Z")
        // 28 and 28 room-nights, an hour apart
        const first = yield* completedBooking("2027-07-01", "2027-07-15", twoDoubles)
        clock.advance(HOUR)
        yield* completedBooking("2027-08-01", "2027-08-15", twoDoubles)
        // two nights more of 2 rooms: 4, exactly the 60
        expect((yield* changeTo(first.manageToken, "2027-07-01", "2027-07-17", twoDoubles)).status).toBe(200)
        // one night more: 2 beyond them (after the change of 6 rooms for 30 nights that went through)
        const refused = yield* changeTo(first.manageToken, "2027-07-01", "2027-07-18", twoDoubles)
        expect(refused.status).toBe(429)
        // the first completion leaves the 24 hours in 23 hours: then 2 more fit
        expect(refused.headers["retry-after"]).toBe(String(23 * 3600))
        expect(refused.body.error).toEqual({
          code: "rate_limited",
          message: expect.stringContaining("2 more room-nights would take this client address beyond the 60"),
          details: { retry_after_seconds: 23 * 3600, contact }
        })
        expect((yield* changeTo(first.manageToken, "2027-07-01", "2027-07-31", [{ room_type_id: "double", adults: 2, quantity: 6 }])).status)
          .toBe(429)
        expect(yield* stayOfReservation(first.manageToken)).toMatchObject({ checkin: "2027-07-01", checkout: "2027-07-17" })
        // moved, at the same size: it adds nothing, and is made
        expect((yield* changeTo(first.manageToken, "2027-09-01", "2027-09-17", twoDoubles)).status).toBe(200)
        clock.set("2026-11-22T10:00:00Z")
      }))

    it.effect("a stay beyond the budget by itself is refused with the contact: only the hotel books it", () =>
      Effect.gen(function*() {
        const big = yield* pendingBooking("2027-06-01", "2027-06-22", [{ room_type_id: "double", adults: 2, quantity: 3 }])
        const refused = yield* completeWith(big.token, big.total / 100)
        expect(refused.status).toBe(429)
        expect(refused.body.error.message).toContain("63 more room-nights")
        expect(refused.body.error.details).toEqual({ retry_after_seconds: 86_400, contact })
      }))
  }
)
