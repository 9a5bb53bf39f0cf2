import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { appLanguage, intentArguments, intentOutcome, namedRooms, offerGroupsOf, quoteOf } from "../../public/offers-app-model.js"
import { IdempotencyKey } from "../../src/Api/Contract/RequestHeaders.js"
import { PackageCode, QuoteId } from "../../src/Domain/Ids.js"
import { MultiRoomQuoteResponse } from "../../src/Domain/Quote.js"

const offer = (package_code: string) => ({
  package_code,
  rate_code: package_code,
  name: package_code,
  description: "",
  breakfast_included: true,
  refundable: true,
  free_cancellation_until: "2026-12-08T14:00:00+01:00",
  promotions: [],
  price: { room_total: 466, promotion_discount: 0, tourist_tax: 15.6, total: 481.6, currency: "EUR" }
})

/** A quote as quote_stay answers it: one double with an infant, two twins. */
const QUOTE = Schema.decodeUnknownSync(MultiRoomQuoteResponse)({
  status: "available",
  environment: "test",
  quote_id: "q_Dp_iPJAvs0HNRDSuqZ_X",
  session_id: null,
  expires_at: "2026-11-22T11:15:00+01:00",
  stay: { checkin: "2026-12-10", checkout: "2026-12-13", nights: 3, check_in_time: "14:00", check_out_time: "12:00" },
  rooms: [
    { room_index: 0, room_type_id: "double", quantity: 1, adults: 2, children_ages: [0], rate_code: null },
    { room_index: 1, room_type_id: "twin", quantity: 2, adults: 2, children_ages: [], rate_code: null }
  ],
  package_offers: [offer("FLEX_BB"), offer("SAVER")],
  unavailable_rooms: [],
  reservable: true,
  not_reservable: null,
  promo_code: null
})
const ENCODED = Schema.encodeSync(MultiRoomQuoteResponse)(QUOTE)

const TYPES = [
  { id: "double", name: "Chambre Double", description: "Côté cour." },
  { id: "twin", name: "Chambre Twin", description: "Deux lits." }
]

describe("the offers app's reading of the host's messages (public/offers-app-model.js)", () => {
  it("finds the quote in quote_stay's result: its structured content, else its text; never in a refusal", () => {
    expect(quoteOf({ structuredContent: ENCODED, content: [{ type: "text", text: JSON.stringify(ENCODED) }] })).toEqual(ENCODED)
    expect(quoteOf({ content: [{ type: "text", text: JSON.stringify(ENCODED) }] })).toEqual(ENCODED)
    expect(quoteOf({ isError: true, structuredContent: { error: { code: "invalid_request", message: "…" } } })).toBeNull()
    expect(quoteOf({ content: [{ type: "text", text: "not JSON" }] })).toBeNull()
    expect(quoteOf({ structuredContent: { error: { code: "x" } } })).toBeNull()
    expect(quoteOf({})).toBeNull()
    expect(quoteOf(null)).toBeNull()
  })

  it("makes the booking page's offer groups of it: one group for all its rooms, named in the page's language", () => {
    const [group, ...more] = offerGroupsOf(QUOTE, TYPES)
    expect(more).toEqual([])
    expect(group!.quote).toBe(QUOTE)
    expect(group!.type).toEqual({ id: "double-twin", name: "Chambre Double, 2 × Chambre Twin", description: null })
    // one room type: its description too
    const single = { ...QUOTE, rooms: [QUOTE.rooms[1]!] }
    expect(offerGroupsOf(single, TYPES)[0]!.type).toEqual({ id: "twin", name: "2 × Chambre Twin", description: "Deux lits." })
    // a room type the app was not told of is named by its id
    expect(namedRooms(QUOTE, []).map((room) => room.room_name)).toEqual(["double", "twin"])
  })

  it("speaks the language quote_stay was asked in, else the host's locale, else English", () => {
    const languages = ["en", "fr", "ru"]
    expect(appLanguage({ language: "ru" }, "fr-FR", languages)).toBe("ru")
    expect(appLanguage({}, "fr-CA", languages)).toBe("fr")
    expect(appLanguage(null, "RU", languages)).toBe("ru")
    expect(appLanguage({ language: "de" }, "de-DE", languages)).toBe("en")
    expect(appLanguage(undefined, undefined, languages)).toBe("en")
  })

  it("asks create_reservation_intent for the offer chosen, with a key that makes choosing it again answer the same reservation", () => {
    const args = intentArguments(QUOTE, QUOTE.package_offers[1]!, "fr")
    expect(args).toEqual({ quote_id: QUOTE.quote_id, package_code: "SAVER", language: "fr", idempotency_key: `offers-app:${QUOTE.quote_id}:SAVER:fr` })
    expect(intentArguments(QUOTE, QUOTE.package_offers[1]!, "fr")).toEqual(args)
    expect(intentArguments(QUOTE, QUOTE.package_offers[0]!, "fr").idempotency_key).not.toBe(args.idempotency_key)
    // within the idempotency key's schema for the longest ids the service issues (64 characters each)
    const longest = { ...QUOTE, quote_id: Schema.decodeUnknownSync(QuoteId)("q".repeat(64)) }
    const longestOffer = { ...QUOTE.package_offers[0]!, package_code: Schema.decodeUnknownSync(PackageCode)("P".repeat(64)) }
    expect(Schema.is(IdempotencyKey)(intentArguments(longest, longestOffer, "ru").idempotency_key)).toBe(true)
  })

  it("reads the intent's answer: the way on, a quote that no longer holds, or a failure to try again", () => {
    const made = { continue_url: "https://hotel.test/complete#token=abc", expires_at: "2026-11-23T11:00:00+01:00" }
    expect(intentOutcome({ structuredContent: made })).toEqual({ continueUrl: made.continue_url, expiresAt: made.expires_at })
    expect(intentOutcome({ content: [{ type: "text", text: JSON.stringify(made) }] })).toEqual({ continueUrl: made.continue_url, expiresAt: made.expires_at })
    for (const code of ["quote_expired", "quote_not_reservable", "not_found"]) {
      expect(intentOutcome({ isError: true, structuredContent: { error: { code, message: "…" } } }), code).toEqual({ stale: true })
    }
    for (const code of ["rate_limited", "idempotency_in_progress", "unavailable"]) {
      expect(intentOutcome({ isError: true, structuredContent: { error: { code, message: "…" } } }), code).toEqual({ failed: true })
    }
    expect(intentOutcome({ isError: true, structuredContent: made })).toEqual({ failed: true })
    expect(intentOutcome(null)).toEqual({ failed: true })
  })
})
