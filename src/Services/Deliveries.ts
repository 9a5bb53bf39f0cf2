import { Clock, Context, Duration, Effect, Layer, Option, Schema } from "effect"
import { RECIPIENT_WINDOW_MS, recipientKey, withinRecipientLimit } from "../Domain/BookingLimits.js"
import { isCompleted } from "../Domain/CompletedReservation.js"
import {
  cancellationEmail,
  confirmationEmail,
  confirmationPdfFilename,
  guestDetailsUpdatedEmail,
  stayChangedEmail
} from "../Domain/GuestEmails.js"
import type { MailContent } from "../Domain/Mail.js"
import { manageUrl } from "../Domain/Management.js"
import { type ClaimedJob, jobChannel } from "../Domain/Outbox.js"
import { pmsReservation } from "../Domain/Pms.js"
import type { PmsStatus } from "../Domain/Reservation.js"
import { reservationView } from "../Domain/ReservationViews.js"
import { OutboxRepo } from "../Layers/Persistence/OutboxRepo.js"
import { ReservationFeedRepo } from "../Layers/Persistence/ReservationFeedRepo.js"
import { ReservationRepo } from "../Layers/Persistence/ReservationRepo.js"
import * as Tracing from "../Layers/Platform/Tracing.js"
import { Transactions } from "../Layers/Persistence/Transactions.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"
import { Documents } from "./Documents.js"
import { HotelCatalog } from "./HotelCatalog.js"
import { type MailDeliveryError, Mailer } from "./Mailer.js"
import { Pms, type PmsError } from "./Pms.js"
import { Tokens } from "./Tokens.js"

/** A job that can never be delivered as things stand: its reservation was never completed, or has no manage link. */
export class Undeliverable extends Schema.TaggedError<Undeliverable>()("Undeliverable", {
  message: Schema.String
}) {}

export type DeliveryFailure = MailDeliveryError | PmsError | Undeliverable

/** Whether the same delivery may succeed later. */
export const isRetryable = (failure: DeliveryFailure): boolean => failure._tag !== "Undeliverable" && failure.retryable

interface PmsChange {
  readonly status: PmsStatus
  readonly reference: Option.Option<string>
  /** The cursor of the reservation's last change the PMS now has (docs/decisions.md#what-may-be-sold: a channel figure may count it from then). */
  readonly acknowledged: Option.Option<bigint>
}

/**
 * What each outbox job does: the guest's emails (in the reservation's language, Message-ID = the
 * job's id) and the PMS calls (Idempotency-Key from the job's id), so a retried job is the same
 * delivery again. Finishing a job and what it changed (`pms_status`) are one transaction.
 */
export class Deliveries extends Context.Service<Deliveries>()("Deliveries", {
  make: Effect.gen(function*() {
    const config = yield* AppConfig
    const catalog = yield* HotelCatalog
    const tokens = yield* Tokens
    const documents = yield* Documents
    const mailer = yield* Mailer
    const pms = yield* Pms
    const reservations = yield* ReservationRepo
    const outbox = yield* OutboxRepo
    const feed = yield* ReservationFeedRepo
    const { atomically } = yield* Transactions

    const undeliverable = (job: ClaimedJob, why: string) =>
      new Undeliverable({ message: `${job.kind} of reservation ${job.reservation_id}: ${why}` })

    /** The reservation as its guest reads it, and the guest's manage link. */
    const load = Tracing.fn("Deliveries.load")(function*(job: ClaimedJob) {
      const record = yield* reservations.find(job.reservation_id)
      if (Option.isNone(record)) return yield* undeliverable(job, "no such reservation")
      const hotel = yield* catalog.definition()
      const view = reservationView(hotel, record.value)
      if (!isCompleted(view)) return yield* undeliverable(job, "the reservation was never completed")
      const token = yield* tokens.reveal(view.reservation_id, "manage")
      if (Option.isNone(token)) return yield* undeliverable(job, "the reservation has no manage token")
      return { hotel, record: record.value, view, manageUrl: manageUrl(config.publicBaseUrl, token.value) }
    })

    type Loaded = Effect.Success<ReturnType<typeof load>>

    const email = (job: ClaimedJob, content: MailContent) => mailer.send({ ...content, messageId: job.id })

    /**
     * A later PMS job of the reservation (a cancellation or a stay change after this push) keeps the
     * status it set (PENDING) until that one is delivered too. The reservation row first: a change
     * being written holds it until it commits with its job, which is then seen here.
     */
    const recordPms = (job: ClaimedJob, change: PmsChange) =>
      Effect.andThen(
        reservations.findForUpdate(job.reservation_id),
        Effect.flatMap(outbox.hasLaterPending(job), (later) =>
          later ? Effect.void : reservations.setPmsStatus(job.reservation_id, change.status, change.reference))
      )

    /**
     * Done, with what the delivery changed; nothing is recorded if another worker has taken the job
     * since, but what the PMS acknowledged it has, whoever sent it.
     */
    const finish = (job: ClaimedJob, change: Option.Option<PmsChange>) =>
      atomically(Effect.gen(function*() {
        const acknowledged = Option.flatMap(change, (c) => c.acknowledged)
        if (Option.isSome(acknowledged)) {
          yield* feed.acknowledge(job.reservation_id, acknowledged.value, new Date(yield* Clock.currentTimeMillis))
        }
        if (!(yield* outbox.finish(job))) return
        if (Option.isSome(change)) yield* recordPms(job, change.value)
      }))

    /**
     * Whether the job's email may go to `to`: counted against the recipient's last 24 hours, or,
     * beyond `MAIL_LIMIT_PER_RECIPIENT_PER_DAY`, held back (recorded with the reason, never sent).
     * A retry of an email already counted goes.
     */
    const admitEmail = (job: ClaimedJob, to: string) =>
      atomically(Effect.gen(function*() {
        const recipient = recipientKey(to)
        const { counted, others } = yield* outbox.lockRecipientCount(job, recipient, RECIPIENT_WINDOW_MS)
        if (counted) return true
        if (withinRecipientLimit(config.mailLimitPerRecipientPerDay, others)) {
          yield* outbox.countRecipient(job, recipient)
          return true
        }
        const reason = `held back: ${others} emails to this recipient in the last 24 hours, the most the hotel sends ` +
          `(MAIL_LIMIT_PER_RECIPIENT_PER_DAY ${config.mailLimitPerRecipientPerDay})`
        yield* outbox.holdBack(job, recipient, reason)
        yield* Effect.logWarning(`outbox: ${job.kind} ${reason}`)
        return false
      }))

    const send = Effect.fnUntraced(function*(job: ClaimedJob, { hotel, manageUrl, record, view }: Loaded, feedCursor: Option.Option<bigint>) {
      switch (job.kind) {
        case "confirmation_email":
        case "stay_change_email": {
          // a PDF not drawn just now (its worker stopped) is a defect, which the outbox retries
          const pdf = yield* documents.confirmationPdf(hotel, view, manageUrl).pipe(Effect.orDie)
          const compose = job.kind === "confirmation_email" ? confirmationEmail : stayChangedEmail
          yield* email(job, compose(hotel, view, manageUrl, { filename: confirmationPdfFilename(view), content: pdf }))
          return yield* finish(job, Option.none())
        }
        case "cancellation_email": {
          yield* email(job, cancellationEmail(hotel, view, manageUrl))
          return yield* finish(job, Option.none())
        }
        case "guest_update_email": {
          yield* email(job, guestDetailsUpdatedEmail(hotel, view, manageUrl))
          return yield* finish(job, Option.none())
        }
        case "pms_push": {
          // the change being pushed was written with its job
          const outcome = yield* pms.push(pmsReservation(hotel, view, record, new Date(job.created_at)), job.id, feedCursor)
          return yield* finish(
            job,
            outcome._tag === "Synced"
              ? Option.some({ status: "SYNCED", reference: Option.some(outcome.reference), acknowledged: feedCursor })
              : Option.none()
          )
        }
        case "pms_cancel": {
          const outcome = yield* pms.cancel(view.reservation_number, job.id, feedCursor)
          return yield* finish(
            job,
            outcome._tag === "Cancelled" ? Option.some({ status: "SYNCED", reference: outcome.reference, acknowledged: feedCursor }) : Option.none()
          )
        }
      }
    })

    const deliver = Effect.fnUntraced(function*(job: ClaimedJob) {
      // a PMS call's cursor is read before the record it sends: the record is that change or a later
      // one, so the PMS is never said to have a change it was not sent
      const feedCursor = jobChannel[job.kind] === "pms" ? yield* feed.lastCursorOf(job.reservation_id) : Option.none()
      const loaded = yield* load(job)
      const limited = jobChannel[job.kind] === "email" && config.mailLimitPerRecipientPerDay > 0
      if (limited && !(yield* admitEmail(job, loaded.view.guest.email))) return "held back"
      yield* send(job, loaded, feedCursor)
      return "delivered"
    })

    return {
      /**
       * Delivers the job and finishes it: a trace of its own (a delivery may come hours after the
       * request), linked to the span of the request that wrote the job.
       */
      deliver: (job: ClaimedJob) =>
        deliver(job).pipe(
          Effect.timed,
          // the job's log line (its failures are the worker's), in its span
          Effect.flatMap(([took, outcome]) =>
            Effect.logInfo(`outbox: ${job.kind} ${outcome}`).pipe(Effect.annotateLogs({ duration_ms: Duration.toMillis(took) }))
          ),
          Tracing.withSpan("Deliveries.deliver", {
            root: true,
            kind: "consumer",
            links: Tracing.linksTo(job.trace_context),
            attributes: { "job.id": job.id, "job.kind": job.kind, "job.attempt": job.attempt }
          })
        ),
      /** The job failed for good: kept as failed; a PMS job leaves the reservation `pms_status` FAILED. */
      giveUp: Tracing.fn("Deliveries.giveUp")(function*(job: ClaimedJob, error: string) {
        yield* atomically(Effect.gen(function*() {
          if (!(yield* outbox.fail(job, error))) return
          if (jobChannel[job.kind] === "pms") yield* recordPms(job, { status: "FAILED", reference: Option.none(), acknowledged: Option.none() })
        }))
      })
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([HotelCatalog.layer, Tokens.layer, Documents.layer]))
}
