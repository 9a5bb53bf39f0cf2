import { expect, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Layer, Option } from "effect"
import type { HotelDefinition, PromoCodeDefinition } from "../../src/Domain/Hotel.js"
import { type PromotionCode, type RateCode, type ReservationId, RoomTypeId } from "../../src/Domain/Ids.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import { ReservationRepo } from "../../src/Layers/Persistence/ReservationRepo.js"
import { Tokens } from "../../src/Services/Tokens.js"
import { makeTestClock } from "../support/clock.js"
import { complete, completeWith, eur, manageAct, manageWith, pendingBooking, post, quoteStay, stayOf } from "../support/flow.js"
import { demoHotel } from "../support/hotel.js"
import { apiClient, apiClientWith, baseUrl, TestApp } from "../support/TestApp.js"

// Today is Sunday 2026-11-22 in hotel time.
const clock = makeTestClock("2026-11-22T10:00:00Z")

const promo = (code: string, fields: Partial<PromoCodeDefinition> = {}): PromoCodeDefinition => ({
  code: code as PromotionCode,
  name: { en: `${code} code`, fr: `Code ${code}`, ru: `Код ${code}` },
  discount_percent: 15,
  min_nights: 1,
  active: true,
  ...fields
})
/** The demo hotel's DIRECT12, and codes with every limit the hotel file allows. */
const hotel: HotelDefinition = {
  ...demoHotel,
  promo_codes: [
    ...demoHotel.promo_codes,
    promo("LAST1", { max_uses: 1 }),
    promo("SWITCHED_OFF", { active: false }),
    promo("BYGONE", { booking_until: "2026-11-21" as LocalDate }),
    promo("NOT_YET", { booking_from: "2026-11-23" as LocalDate }),
    promo("NRF_ONLY", { rate_codes: ["NRF" as RateCode] }),
    promo("TODAY_ONLY", { booking_until: "2026-11-22" as LocalDate })
  ]
}

// Thursday 2026-12-10 to Sunday, 18 days ahead: no automatic promotion; FLEX 370.00, tax 15.60 for two adults
const stay = { checkin: "2026-12-10", checkout: "2026-12-13" }
const rooms = [{ room_type_id: "double", adults: 2 }]
const single = { ...stay, adults: 2, children: 0, room_type_id: "double" }
/** Raw: for the refusals as the wire carries them. */
const quote = (body: Record<string, unknown>) => post("/v1/quotes", { ...stay, rooms, ...body })
/** The stay's quote through the typed client, with the code when given. */
const quoteWith = (code?: string, checkout = stay.checkout) =>
  quoteStay(stay.checkin, checkout, rooms, code === undefined ? {} : { promo_code: code })
/** The one-room quote through the typed client. */
const quoteOneRoom = (checkout: string, code: string) =>
  Effect.flatMap(apiClient, (api) =>
    api.quotes.quoteSingleRoom({
      headers: {},
      payload: { ...stayOf(stay.checkin, checkout), adults: 2, children: 0, room_type_id: RoomTypeId.make("double"), promo_code: code }
    }))
const packagesOf = (body: { package_offers: ReadonlyArray<{ package_code: string }> }) => body.package_offers.map((o) => o.package_code)
const flexTotal = <A extends number>(body: { package_offers: ReadonlyArray<{ rate_code: string; price: { total: A } }> }) =>
  body.package_offers.find((o) => o.rate_code === "FLEX")!.price.total

/** A pending FLEX reservation quoted with the code: its guest token, total and id. */
const pendingWith = (code: string | undefined, checkout = stay.checkout) =>
  Effect.map(
    pendingBooking(stay.checkin, checkout, rooms, "FLEX", "en", code === undefined ? {} : { promo_code: code }),
    ({ intent, token, total }) => ({ token, total, id: intent.reservation_id })
  )
const record = (id: ReservationId) => Effect.flatMap(ReservationRepo, (repo) => repo.find(id)).pipe(Effect.map(Option.getOrThrow))
const cancel = (id: ReservationId) =>
  Effect.gen(function*() {
    const token = Option.getOrThrow(yield* (yield* Tokens).reveal(id, "manage"))
    yield* manageAct(token, { action: "cancel" })
  })

/** The official MCP client, over Streamable HTTP, connected to the in-process server's /mcp. */
const connect = Effect.acquireRelease(
  Effect.flatMap(baseUrl, (base) =>
    Effect.promise(async () => {
      const client = new Client({ name: "promo-test-agent", version: "1.0.0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
      return client
    })),
  (client) => Effect.promise(() => client.close())
)

layer(TestApp({ hotel }).pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("promo codes", (it) => {
  it.effect("POST /v1/quotes with DIRECT12 on 3 nights: every offer applies it, applied true", () =>
    Effect.gen(function*() {
      const body = yield* quoteWith("DIRECT12")
      expect(body.promo_code).toEqual({ code: "DIRECT12", applied: true })
      expect(packagesOf(body)).toEqual(["FLEX.DIRECT12", "FLEX_BB.DIRECT12", "NRF.DIRECT12"])
      // 12 %: 13.20 + 15.60 + 15.60 = 44.40; 370.00 - 44.40 + 15.60 = 341.20
      expect(body.package_offers[0]).toMatchObject({
        promotions: ["DIRECT12"],
        price: { room_total: eur(370), promotion_discount: eur(44.4), tourist_tax: eur(15.6), total: eur(341.2) }
      })
      // without a code: null, and the full price
      const plain = yield* quoteWith()
      expect(plain.promo_code).toBeNull()
      expect(flexTotal(plain)).toBe(eur(385.6))
    }))

  it.effect("POST /v1/quote takes the code in any case: applied on 2 nights, not on 1 (offers without it, no error)", () =>
    Effect.gen(function*() {
      const twoNights = yield* quoteOneRoom("2026-12-12", " direct12 ")
      expect(twoNights.promo_code).toEqual({ code: "DIRECT12", applied: true })
      expect(packagesOf(twoNights)).toEqual(["FLEX.DIRECT12", "FLEX_BB.DIRECT12", "NRF.DIRECT12"])
      const oneNight = yield* quoteOneRoom("2026-12-11", "Direct12")
      expect(oneNight.promo_code).toEqual({ code: "DIRECT12", applied: false })
      expect(packagesOf(oneNight)).toEqual(["FLEX", "FLEX_BB", "NRF"])
      expect(oneNight.package_offers.every((o) => o.promotions.length === 0)).toBe(true)
    }))

  it.effect("a code for some plans is applied on those only, and counts as applied", () =>
    Effect.gen(function*() {
      const body = yield* quoteWith("nrf_only")
      expect(body.promo_code).toEqual({ code: "NRF_ONLY", applied: true })
      expect(packagesOf(body)).toEqual(["FLEX", "FLEX_BB", "NRF.NRF_ONLY"])
      const flexOnly = yield* quoteStay(stay.checkin, stay.checkout, [{ ...rooms[0]!, rate_code: "FLEX" }], { promo_code: "NRF_ONLY" })
      expect(flexOnly.promo_code).toEqual({ code: "NRF_ONLY", applied: false })
    }))

  it.effect("unknown, switched off, outside its booking dates: 400 invalid_promo_code with the reason, on both endpoints", () =>
    Effect.gen(function*() {
      for (const [code, reason] of [["NOPE", "unknown"], ["", "unknown"], ["EARLY_BOOKING", "unknown"], ["switched_off", "not_active"], ["BYGONE", "not_active"], ["NOT_YET", "not_active"]]) {
        for (const answer of [yield* quote({ promo_code: code }), yield* post("/v1/quote", { ...single, promo_code: code })]) {
          expect(answer.status).toBe(400)
          expect(answer.body.error).toMatchObject({ code: "invalid_promo_code", details: { reason } })
          expect(answer.body.error.message).toContain("promo_code")
        }
      }
    }))

  it.effect("a code that is too long, not a string or not storable text is 400 invalid_request, never a 500", () =>
    Effect.gen(function*() {
      for (const code of ["D".repeat(41), 2 ** 31, 2 ** 53, -1, null, ["DIRECT12"], { code: "DIRECT12" }, "DIRECT\u000012", "\uD800"]) {
        for (const answer of [yield* quote({ promo_code: code }), yield* post("/v1/quote", { ...single, promo_code: code })]) {
          expect(answer.status).toBe(400)
          expect(answer.body.error.code).toBe("invalid_request")
          expect(answer.body.error.message).toContain("promo_code")
        }
      }
      // 40 characters is a code that may exist: simply unknown
      expect((yield* quote({ promo_code: "D".repeat(40) })).body.error.code).toBe("invalid_promo_code")
    }))

  it.effect("the reservation keeps the code its offer applied, and a code that was not applied is not kept", () =>
    Effect.gen(function*() {
      const applied = yield* pendingWith("direct12")
      expect((yield* record(applied.id)).promo_code).toBe("DIRECT12")
      expect((yield* record(applied.id)).offer.package_code).toBe("FLEX.DIRECT12")
      const notApplied = yield* pendingWith("DIRECT12", "2026-12-11")
      expect((yield* record(notApplied.id)).promo_code).toBeNull()
      // each room's share is priced with the code too, as completion prices it
      const twoRooms = yield* quoteStay(stay.checkin, stay.checkout, [...rooms, { room_type_id: "twin", adults: 1 }], { promo_code: "DIRECT12" })
      const offer = twoRooms.package_offers[0]!
      const intent = yield* (yield* apiClient).reservations.createIntent({
        headers: {},
        payload: { quote_id: twoRooms.quote_id, package_code: offer.package_code, language: "en" }
      })
      const shares = (yield* record(intent.reservation_id)).line_totals
      expect(shares.reduce((a, b) => a + b, 0)).toBe(offer.price.total)
      const done = yield* complete(applied.token, applied.total)
      expect(done.price.total).toBe(eur(341.2))
      expect((yield* record(applied.id))).toMatchObject({ status: "GUEST_COMPLETED", promo_code: "DIRECT12" })
    }))

  it.effect("the public, completion and manage views name the code, in the reservation's language", () =>
    Effect.gen(function*() {
      const { intent, offer, token } = yield* pendingBooking(stay.checkin, stay.checkout, rooms, "FLEX", "fr", { promo_code: "DIRECT12" })
      const named = { code: "DIRECT12", name: "Code de réservation directe" }
      const publicView = yield* (yield* apiClientWith(token)).reservations.publicView()
      expect(publicView).toMatchObject({ promo_code: named, package: { package_code: "FLEX.DIRECT12", promotions: ["DIRECT12"] } })
      const done = yield* complete(token, offer.price.total)
      expect(done.promo_code).toEqual(named)
      const manageToken = Option.getOrThrow(yield* (yield* Tokens).reveal(intent.reservation_id, "manage"))
      const managed = yield* (yield* manageWith(manageToken)).view()
      expect(managed.promo_code).toEqual(named)
      // without a code: null everywhere
      const plain = yield* pendingWith(undefined)
      expect((yield* (yield* apiClientWith(plain.token)).reservations.publicView()).promo_code).toBeNull()
      expect((yield* complete(plain.token, plain.total)).promo_code).toBeNull()
    }))

  it.effect("max_uses 1: the second completion is 409 price_changed with the total without it; a cancellation gives the use back", () =>
    Effect.gen(function*() {
      const first = yield* pendingWith("LAST1", "2026-12-12")
      const second = yield* pendingWith("last1", "2026-12-12")
      expect(first.total).toBe(second.total)
      const withoutCode = flexTotal(yield* quoteWith(undefined, "2026-12-12"))
      expect(withoutCode).toBeGreaterThan(first.total)

      yield* complete(first.token, first.total)
      // the use is gone: new quotes are refused, the other reservation is priced without the code
      const usedUp = yield* quote({ promo_code: "LAST1" })
      expect(usedUp.status).toBe(400)
      expect(usedUp.body.error).toMatchObject({ code: "invalid_promo_code", details: { reason: "used_up" } })
      const refused = yield* completeWith(second.token, second.total / 100)
      expect(refused.status).toBe(409)
      expect(refused.body.error).toMatchObject({ code: "price_changed", details: { previous_total: second.total / 100, new_total: withoutCode / 100 } })
      yield* complete(second.token, withoutCode)
      expect(yield* record(second.id)).toMatchObject({ promo_code: null, offer: { package_code: "FLEX", promotions: [] } })

      // cancelling the completed second one gives nothing back (it used no code); the first one does
      yield* cancel(second.id)
      expect((yield* quote({ promo_code: "LAST1" })).status).toBe(400)
      yield* cancel(first.id)
      const again = yield* quoteWith("LAST1")
      expect(again.promo_code).toEqual({ code: "LAST1", applied: true })
    }))

  it.effect("a code that stops being usable before the guest completes: 409 price_changed with the total without it", () =>
    Effect.gen(function*() {
      const pending = yield* pendingWith("today_only")
      expect((yield* record(pending.id)).promo_code).toBe("TODAY_ONLY")
      const withoutCode = flexTotal(yield* quoteWith())
      // 01:00 on Monday 23 November in hotel time: past booking_until, the guest link still valid
      clock.set("2026-11-23T00:00:00Z")
      const refused = yield* completeWith(pending.token, pending.total / 100)
      expect(refused.status).toBe(409)
      expect(refused.body.error).toMatchObject({ code: "price_changed", details: { previous_total: pending.total / 100, new_total: withoutCode / 100 } })
      const accepted = yield* complete(pending.token, withoutCode)
      expect(accepted.promo_code).toBeNull()
      expect((yield* record(pending.id)).promo_code).toBeNull()
    }).pipe(Effect.ensuring(Effect.sync(() => clock.set("2026-11-22T10:00:00Z")))))

  it.effect("MCP quote_stay takes promo_code: the same offers as REST; a refused code is a tool error with the REST body", () =>
    Effect.gen(function*() {
      const client = yield* connect
      const result = yield* Effect.promise(() => client.callTool({ name: "quote_stay", arguments: { ...stay, rooms, promo_code: "direct12" } }))
      expect(result.isError).not.toBe(true)
      const answer = result.structuredContent as any
      expect(answer.promo_code).toEqual({ code: "DIRECT12", applied: true })
      // both as the wire carries them
      const rest = (yield* quote({ promo_code: "DIRECT12" })).body
      expect(answer.package_offers).toEqual(rest.package_offers)

      const refused = yield* Effect.promise(() => client.callTool({ name: "quote_stay", arguments: { ...stay, rooms, promo_code: "BYGONE" } }))
      expect(refused.isError).toBe(true)
      expect((refused.structuredContent as any).error).toMatchObject({ code: "invalid_promo_code", details: { reason: "not_active" } })
      const tooLong = yield* Effect.promise(() =>
        client.callTool({ name: "quote_stay", arguments: { ...stay, rooms, promo_code: "D".repeat(41) } })
      )
      expect(tooLong.isError).toBe(true)
      expect((tooLong.structuredContent as any).error.code).toBe("invalid_request")
      // the tool's input schema says the limit
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.find((t) => t.name === "quote_stay")!.inputSchema.properties!.promo_code).toMatchObject({ maxLength: 40 })
    }))
})
