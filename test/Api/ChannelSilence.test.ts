import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, Option, Redacted } from "effect"
import type { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { makeTestClock } from "../support/clock.js"
import { completeWith, get, pendingReservation, post } from "../support/flow.js"
import { parsePrometheus, valueOf } from "../support/prometheus.js"
import { TestApp } from "../support/TestApp.js"

/*
 * A silent channel is seen (docs/decisions.md#operators): with CHANNEL_TOKEN set, no message for
 * CHANNEL_STALE_AFTER_MINUTES makes health say `channel: "stale"` (still 200), logs one WARN for
 * the silence, and shows in `hotel.channel.last_message_age`; the next message, a heartbeat
 * included, ends it.
 */

const clock = makeTestClock("2026-11-22T10:00:00Z")
const MINUTE = 60_000
const METRICS_TOKEN = "metrics-token-of-the-scraper-0123456789"
const CHANNEL_TOKEN = "channel-token-of-the-hotel-0123456789"
const hotelSystem = { authorization: `Bearer ${CHANNEL_TOKEN}` }

const warnings: Array<string> = []
const withApp = (config: Partial<typeof AppConfig.Service>) =>
  TestApp({ config }).pipe(
    Layer.provide(clock.layer),
    Layer.provide(Logger.layer([
      Logger.make(({ logLevel, message }) => {
        if (logLevel === "Warn") warnings.push(String(Array.isArray(message) ? message[0] : message))
      })
    ]))
  )

const health = Effect.map(get("/v1/health"), (r) => {
  expect(r.status).toBe(200)
  return r.body
})
const lastMessageAge = Effect.map(
  get("/internal/metrics", { authorization: `Bearer ${METRICS_TOKEN}` }),
  (r) => valueOf(parsePrometheus(r.text), "hotel_channel_last_message_age_seconds")
)
const silenceWarnings = () => warnings.filter((w) => w.startsWith("channel: no message")).length
let sent = 0
const heartbeat = Effect.map(
  post("/internal/v1/ari", { message_id: `heartbeat-${++sent}`, as_of: new Date(clock.now()).toISOString(), updates: [] }, hotelSystem),
  (r) => expect(r.status).toBe(200)
)

describe("a silent channel", () => {
  layer(withApp({
    channelToken: Option.some(Redacted.make(CHANNEL_TOKEN)),
    metricsToken: Option.some(Redacted.make(METRICS_TOKEN)),
    channelStaleAfterMinutes: 30
  }), { excludeTestServices: true })("CHANNEL_TOKEN set, CHANNEL_STALE_AFTER_MINUTES=30", (it) => {
    it.effect("health says stale after 30 minutes without a message, one WARN per silence, the age in the metric; a heartbeat ends it", () =>
      Effect.gen(function*() {
        clock.set("2026-11-22T10:00:00Z")
        yield* heartbeat
        expect(yield* health).toEqual({ status: "ok", database: "ok", channel: "ok" })
        clock.advance(29 * MINUTE)
        expect((yield* health).channel).toBe("ok")
        expect(yield* lastMessageAge).toBe(29 * 60)

        clock.advance(2 * MINUTE)
        expect(yield* health).toEqual({ status: "ok", database: "ok", channel: "stale" })
        clock.advance(5 * MINUTE)
        expect((yield* health).channel).toBe("stale")
        expect(yield* lastMessageAge).toBe(36 * 60)
        expect(silenceWarnings()).toBe(1)

        yield* heartbeat
        // one health answer serves its second
        clock.advance(1000)
        expect((yield* health).channel).toBe("ok")
        expect(yield* lastMessageAge).toBe(1)

        // a second silence is a second WARN
        clock.advance(31 * MINUTE)
        expect((yield* health).channel).toBe("stale")
        expect(silenceWarnings()).toBe(2)
      }))
  })

  layer(withApp({
    channelToken: Option.some(Redacted.make(CHANNEL_TOKEN)),
    channelStaleAfterMinutes: 30,
    channelStaleAction: "stop_selling"
  }), { excludeTestServices: true })("CHANNEL_STALE_ACTION=stop_selling", (it) => {
    it.effect("a silent channel sells nothing more: quotes, the calendar and a completion say channel_stale; a heartbeat sells again", () =>
      Effect.gen(function*() {
        yield* heartbeat
        const stay = { checkin: "2026-12-10", checkout: "2026-12-12" }
        const rooms = [{ room_type_id: "double", adults: 2 }, { room_type_id: "twin", adults: 1 }]
        expect((yield* post("/v1/quotes", { ...stay, rooms })).body.status).toBe("available")
        const pending = yield* pendingReservation(stay.checkin, stay.checkout, [{ room_type_id: "double", adults: 2 }])

        clock.advance(31 * MINUTE)
        const silent = (yield* post("/v1/quotes", { ...stay, rooms })).body
        expect(silent.status).toBe("unavailable")
        expect(silent.unavailable_rooms.map((r: { reason: string }) => r.reason)).toEqual(["channel_stale", "channel_stale"])
        const calendar = yield* get(`/v1/calendar?from=2026-12-10&to=2026-12-11&nights=1&adults=2`)
        expect(calendar.body.days.map((d: { reason: string }) => d.reason)).toEqual(["channel_stale", "channel_stale"])
        const refused = yield* completeWith(pending.token, pending.total)
        expect([refused.status, refused.body.error.code, refused.body.error.details.rooms[0].reason]).toEqual([
          409,
          "availability_changed",
          "channel_stale"
        ])

        yield* heartbeat
        expect((yield* post("/v1/quotes", { ...stay, rooms })).body.status).toBe("available")
        expect((yield* completeWith(pending.token, pending.total)).status).toBe(200)
      }))
  })

  layer(withApp({}), { excludeTestServices: true })("CHANNEL_TOKEN unset", (it) => {
    it.effect("health says nothing of a channel", () =>
      Effect.gen(function*() {
        clock.advance(24 * 60 * MINUTE)
        expect(yield* health).toEqual({ status: "ok", database: "ok" })
      }))
  })
})
