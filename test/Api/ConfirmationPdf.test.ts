import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { simpleParser } from "mailparser"
import { threadId } from "node:worker_threads"
import { daysFromToday } from "../support/clock.js"
import { complete, manageAct, manageWith, pendingBooking } from "../support/flow.js"
import { Inbox, mailingTestApp } from "../support/MailingTestApp.js"
import { manageLinkOf } from "../support/manageLink.js"
import { otlpCollector, spansOf } from "../support/otlp.js"

/** The PDF the endpoint answers, as bytes. */
const download = (token: string) => Effect.flatMap(manageWith(token), (manage) => manage.document()).pipe(Effect.map(Buffer.from))

describe("the confirmation PDF over HTTP, with its email", () => {
  it.live("the email's PDF and the downloads of one version are one drawing, in a worker thread; a changed reservation is drawn again", () =>
    Effect.gen(function*() {
      const collector = yield* otlpCollector
      const flow = Effect.gen(function*() {
        const { token, total } = yield* pendingBooking(daysFromToday(40), daysFromToday(42), [{ room_type_id: "double", adults: 2 }])
        const done = yield* complete(token, total)
        const manageToken = new URL(yield* manageLinkOf(done.reservation_id)).hash.replace("#token=", "")
        const [mail] = yield* Inbox
        const emailed = yield* Effect.promise(() => simpleParser(mail!.raw))
        const attachment = emailed.attachments.find((a) => a.contentType === "application/pdf")!.content
        const downloads = [yield* download(manageToken), yield* download(manageToken)]
        yield* manageAct(manageToken, { action: "update_guest", phone: "+33 6 00 00 00 01" })
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
