import { HttpClient, HttpClientRequest } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { simpleParser } from "mailparser"
import { threadId } from "node:worker_threads"
import type { ReservationId } from "../../src/Domain/Ids.js"
import { daysFromToday } from "../support/clock.js"
import { completeWith, pendingReservation, post } from "../support/flow.js"
import { Inbox, mailingTestApp } from "../support/MailingTestApp.js"
import { manageLinkOf } from "../support/manageLink.js"
import { otlpCollector, spansOf } from "../support/otlp.js"

/** The PDF the endpoint answers, as bytes. */
const download = (token: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.get("/v1/reservation-document").pipe(HttpClientRequest.setHeader("x-reservation-token", token)))
    expect(response.status).toBe(200)
    return Buffer.from(yield* response.arrayBuffer)
  })

describe("the confirmation PDF over HTTP, with its email", () => {
  it.scopedLive("the email's PDF and the downloads of one version are one drawing, in a worker thread; a changed reservation is drawn again", () =>
    Effect.gen(function*() {
      const collector = yield* otlpCollector
      const flow = Effect.gen(function*() {
        const { token, total } = yield* pendingReservation(daysFromToday(40), daysFromToday(42), [{ room_type_id: "double", adults: 2 }])
        const done = yield* completeWith(token, total)
        expect(done.status).toBe(200)
        const manageToken = new URL(yield* manageLinkOf(done.body.reservation_id as ReservationId)).hash.replace("#token=", "")
        const [mail] = yield* Inbox
        const emailed = yield* Effect.promise(() => simpleParser(mail!.raw))
        const attachment = emailed.attachments.find((a) => a.contentType === "application/pdf")!.content
        const downloads = [yield* download(manageToken), yield* download(manageToken)]
        const updated = yield* post("/v1/reservation-manage", { action: "update_guest", phone: "+33 6 00 00 00 01" }, { "x-reservation-token": manageToken })
        expect(updated.status).toBe(200)
        const changed = yield* download(manageToken)
        return { attachment, downloads, changed }
      })
      const { attachment, changed, downloads } = yield* flow.pipe(Effect.provide(mailingTestApp({ otlpEndpoint: Option.some(collector.url) })))
      expect(downloads).toEqual([attachment, attachment])
      expect(changed.equals(attachment)).toBe(false)

      // closing the app flushed its spans: the email and the downloads, in order; two drawings
      const spans = spansOf(collector.bodies)
      const asked = spans.filter((s) => s.name === "Documents.confirmationPdf")
      expect(asked.map((s) => s.attributes["pdf.cached"]).sort()).toEqual([false, false, true, true])
      const drawn = spans.filter((s) => s.name === "PdfWorkers.draw")
      expect(drawn).toHaveLength(2)
      for (const drawing of drawn) expect(drawing.attributes["pdf.worker.thread_id"]).not.toBe(threadId)
    }), 90_000)
})
