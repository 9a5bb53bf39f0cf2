import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { HttpClient } from "effect/http"
import { SqlClient } from "effect/sql"
import { type RequestEntry, RequestLog } from "../src/Layers/Platform/Logging.js"
import { Inbox, mailingTestApp } from "./support/MailingTestApp.js"
import { eventually } from "./support/eventually.js"
import { completeWith, get, guest, pendingReservation } from "./support/flow.js"
import { otlpCollector, type ReceivedSpan, spansOf } from "./support/otlp.js"

const SERVER = 2
const CLIENT = 3
const CONSUMER = 5

/** The spans below `span`, at any depth. */
const descendants = (spans: ReadonlyArray<ReceivedSpan>, span: ReceivedSpan): Array<ReceivedSpan> => {
  const children = spans.filter((s) => s.parentSpanId === span.spanId && s.traceId === span.traceId)
  return children.flatMap((child) => [child, ...descendants(spans, child)])
}

const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
const CALLER_SPAN = "00f067aa0ba902b7"

describe("traces of a booking, with a collector", () => {
  it.live("one trace per request, server span → service span → SQL spans; the delivery linked to the completion", () =>
    Effect.gen(function*() {
      const collector = yield* otlpCollector
      const client = { "x-hotel-client": "acme-web", "x-ai-agent": "test-agent/1.0", "x-hotel-session": "s-42" }
      const flow = Effect.gen(function*() {
        const inbox = yield* Inbox
        const { intent, token, total } = yield* pendingReservation("2027-03-10", "2027-03-12", [{ room_type_id: "double", adults: 2 }])
        // a caller of its own trace (the test client would otherwise send its span's)
        const view = yield* get("/v1/reservation-public", { "x-reservation-token": token, traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, ...client })
          .pipe(Effect.provideService(HttpClient.TracerPropagationEnabled, false))
        expect(view.status).toBe(200)
        const done = yield* completeWith(token, total)
        expect(done.status).toBe(200)
        // the confirmation, delivered by the outbox worker, and its job finished (its span ended)
        const sql = yield* SqlClient.SqlClient
        const emailJobDone = sql<{ state: string }>`SELECT state FROM outbox_jobs
          WHERE reservation_id = ${intent.reservation_id} AND kind = 'confirmation_email'`.pipe(
          Effect.map((jobs) => jobs.length === 1 && jobs[0]!.state === "done"),
          Effect.orDie
        )
        yield* eventually(Effect.map(emailJobDone, (done) => done && inbox.length > 0))
        return { intent, token, viewTraceparent: view.headers["traceparent"], doneTraceparent: done.headers["traceparent"] }
      })
      const logged: Array<RequestEntry> = []
      const app = mailingTestApp({ otlpEndpoint: Option.some(collector.url) }).pipe(
        Layer.provide(Layer.succeed(RequestLog, (entry) => void logged.push(entry)))
      )
      const seen = yield* flow.pipe(Effect.provide(app))
      // closing the app flushed its spans
      const spans = spansOf(collector.bodies)

      const servers = spans.filter((s) => s.kind === SERVER)
      const route = (path: string) => {
        const found = servers.filter((s) => s.attributes["http.route"] === path)
        expect(found, path).toHaveLength(1)
        return found[0]!
      }
      const quote = route("/v1/quotes")
      const intent = route("/v1/reservation-intents")
      const view = route("/v1/reservation-public")
      const complete = route("/v1/reservation-complete")
      // one trace per request
      expect(new Set([quote, intent, view, complete].map((s) => s.traceId)).size).toBe(4)
      for (const [server, service] of [[quote, "Quotes."], [intent, "Reservations."], [view, "Reservations."], [complete, "Reservations."]] as const) {
        expect(server.name).toBe(`${server.attributes["http.request.method"]} ${server.attributes["http.route"]}`)
        expect(server.attributes["http.response.status_code"]).toBe(200)
        const below = descendants(spans, server)
        const services = below.filter((s) => s.name.startsWith(service))
        expect(services.length, server.name).toBeGreaterThan(0)
        const sql = services.flatMap((s) => descendants(spans, s)).filter((s) => s.name === "sql.execute")
        expect(sql.length, server.name).toBeGreaterThan(0)
        for (const statement of sql) expect(typeof statement.attributes["db.query.text"]).toBe("string")
      }
      // the caller's traceparent is honoured; the response names the server span
      expect(view.traceId).toBe(CALLER_TRACE)
      expect(view.parentSpanId).toBe(CALLER_SPAN)
      expect(seen.viewTraceparent).toBe(`00-${view.traceId}-${view.spanId}-01`)
      expect(seen.doneTraceparent).toBe(`00-${complete.traceId}-${complete.spanId}-01`)
      // the analytics headers, as sent
      expect(view.attributes).toMatchObject({
        "http.request.header.x-hotel-client": "acme-web",
        "http.request.header.x-ai-agent": "test-agent/1.0",
        "http.request.header.x-hotel-session": "s-42"
      })

      // the delivery: a trace of its own, linked to the completion's, with the SMTP call as a client span
      const deliveries = spans.filter((s) => s.name === "Deliveries.deliver" && s.attributes["job.kind"] === "confirmation_email")
      expect(deliveries).toHaveLength(1)
      const delivery = deliveries[0]!
      expect(delivery.kind).toBe(CONSUMER)
      expect(delivery.parentSpanId).toBeUndefined()
      expect(delivery.traceId).not.toBe(complete.traceId)
      expect(delivery.links).toHaveLength(1)
      expect(delivery.links[0]!.traceId).toBe(complete.traceId)
      expect(descendants(spans, complete).map((s) => s.spanId)).toContain(delivery.links[0]!.spanId)
      const sends = descendants(spans, delivery).filter((s) => s.name === "Mailer.send")
      expect(sends.map((s) => s.kind)).toEqual([CLIENT])

      // each request's log line names its server span
      const line = logged.find((entry) => entry.route === "/v1/reservation-complete")
      expect(line).toMatchObject({ method: "POST", status: 200 })
      expect(line!.traceparent).toBe(`00-${complete.traceId}-${complete.spanId}-01`)

      // never a token, an email address or a phone number
      // (the test's own HTTP client records its requests' headers: its spans are not the service's)
      const values = JSON.stringify(spans.filter((s) => !s.name.startsWith("http.client")).map((s) => s.attributes))
      expect(values).toContain("db.query.text")
      expect(values).not.toContain(seen.token)
      expect(values).not.toContain(guest.email)
      expect(values).not.toContain(guest.phone)
      expect(values).not.toContain(guest.phone.replace(/\s/g, ""))
      expect(values).not.toContain(seen.intent.continue_url)
    }), 60_000)

  it.live("without a collector: no span, and no traceparent on the responses", () =>
    Effect.gen(function*() {
      const collector = yield* otlpCollector
      const response = yield* get("/v1/hotel").pipe(Effect.provide(mailingTestApp()))
      expect(response.status).toBe(200)
      expect(response.headers["traceparent"]).toBeUndefined()
      expect(collector.bodies).toEqual([])
    }), 60_000)
})
