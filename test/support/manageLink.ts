import { Effect, Option, Schedule } from "effect"
import { simpleParser } from "mailparser"
import type { ReservationId } from "../../src/Domain/Ids.js"
import { ReservationRepo } from "../../src/Layers/Persistence/ReservationRepo.js"
import { Inbox } from "./MailingTestApp.js"

/**
 * The manage link of a reservation as the guest gets it: read from the confirmation email that the
 * in-process SMTP server received for it (`MailingTestApp`). The one place tests get the link.
 */
export const manageLinkOf = (reservationId: ReservationId) =>
  Effect.gen(function*() {
    const reservation = Option.getOrThrow(yield* (yield* ReservationRepo).find(reservationId))
    const inbox = yield* Inbox
    const link = Effect.gen(function*() {
      for (const mail of inbox) {
        const parsed = yield* Effect.promise(() => simpleParser(mail.raw))
        const hasPdf = parsed.attachments.some((a) => a.contentType === "application/pdf")
        if (hasPdf && parsed.subject?.includes(reservation.number ?? "") === true) {
          const found = /https?:\/\/\S+\/manage#token=[A-Za-z0-9_-]+/.exec(parsed.text ?? "")
          if (found !== null) return found[0]
        }
      }
      return yield* Effect.fail(`no confirmation email for ${reservation.number} yet`)
    })
    // the worker delivers at commit; the PDF takes a moment to draw, longer while CI's other tests load the two cores
    return yield* link.pipe(Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo({ duration: "30 seconds" }))), Effect.orDie)
  })
