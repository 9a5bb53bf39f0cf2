import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import type { HttpClient } from "effect/http"
import { ROUTES } from "../../src/Api/Transport/RequestObservation.js"
import { addDays, type LocalDate } from "../../src/Domain/LocalDate.js"
import type { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { makeTestClock } from "../support/clock.js"
import { eventually } from "../support/eventually.js"
import { completedBooking, completeWith, get, manageAct, pendingReservation, post } from "../support/flow.js"
import { type Exposition, parsePrometheus, samplesOf, valueOf } from "../support/prometheus.js"
import { mailingTestApp } from "../support/MailingTestApp.js"
import { TestApp } from "../support/TestApp.js"

/*
 * The operators' metrics (docs/decisions.md#operators): `GET /internal/metrics` behind its token, in Prometheus's
 * text format, with the series docs/observability.md documents, the counts a scripted day causes, and
 * labels only from closed sets.
 */

const clock = makeTestClock("2026-11-22T10:00:00Z")
const TODAY = "2026-11-22" as LocalDate
const day = (days: number) => addDays(TODAY, days)
const METRICS_TOKEN = "metrics-token-of-the-scraper-0123456789"
const CHANNEL_TOKEN = "channel-token-of-the-hotel-0123456789"
const scraper = { authorization: `Bearer ${METRICS_TOKEN}` }
const hotelSystem = { authorization: `Bearer ${CHANNEL_TOKEN}` }
const metricsOn = {
  metricsToken: Option.some(Redacted.make(METRICS_TOKEN)),
  channelToken: Option.some(Redacted.make(CHANNEL_TOKEN))
}

const withApp = (config: Partial<typeof AppConfig.Service>) => TestApp({ config }).pipe(Layer.provide(clock.layer))

const scrape = Effect.gen(function*() {
  const response = yield* get("/internal/metrics", scraper)
  expect(response.status).toBe(200)
  expect(response.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/)
  return parsePrometheus(response.text)
})

/** The documented series of the domain, each with every value of its label, as a dashboard reads them. */
const DOMAIN_SERIES: ReadonlyArray<readonly [string, Record<string, string>]> = [
  ["hotel_quotes_total", { outcome: "available" }],
  ["hotel_quotes_total", { outcome: "unavailable" }],
  ["hotel_intents_total", {}],
  ["hotel_completions_total", {}],
  ["hotel_conflicts_total", { reason: "price_changed" }],
  ["hotel_conflicts_total", { reason: "availability_changed" }],
  ["hotel_cancellations_total", {}],
  ["hotel_stay_changes_total", {}],
  ["hotel_room_nights_sold_total", {}],
  ["hotel_outbox_failures_total", { kind: "email" }],
  ["hotel_outbox_failures_total", { kind: "pms" }],
  ["hotel_channel_messages_total", { outcome: "applied" }],
  ["hotel_channel_messages_total", { outcome: "stale" }],
  ["hotel_channel_messages_total", { outcome: "refused" }],
  ["hotel_channel_oversold_nights_total", {}],
  ["hotel_requests_refused_total", { reason: "rate_limited" }],
  ["hotel_requests_refused_total", { reason: "connections" }],
  ["hotel_requests_refused_total", { reason: "booking_limit" }],
  ["hotel_requests_refused_total", { reason: "room_nights" }],
  ["hotel_outbox_pending", {}],
  ["hotel_outbox_oldest_age_seconds", {}],
  ["hotel_channel_last_message_age_seconds", {}],
  ["http_server_active_requests", {}],
  ["nodejs_eventloop_delay_p99_seconds", {}]
]

/** Every label a series may carry, and the values it may take: route templates, codes and kinds, nothing a caller makes up. */
const ALLOWED_LABELS: Readonly<Record<string, (value: string) => boolean>> = {
  outcome: (v) => ["available", "unavailable", "applied", "stale", "refused"].includes(v),
  reason: (v) => /^[a-z_]+$/.test(v) && v.length <= 32,
  kind: (v) => ["email", "pms"].includes(v),
  http_route: (v) => v === "unmatched" || ROUTES.has(v),
  http_request_method: (v) => ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "_OTHER"].includes(v),
  http_response_status_code: (v) => /^[1-5]\d\d$/.test(v),
  le: (v) => v === "+Inf" || Number.isFinite(Number(v)),
  db_client_connection_state: (v) => v === "used",
  db_client_connection_pool_name: (v) => v === "hotel-booking-api"
}

/** Each series of a scrape as one key (its name and labels): what a scraper stores one time series for. */
const seriesOf = (exposition: Exposition) =>
  new Set(exposition.samples.map((s) => `${s.name}${JSON.stringify(Object.entries(s.labels).sort())}`))

const expectAllowedLabels = (exposition: Exposition) => {
  for (const sample of exposition.samples) {
    for (const [label, value] of Object.entries(sample.labels)) {
      expect([sample.name, label, value, ALLOWED_LABELS[label]?.(value)]).toEqual([sample.name, label, value, true])
    }
  }
}

/** What each counter gained between two scrapes. */
const gained = (before: Exposition, after: Exposition) => (name: string, labels: Record<string, string> = {}) =>
  valueOf(after, name, labels) - valueOf(before, name, labels)

/** Each series of the histogram `name`: buckets ascending, cumulative, the last `+Inf` equal to its count, one sum. */
const expectConsistentHistograms = (exposition: Exposition, name = "http_server_request_duration_seconds") => {
  const counts = samplesOf(exposition, `${name}_count`)
  expect(counts.length).toBeGreaterThan(0)
  for (const count of counts) {
    const buckets = samplesOf(exposition, `${name}_bucket`, count.labels)
    const bounds = buckets.map((b) => Number(b.labels.le === "+Inf" ? Infinity : b.labels.le))
    expect(bounds).toEqual([...bounds].sort((a, b) => a - b))
    expect(bounds.at(-1)).toBe(Infinity)
    buckets.forEach((bucket, i) => expect(bucket.value).toBeGreaterThanOrEqual(i === 0 ? 0 : buckets[i - 1]!.value))
    expect(buckets.at(-1)!.value).toBe(count.value)
    expect(samplesOf(exposition, `${name}_sum`, count.labels)).toHaveLength(1)
  }
}

// the client past the rate limit is another address (behind the trusted proxy), not the scraper's
layer(withApp({ ...metricsOn, rateLimitPerMinute: 200, bookingLimitPerHour: 1, trustedProxies: ["127.0.0.1", "::1"] }), { excludeTestServices: true })("GET /internal/metrics, METRICS_TOKEN set", (it) => {
  it.effect("a scripted day shows in the documented series, counted as it happened, with labels from closed sets only", () =>
    Effect.gen(function*() {
      const before = yield* scrape
      for (const [name, labels] of DOMAIN_SERIES) {
        expect([name, labels, samplesOf(before, name, labels).length]).toEqual([name, labels, 1])
      }
      expect(before.types.get("hotel_quotes_total")).toBe("counter")
      expect(before.types.get("hotel_outbox_pending")).toBe("gauge")

      // the hotel closes the deluxe rooms one night; then a message it got wrong (a date before yesterday)
      const ari = yield* post("/internal/v1/ari", {
        message_id: "m-1",
        as_of: "2026-11-22T10:00:00Z",
        updates: [{ room_type_id: "deluxe", from: day(20), to: day(20), stop_sell: true }]
      }, hotelSystem)
      expect(ari.status).toBe(200)
      const refused = yield* post("/internal/v1/ari", {
        message_id: "m-2",
        as_of: "2026-11-22T10:00:00Z",
        updates: [{ room_type_id: "deluxe", from: day(-5), to: day(-5), stop_sell: true }]
      }, hotelSystem)
      expect(refused.status).toBe(400)
      const closed = yield* post("/v1/quotes", { checkin: day(20), checkout: day(21), rooms: [{ room_type_id: "deluxe", adults: 2 }] })
      expect(closed.body.status).toBe("unavailable")

      // a booking completed at an old total (409); one of 3 nights, completed then cancelled; then the
      // first again, past the one completion an hour the address may make (429)
      const pending = yield* pendingReservation(day(25), day(26), [{ room_type_id: "twin", adults: 1 }])
      const conflict = yield* completeWith(pending.token, pending.total + 100)
      expect([conflict.status, conflict.body.error.code]).toEqual([409, "price_changed"])
      const booked = yield* completedBooking(day(18), day(21), [{ room_type_id: "double", adults: 2 }])
      // one night fewer, asked twice: one stay change
      const shorter = { action: "quote_change", checkin: day(18), checkout: day(20), rooms: [{ room_type_id: "double", adults: 2 }] }
      const priced = yield* post("/v1/reservation-manage", shorter, { "x-reservation-token": booked.manageToken })
      const change = { ...shorter, action: "change_stay", expected_total: priced.body.new_total }
      for (const _ of [1, 2]) {
        expect((yield* post("/v1/reservation-manage", change, { "x-reservation-token": booked.manageToken })).status).toBe(200)
      }
      expect((yield* manageAct(booked.manageToken, { action: "cancel" })).status).toBe("CANCELLED")
      expect((yield* completeWith(pending.token, pending.total)).status).toBe(429)

      // a path no route has, then one client past the rate limit on a read
      expect((yield* get("/no-such-page-4f2a9c")).status).toBe(404)
      let limited = 0
      while (limited === 0) {
        const read = yield* get("/v1/hotel", { "x-forwarded-for": "203.0.113.9" })
        if (read.status === 429) limited++
      }

      const after = yield* scrape
      const delta = gained(before, after)
      expect({
        available: delta("hotel_quotes_total", { outcome: "available" }),
        unavailable: delta("hotel_quotes_total", { outcome: "unavailable" }),
        intents: delta("hotel_intents_total"),
        completions: delta("hotel_completions_total"),
        roomNights: delta("hotel_room_nights_sold_total"),
        cancellations: delta("hotel_cancellations_total"),
        stayChanges: delta("hotel_stay_changes_total"),
        priceChanged: delta("hotel_conflicts_total", { reason: "price_changed" }),
        otherConflicts: delta("hotel_conflicts_total") - delta("hotel_conflicts_total", { reason: "price_changed" }),
        applied: delta("hotel_channel_messages_total", { outcome: "applied" }),
        refusedMessages: delta("hotel_channel_messages_total", { outcome: "refused" }),
        rateLimited: delta("hotel_requests_refused_total", { reason: "rate_limited", http_route: "/v1/hotel" }),
        bookingLimit: delta("hotel_requests_refused_total", { reason: "booking_limit" }),
        quoteRequests: delta("http_server_request_duration_seconds_count", {
          http_route: "/v1/quotes",
          http_request_method: "POST",
          http_response_status_code: "200"
        }),
        unmatched: delta("http_server_request_duration_seconds_count", { http_route: "unmatched", http_response_status_code: "404" })
      }).toEqual({
        available: 2,
        unavailable: 1,
        intents: 2,
        completions: 1,
        roomNights: 3,
        cancellations: 1,
        stayChanges: 1,
        priceChanged: 1,
        otherConflicts: 0,
        applied: 1,
        refusedMessages: 1,
        rateLimited: 1,
        bookingLimit: 1,
        quoteRequests: 3,
        unmatched: 1
      })
      // the outbox holds the booking's emails and pushes (no worker delivers in memory)
      expect(valueOf(after, "hotel_outbox_pending")).toBeGreaterThan(0)
      expect(valueOf(after, "hotel_channel_last_message_age_seconds")).toBe(0)

      expectConsistentHistograms(after)
      expectAllowedLabels(after)
      expect(after.samples.some((s) => Object.values(s.labels).some((v) => v.includes("4f2a9c")))).toBe(false)

      // made-up paths with ids in the path and in the query, and a route with ids in its query: no new series at all
      expect((yield* get("/v1/reservations/r_8c1d2e9f?id=7f3a61&guest=ann")).status).toBe(404)
      expect((yield* get("/v1/quotes/q_5b7e0c11?token=9d2f")).status).toBe(404)
      expect((yield* get("/v1/hotel?reservation=r_8c1d2e9f&token=9d2f")).status).toBe(200)
      const later = yield* scrape
      expect([...seriesOf(later)].filter((series) => !seriesOf(after).has(series))).toEqual([])
    }))

  it.effect("a scrape without the token is 401 missing_token, with another 401 invalid_token, each the usual Error body", () =>
    Effect.gen(function*() {
      const missing = yield* get("/internal/metrics")
      expect([missing.status, missing.body.error.code]).toEqual([401, "missing_token"])
      const wrong = yield* get("/internal/metrics", { authorization: `Bearer ${METRICS_TOKEN}x` })
      expect([wrong.status, wrong.body.error.code]).toEqual([401, "invalid_token"])
      const channels = yield* get("/internal/metrics", hotelSystem)
      expect([channels.status, channels.body.error.code]).toEqual([401, "invalid_token"])
      expect(missing.headers["content-type"]).toMatch(/application\/json/)
    }))
})

// the service on PostgreSQL, its pool measured: the outbox worker and the metrics' own reading use it too
layer(mailingTestApp(metricsOn), { excludeTestServices: true })("GET /internal/metrics, on PostgreSQL", (it) => {
  it.effect("the pool's series exist from the start; after a booking every turn for a connection is counted, and none waited in vain", () =>
    Effect.gen(function*() {
      const before = yield* scrape
      const pool = { db_client_connection_pool_name: "hotel-booking-api" }
      for (const name of ["db_client_connection_count", "db_client_connection_max", "db_client_connection_pending_requests", "db_client_connection_timeouts_total"]) {
        expect([name, samplesOf(before, name, pool).length]).toEqual([name, 1])
      }
      expect(valueOf(before, "db_client_connection_max", pool)).toBe(10)

      yield* completedBooking(day(40), day(42), [{ room_type_id: "double", adults: 2 }])
      const after = yield* scrape
      const turns = (exposition: Exposition) => valueOf(exposition, "db_client_connection_wait_time_seconds_count", pool)
      const used = valueOf(after, "db_client_connection_count", { ...pool, db_client_connection_state: "used" })
      // a quote, an intent and a completion, each with its statements and transactions
      expect(turns(after) - turns(before)).toBeGreaterThanOrEqual(3)
      expect(used).toBeGreaterThanOrEqual(0)
      expect(used).toBeLessThanOrEqual(valueOf(after, "db_client_connection_max", pool))
      // every connection handed out is either still in use or was given back, its use then measured
      expect(turns(after)).toBe(valueOf(after, "db_client_connection_use_time_seconds_count", pool) + used)
      // a request waits from its ask until a connection is handed out, the connecting included: the
      // outbox's first jobs may be at that point during a scrape; none waits for ever
      const pendingNow = Effect.map(scrape, (now) => valueOf(now, "db_client_connection_pending_requests", pool))
      yield* eventually(Effect.map(Effect.orDie(Effect.provideContext(pendingNow, yield* Effect.context<HttpClient.HttpClient>())), (n) => n === 0), 10_000)
      expect(valueOf(after, "db_client_connection_timeouts_total", pool)).toBe(0)
      expectConsistentHistograms(after, "db_client_connection_wait_time_seconds")
      expectConsistentHistograms(after, "db_client_connection_use_time_seconds")
      expectAllowedLabels(after)
    }), 60_000)
})

describe("GET /internal/metrics, elsewhere", () => {
  layer(withApp({}), { excludeTestServices: true })("METRICS_TOKEN unset", (it) => {
    it.effect("the path is unknown like any other: 404, with the token or without", () =>
      Effect.gen(function*() {
        expect((yield* get("/internal/metrics", scraper)).status).toBe(404)
        const missing = yield* get("/internal/metrics")
        expect([missing.status, missing.body.error.code]).toEqual([404, "not_found"])
      }))
  })

  layer(withApp({ ...metricsOn, metricsAllowedAddresses: ["10.9.8.7"] }), { excludeTestServices: true })(
    "METRICS_ALLOWED_ADDRESSES set",
    (it) => {
      it.effect("a scraper at another address is 403 forbidden, token or not", () =>
        Effect.gen(function*() {
          const refused = yield* get("/internal/metrics", scraper)
          expect([refused.status, refused.body.error.code]).toEqual([403, "forbidden"])
        }))
    }
  )
})
