import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Result, Schema, Stream } from "effect"
import { HttpClientRequest } from "effect/http"
import { RoomTypeId } from "../../src/Domain/Ids.js"
import { MultiRoomQuoteResponse } from "../../src/Domain/Quote.js"
import { makeTestClock } from "../support/clock.js"
import { eur, quoteStay, stayOf } from "../support/flow.js"
import { apiClient, request, TestApp } from "../support/TestApp.js"

// Today is Sunday 2026-11-22 in hotel time; quotes live 900 s.
const clock = makeTestClock("2026-11-22T10:00:00Z")
const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  request(HttpClientRequest.post(url).pipe(HttpClientRequest.bodyJsonUnsafe(body), HttpClientRequest.setHeaders(headers)))

// Thursday 2026-12-10 to Sunday: low season, Friday and Saturday nights carry the weekend supplement,
// 18 days ahead: no promotion.
const stay = { checkin: "2026-12-10", checkout: "2026-12-13" }
const offerPrices = (body: { package_offers: ReadonlyArray<{ package_code: string; price: unknown }> }) =>
  Object.fromEntries(body.package_offers.map((o) => [o.package_code, o.price]))
/** An offer's price in euros, as the typed client reads it (cents). */
const price = (room_total: number, promotion_discount: number, tourist_tax: number, total: number) => ({
  room_total: eur(room_total),
  promotion_discount: eur(promotion_discount),
  tourist_tax: eur(tourist_tax),
  total: eur(total),
  currency: "EUR"
})

layer(TestApp({ booked: { deluxe: { "2026-12-11": 5 } } }).pipe(Layer.provide(clock.layer)), { excludeTestServices: true })(
  "quotes",
  (it) => {
    it.effect("POST /v1/quotes prices every eligible plan for all rooms, to the cent", () =>
      Effect.gen(function*() {
        const body = yield* quoteStay(stay.checkin, stay.checkout, [{ room_type_id: "double", adults: 2 }], { session_id: "chat-42" })
        expect(body).toMatchObject({
          status: "available",
          environment: "development",
          session_id: "chat-42",
          expires_at: "2026-11-22T11:15:00+01:00",
          stay: { ...stay, nights: 3, check_in_time: "14:00", check_out_time: "12:00" },
          unavailable_rooms: []
        })
        expect(body.quote_id).toMatch(/^q_/)
        // FLEX: 110 (Thu) + 130 + 130 (Fri, Sat: +20) = 370; tax 2 adults x 3 nights x 2.60 = 15.60
        // FLEX_BB: 370 + 2 x 16 x 3 = 466; NRF: 96.80 + 114.40 + 114.40 = 325.60
        expect(offerPrices(body)).toEqual({
          FLEX: price(370, 0, 15.6, 385.6),
          FLEX_BB: price(466, 0, 15.6, 481.6),
          NRF: price(325.6, 0, 15.6, 341.2)
        })
        const flex = body.package_offers[0]
        expect(flex).toMatchObject({
          rate_code: "FLEX",
          refundable: true,
          breakfast_included: false,
          promotions: [],
          free_cancellation_until: "2026-12-08T14:00:00+01:00"
        })
        expect(body.package_offers[2]).toMatchObject({ rate_code: "NRF", refundable: false, free_cancellation_until: null })
      }))

    it.effect("POST /v1/quotes prices many rooms together, with early booking 45+ days ahead", () =>
      Effect.gen(function*() {
        const body = yield* quoteStay("2027-03-11", "2027-03-14", [
          { room_type_id: "double", adults: 2, children_ages: [1], rate_code: "FLEX_BB" },
          { room_type_id: "twin", quantity: 2, adults: 1 }
        ])
        expect(body.session_id).toBeNull()
        expect(body.package_offers.map((o) => o.package_code)).toEqual(["FLEX_BB.EARLY_BOOKING"])
        // double: 370 + 2 x 16 x 3 = 466 (infant free); twins: 2 x (120 + 140 + 140 + 16 x 3) = 896
        // room_total 1362, -10 % = 136.20; tax (2 + 1 + 1) adults x 3 nights x 2.88 = 34.56
        expect(body.package_offers[0]!.price).toEqual(price(1362, 136.2, 34.56, 1260.36))
      }))

    // the answer is encoded without the schema's checks (QuotesGroup): what the domain made must pass them all
    it.effect("every quote answered passes every check of its schema, a promotion, a child and an unavailable room included", () =>
      Effect.gen(function*() {
        const decodeChecked = Schema.decodeUnknownResult(MultiRoomQuoteResponse, { errors: "all", onExcessProperty: "error" })
        for (const body of [
          { ...stay, rooms: [{ room_type_id: "double", adults: 2, children_ages: [1] }], session_id: "chat-1" },
          { checkin: "2027-03-11", checkout: "2027-03-14", rooms: [{ room_type_id: "twin", quantity: 2, adults: 1 }], promo_code: "direct12" },
          { checkin: "2026-12-11", checkout: "2026-12-12", rooms: [{ room_type_id: "deluxe", adults: 2 }], language: "fr" },
          { checkin: "2027-03-11", checkout: "2027-03-14", rooms: [{ room_type_id: "double", adults: 2 }, { room_type_id: "deluxe", adults: 1 }] }
        ]) {
          const response = yield* post("/v1/quotes", body)
          expect(response.status, JSON.stringify(response.body)).toBe(200)
          const decoded = decodeChecked(response.body)
          expect(Result.isSuccess(decoded), JSON.stringify(response.body)).toBe(true)
          // written from the service's value (Handlers/DirectAnswer.ts): the same as the schema's encoding of it
          expect(response.body).toEqual(Schema.encodeSync(MultiRoomQuoteResponse)(Result.getOrThrow(decoded)))
        }
        const single = yield* post("/v1/quote", { ...stay, adults: 2, children: 0, room_type_id: "double" })
        expect(single.status).toBe(200)
        expect(Result.isSuccess(decodeChecked(single.body))).toBe(true)
      }))

    it.effect("POST /v1/quote answers the same shape for one room", () =>
      Effect.gen(function*() {
        const body = yield* (yield* apiClient).quotes.quoteSingleRoom({
          headers: {},
          payload: { ...stayOf(stay.checkin, stay.checkout), adults: 1, children: 1, children_ages: [12], room_type_id: RoomTypeId.make("double") }
        })
        expect(body.rooms).toEqual([{ room_index: 0, room_type_id: "double", quantity: 1, adults: 1, children_ages: [12], rate_code: null }])
        // one adult pays the tax: 1 x 3 x 2.60; breakfast 16 + 16 a night
        expect(offerPrices(body).FLEX_BB).toEqual(price(466, 0, 7.8, 473.8))
      }))

    it.effect("a sold-out room type makes the quote unavailable, as a 200 naming the room request", () =>
      Effect.gen(function*() {
        const body = yield* quoteStay(stay.checkin, stay.checkout, [{ room_type_id: "double", adults: 2 }, { room_type_id: "deluxe", adults: 2 }])
        expect(body.status).toBe("unavailable")
        expect(body.package_offers).toEqual([])
        expect(body.unavailable_rooms).toEqual([
          expect.objectContaining({ room_index: 1, room_type_id: "deluxe", reason: "sold_out" })
        ])
      }))

    it.effect("the non-refundable plan needs check-in 3 days ahead", () =>
      Effect.gen(function*() {
        const body = yield* quoteStay("2026-11-24", "2026-11-25", [{ room_type_id: "twin", adults: 2, rate_code: "NRF" }])
        expect(body.status).toBe("unavailable")
        expect(body.unavailable_rooms[0]!.reason).toBe("rate_not_eligible")
      }))

    // refused requests, malformed bodies and limits: the wire itself
    const base = { ...stay, rooms: [{ room_type_id: "double", adults: 2 }] }
    const badQuotes: ReadonlyArray<[string, string, unknown, string, string]> = [
      ["no rooms", "/v1/quotes", { ...base, rooms: [] }, "invalid_request", "rooms"],
      ["21 room requests", "/v1/quotes", { ...base, rooms: Array(21).fill(base.rooms[0]) }, "invalid_request", "rooms"],
      ["quantity 11", "/v1/quotes", { ...base, rooms: [{ room_type_id: "double", adults: 1, quantity: 11 }] }, "invalid_request", "quantity"],
      ["quantity 0", "/v1/quotes", { ...base, rooms: [{ room_type_id: "double", adults: 1, quantity: 0 }] }, "invalid_request", "quantity"],
      ["session_id of 81 characters", "/v1/quotes", { ...base, session_id: "s".repeat(81) }, "invalid_request", "session_id"],
      ["3 adults", "/v1/quotes", { ...base, rooms: [{ room_type_id: "double", adults: 3 }] }, "invalid_request", "adults"],
      ["4 children in a room", "/v1/quotes", { ...base, rooms: [{ room_type_id: "double", adults: 1, children_ages: [1, 2, 3, 4] }] }, "invalid_request", "children_ages"],
      ["a child of 18", "/v1/quotes", { ...base, rooms: [{ room_type_id: "double", adults: 1, children_ages: [18] }] }, "invalid_request", "children_ages"],
      ["no checkin", "/v1/quotes", { checkout: stay.checkout, rooms: base.rooms }, "invalid_request", "checkin"],
      ["checkout before checkin", "/v1/quotes", { ...base, checkout: "2026-12-09" }, "invalid_dates", "checkout"],
      ["checkin in the past", "/v1/quotes", { ...base, checkin: "2026-11-21" }, "invalid_dates", "checkin"],
      ["31 nights", "/v1/quotes", { ...base, checkin: "2027-01-01", checkout: "2027-02-01" }, "stay_too_long", "30 nights"],
      ["501 days ahead", "/v1/quotes", { ...base, checkin: "2028-04-06", checkout: "2028-04-07" }, "booking_window_exceeded", "500 days"],
      ["2 adults and a child of 5", "/v1/quotes", { ...base, rooms: [{ room_type_id: "double", adults: 2, children_ages: [5] }] }, "occupancy_exceeded", "rooms[0]"],
      ["2 adults and two infants", "/v1/quotes", { ...base, rooms: [{ room_type_id: "twin", adults: 2, children_ages: [0, 1] }] }, "occupancy_exceeded", "rooms[0]"],
      ["unknown room type", "/v1/quotes", { ...base, rooms: [{ room_type_id: "suite", adults: 2 }] }, "unknown_room_type", "room_type_id"],
      ["unknown rate code", "/v1/quotes", { ...base, rooms: [{ room_type_id: "double", adults: 2, rate_code: "HALF_BOARD" }] }, "unknown_rate_code", "rate_code"],
      ["children without ages", "/v1/quote", { ...stay, adults: 1, children: 1, room_type_id: "double" }, "children_ages_mismatch", "children_ages"],
      ["more ages than children", "/v1/quote", { ...stay, adults: 1, children: 0, children_ages: [4], room_type_id: "double" }, "children_ages_mismatch", "children"],
      ["4 children", "/v1/quote", { ...stay, adults: 1, children: 4, children_ages: [1, 2, 3, 4], room_type_id: "double" }, "invalid_request", "children"],
      ["negative children", "/v1/quote", { ...stay, adults: 1, children: -1, room_type_id: "double" }, "invalid_request", "children"],
      ["a body that is an array", "/v1/quote", [], "invalid_request", "request"]
    ]
    for (const [name, url, body, code, field] of badQuotes) {
      it.effect(`POST ${url} with ${name} is 400 ${code}`, () =>
        Effect.gen(function*() {
          const response = yield* post(url, body)
          expect(response.status).toBe(400)
          expect(response.body.error.code).toBe(code)
          expect(response.body.error.message).toContain(field)
        }))
    }

    it.effect("a body that is not JSON is 400 invalid_request", () =>
      Effect.gen(function*() {
        const response = yield* request(
          HttpClientRequest.post("/v1/quotes").pipe(HttpClientRequest.bodyText('{"checkin": "2027-', "application/json"))
        )
        expect(response.status).toBe(400)
        expect(response.body).toEqual({ error: { code: "invalid_request", message: "the request body is not valid JSON" } })
      }))

    it.effect("a body over 64 KiB is 413 payload_too_large", () =>
      Effect.gen(function*() {
        const response = yield* post("/v1/quotes", { ...base, session_id: "x".repeat(70_000) })
        expect(response.status).toBe(413)
        expect(response.body.error.code).toBe("payload_too_large")
      }))

    it.effect("a chunked body over 64 KiB, its length undeclared, is answered 413 payload_too_large", () =>
      Effect.gen(function*() {
        const json = new TextEncoder().encode(JSON.stringify({ ...base, session_id: "x".repeat(70_000) }))
        const chunks = Stream.make(json.subarray(0, 30_000), json.subarray(30_000, 60_000), json.subarray(60_000))
        const response = yield* request(HttpClientRequest.post("/v1/quotes").pipe(HttpClientRequest.bodyStream(chunks, { contentType: "application/json" })))
        expect(response.status).toBe(413)
        expect(response.headers["connection"]).toBe("close")
        expect(response.body.error.code).toBe("payload_too_large")
      }))

    it.effect("a chunked body of any other type over 64 KiB is answered 413 too", () =>
      Effect.gen(function*() {
        const chunks = Stream.make(new Uint8Array(40_000), new Uint8Array(40_000))
        const response = yield* request(HttpClientRequest.post("/v1/quotes").pipe(HttpClientRequest.bodyStream(chunks, { contentType: "application/octet-stream" })))
        expect(response.status).toBe(413)
        expect(response.body.error.code).toBe("payload_too_large")
      }))

    it.effect("a multipart body is 400 invalid_request, large or small, and never a 500", () =>
      Effect.gen(function*() {
        for (const size of [10, 200_000]) {
          const form = new FormData()
          form.append("file", new Blob([new Uint8Array(size)]), "upload.bin")
          const response = yield* request(HttpClientRequest.post("/v1/quotes").pipe(HttpClientRequest.bodyFormData(form)))
          expect(response.status).toBe(400)
          expect(response.body).toEqual({ error: { code: "invalid_request", message: "the request body is not valid JSON" } })
        }
      }))

    // found by the fuzzer: the decode error's report of a body 3,000 arrays deep overflowed the stack (a 500)
    it.effect("JSON nested deeper than 16 levels is 400 invalid_request, however deep, and never a 500", () =>
      Effect.gen(function*() {
        for (const depth of [17, 3_000, 30_000]) {
          const response = yield* request(
            HttpClientRequest.post("/v1/quotes").pipe(HttpClientRequest.bodyText("[".repeat(depth) + "]".repeat(depth), "application/json"))
          )
          expect(response.status).toBe(400)
          expect(response.body).toEqual({
            error: { code: "invalid_request", message: "the request body nests arrays and objects more than 16 levels deep" }
          })
        }
        const sixteen = yield* request(
          HttpClientRequest.post("/v1/quotes").pipe(HttpClientRequest.bodyText("[".repeat(16) + "]".repeat(16), "application/json"))
        )
        expect([sixteen.status, sixteen.body.error.message]).toEqual([400, expect.stringContaining("Expected MultiRoomQuoteRequest")])
      }))

    it.effect("a chunked body within the limit is read whole", () =>
      Effect.gen(function*() {
        const json = new TextEncoder().encode(JSON.stringify({ ...base, session_id: "chunked-ü" }))
        const chunks = Stream.fromIterable(Array.from({ length: json.length }, (_, i) => json.subarray(i, i + 1)))
        const response = yield* request(HttpClientRequest.post("/v1/quotes").pipe(HttpClientRequest.bodyStream(chunks, { contentType: "application/json" })))
        expect(response.status).toBe(200)
        expect(response.body.session_id).toBe("chunked-ü")
      }))
  }
)
