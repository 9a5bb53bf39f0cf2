import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { makeTestClock } from "../support/clock.js"
import { post, quoteStay } from "../support/flow.js"
import { TestApp } from "../support/TestApp.js"

// 20 s into the hour: 3580 s until the next
const clock = makeTestClock("2026-11-22T10:00:20Z")

/** The test client is the hotel's own proxy here: it says which guest it forwards. */
const proxy = { intentLimitPerHour: 60, trustedProxies: ["127.0.0.1", "::1"] }
const from = (address: string, extra: Record<string, string> = {}) => ({ "x-forwarded-for": address, ...extra })

const stay = ["2027-01-12", "2027-01-14"] as const
const rooms = [{ room_type_id: "double", adults: 2 }]

layer(TestApp({ config: proxy }).pipe(Layer.provide(clock.layer)), { excludeTestServices: true })(
  "intents per client address (INTENT_LIMIT_PER_HOUR 60)",
  (it) => {
    it.effect("the 61st intent of an hour from one address is 429 with Retry-After; a retry of an earlier one is answered; other addresses are not affected", () =>
      Effect.gen(function*() {
        const quote = yield* quoteStay(...stay, rooms)
        const intent = { quote_id: quote.quote_id, package_code: quote.package_offers[0]!.package_code }
        const first = yield* post("/v1/reservation-intents", intent, from("198.51.100.1", { "idempotency-key": "first" }))
        expect(first.status).toBe(200)
        const more = yield* Effect.forEach(Array.from({ length: 59 }), () => post("/v1/reservation-intents", intent, from("198.51.100.1")))
        expect(more.every((answer) => answer.status === 200)).toBe(true)

        const refused = yield* post("/v1/reservation-intents", intent, from("198.51.100.1"))
        expect([refused.status, refused.headers["retry-after"]]).toEqual([429, "3580"])
        expect(refused.body.error).toMatchObject({ code: "rate_limited", details: { retry_after_seconds: 3580 } })
        expect(refused.body.error.message).toContain("60 reservation intents this hour")
        // with a new key, it is a new intent, and refused as well
        expect((yield* post("/v1/reservation-intents", intent, from("198.51.100.1", { "idempotency-key": "new" }))).status).toBe(429)

        // the idempotent retry of the first makes nothing: it is answered, and counted no more
        const retried = yield* post("/v1/reservation-intents", intent, from("198.51.100.1", { "idempotency-key": "first" }))
        expect([retried.status, retried.headers["idempotent-replayed"], retried.body.reservation_id]).toEqual([
          200,
          "true",
          first.body.reservation_id
        ])

        // another address, and through MCP the same address as counted by REST
        expect((yield* post("/v1/reservation-intents", intent, from("198.51.100.2"))).status).toBe(200)
        const tool = (address: string) =>
          post("/mcp", {
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: { name: "create_reservation_intent", arguments: intent }
          }, from(address))
        const overMcp = yield* tool("198.51.100.1")
        expect(overMcp.body.result.isError).toBe(true)
        expect(overMcp.body.result.structuredContent.error).toMatchObject({ code: "rate_limited", details: { retry_after_seconds: 3580 } })
        expect((yield* tool("198.51.100.3")).body.result.isError).toBe(false)

        // the next hour, the address may again (a live quote: one lasts 15 minutes)
        clock.advance(3580 * 1000)
        const later = yield* quoteStay(...stay, rooms)
        const again = yield* post("/v1/reservation-intents", { quote_id: later.quote_id, package_code: later.package_offers[0]!.package_code }, from("198.51.100.1"))
        expect(again.status).toBe(200)
      }))
  }
)

layer(TestApp({ config: { ...proxy, intentLimitPerHour: 0 } }).pipe(Layer.provide(clock.layer)), { excludeTestServices: true })(
  "INTENT_LIMIT_PER_HOUR 0",
  (it) => {
    it.effect("turns the limit off: 61 intents of an hour from one address are made", () =>
      Effect.gen(function*() {
        clock.set("2026-11-22T10:00:20Z")
        const quote = yield* quoteStay(...stay, rooms)
        const intent = { quote_id: quote.quote_id, package_code: quote.package_offers[0]!.package_code }
        const answers = yield* Effect.forEach(Array.from({ length: 61 }), () => post("/v1/reservation-intents", intent, from("198.51.100.1")))
        expect(answers.every((answer) => answer.status === 200)).toBe(true)
      }))
  }
)
