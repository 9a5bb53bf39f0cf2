import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { readHotelFile } from "../../../src/Layers/Persistence/HotelFile.js"
import { demoHotel } from "../../support/hotel.js"

const withFile = (content: string) => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "hotel-file-")), "hotel.json")
  fs.writeFileSync(file, content)
  return file
}
const demoJson = () => JSON.parse(fs.readFileSync("data/hotel.json", "utf8"))
const refusal = (content: string) => readHotelFile(withFile(content)).pipe(Effect.flip, Effect.map((e) => e.message))

describe("hotel definition file", () => {
  it.effect("the demo hotel is valid and complete", () =>
    Effect.gen(function*() {
      const hotel = yield* readHotelFile("data/hotel.json")
      expect(hotel).toEqual(demoHotel)
      expect(hotel.room_types.map((r) => [r.id, r.size_m2, r.inventory])).toEqual([["double", 18, 12], ["twin", 20, 8], ["deluxe", 28, 5]])
      expect(hotel.rate_plans.map((p) => p.code)).toEqual(["FLEX", "FLEX_BB", "NRF"])
      expect(hotel.promotions.map((p) => p.code)).toEqual(["EARLY_BOOKING", "LONG_STAY"])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("a bad field is refused with its path", () =>
    Effect.gen(function*() {
      const bad = demoJson()
      bad.room_types[1].inventory = -1
      bad.rate_plans[2].discount_percent = "12"
      const message = yield* refusal(JSON.stringify(bad))
      expect(message).toContain("room_types.1.inventory")
      expect(message).toContain("rate_plans.2.discount_percent")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("seasons must cover every month once and every room type needs a rate per season", () =>
    Effect.gen(function*() {
      const bad = demoJson()
      bad.seasons[0].months = [11, 12, 1, 2]
      delete bad.room_types[2].base_rates_cents.high
      const message = yield* refusal(JSON.stringify(bad))
      expect(message).toContain("seasons: seasons must cover every month exactly once")
      expect(message).toContain("room_types.2.base_rates_cents.high")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("a guest-facing text needs English, and the cancellation and payment policies are required", () =>
    Effect.gen(function*() {
      const bad = demoJson()
      delete bad.room_types[0].name.en
      bad.rate_plans[1].description = "Room and breakfast"
      delete bad.policies.payment
      const message = yield* refusal(JSON.stringify(bad))
      expect(message).toContain("room_types.0.name.en")
      expect(message).toContain("rate_plans.1.description")
      expect(message).toContain("policies.payment: policy payment is required")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("promo codes: DIRECT12 in the demo hotel, min_nights 1 by default, and a file without promo_codes still loads", () =>
    Effect.gen(function*() {
      const hotel = yield* readHotelFile("data/hotel.json")
      expect(hotel.promo_codes).toEqual([{
        code: "DIRECT12",
        name: { en: "Direct booking code", fr: "Code de réservation directe", ru: "Код прямого бронирования" },
        discount_percent: 12,
        min_nights: 2,
        active: true
      }])
      const defaults = demoJson()
      delete defaults.promo_codes[0].min_nights
      expect((yield* readHotelFile(withFile(JSON.stringify(defaults)))).promo_codes[0]!.min_nights).toBe(1)
      const older = demoJson()
      delete older.promo_codes
      expect((yield* readHotelFile(withFile(JSON.stringify(older)))).promo_codes).toEqual([])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("promo codes: unique case-insensitively and apart from promotions, percent 1–100, dates in order, known plans", () =>
    Effect.gen(function*() {
      const direct = demoJson().promo_codes[0]
      const withCodes = (...codes: ReadonlyArray<object>) => {
        const bad = demoJson()
        bad.promo_codes = codes
        return refusal(JSON.stringify(bad))
      }
      const duplicate = "promo_codes: promo codes must be unique (case-insensitively) and differ from promotion codes"
      expect(yield* withCodes(direct, { ...direct, code: "direct12" })).toContain(duplicate)
      expect(yield* withCodes({ ...direct, code: "Long_Stay" })).toContain(duplicate)
      expect(yield* withCodes({ ...direct, discount_percent: 0 })).toContain("promo_codes.0.discount_percent")
      expect(yield* withCodes({ ...direct, discount_percent: 101 })).toContain("promo_codes.0.discount_percent")
      expect(yield* withCodes({ ...direct, min_nights: 0 })).toContain("promo_codes.0.min_nights")
      expect(yield* withCodes({ ...direct, max_uses: 0 })).toContain("promo_codes.0.max_uses")
      expect(yield* withCodes({ ...direct, max_uses: 1.5 })).toContain("promo_codes.0.max_uses")
      expect(yield* withCodes({ ...direct, booking_from: "2027-02-01", booking_until: "2027-01-31" }))
        .toContain("promo_codes.0.booking_until")
      expect(yield* withCodes({ ...direct, stay_from: "2027-02-01", stay_until: "2027-01-31" })).toContain("promo_codes.0.stay_until")
      expect(yield* withCodes({ ...direct, stay_from: "2027-02-30" })).toContain("promo_codes.0.stay_from")
      expect(yield* withCodes({ ...direct, rate_codes: ["FLEX", "GOLD"] })).toContain("promo_codes.0.rate_codes.1: unknown rate plan GOLD")
      expect(yield* withCodes({ ...direct, code: "DIRECT 12" })).toContain("promo_codes.0.code")
      expect(yield* withCodes({ ...direct, code: "D".repeat(41) })).toContain("promo_codes.0.code")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("a file that is not JSON, or missing, is refused with its name", () =>
    Effect.gen(function*() {
      expect(yield* refusal("{ not json")).toMatch(/invalid hotel file .*hotel\.json/)
      const missing = yield* readHotelFile("/nonexistent/hotel.json").pipe(Effect.flip)
      expect(missing.message).toContain("cannot read hotel file /nonexistent/hotel.json")
    }).pipe(Effect.provide(NodeServices.layer)))
})
