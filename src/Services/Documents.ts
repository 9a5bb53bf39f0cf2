import { Clock, Context, Deferred, Effect, Exit, Layer } from "effect"
import { createHash } from "node:crypto"
import { type ConfirmationDocument, confirmationDocument } from "../Domain/ConfirmationDocument.js"
import { ServiceUnavailable } from "../Domain/Errors.js"
import type { HotelDefinition } from "../Domain/Hotel.js"
import type { ReservationView } from "../Domain/Reservation.js"
import { PdfWorkers } from "../Layers/Pdf/PdfWorkers.js"
import * as Tracing from "../Layers/Platform/Tracing.js"

/**
 * Reservations whose confirmation an instance keeps: PDFs are small, so these are a few megabytes. The
 * confirmation email and the guest's downloads come soon after a change; an older one is drawn again.
 */
export const KEPT_CONFIRMATIONS = 256

/** Changes whenever anything the document shows changes: guest, stay, status, language, the hotel's texts, the link. */
const versionOf = (document: ConfirmationDocument) => createHash("sha256").update(JSON.stringify(document)).digest("base64url")

interface Kept {
  readonly version: string
  readonly pdf: Deferred.Deferred<Uint8Array, ServiceUnavailable>
}

/**
 * Guest documents as PDF, in the reservation's language: drawn off the main thread (`PdfWorkers`)
 * and kept per reservation version, so the confirmation email and every download of the same
 * version share one drawing.
 *
 * Kept in this instance's memory, not in the database: the PDF carries the manage link, a live
 * token that the database never holds (only its hash), and a copy of the guest's personal data.
 */
export class Documents extends Context.Service<Documents>()("Documents", {
  make: Effect.gen(function*() {
    const workers = yield* PdfWorkers
    const scope = yield* Effect.scope
    /** The current version's PDF of each reservation (drawn, or being drawn), least recently asked first. */
    const kept = new Map<string, Kept>()

    const draw = (document: ConfirmationDocument, createdAt: Date) =>
      workers.draw(document, createdAt).pipe(
        Effect.map(({ pdf }) => pdf),
        Effect.catchTag("PdfWorkerError", (error) =>
          Effect.andThen(
            Effect.logError("the confirmation PDF was not drawn", error),
            new ServiceUnavailable({ message: "the confirmation PDF could not be drawn just now: try again in a moment", retry_after_seconds: 5 })
          ))
      )

    /**
     * The kept PDF of this version, or a drawing started for it: the first asker may leave, the next
     * ones still get it. Uninterruptible from keeping the entry to starting its drawing, so that an
     * asker who leaves in between never leaves an entry nobody completes (and every later ask waiting).
     */
    const pdfOf = (reservationId: string, document: ConfirmationDocument) =>
      Effect.uninterruptible(Effect.suspend(() => {
        const version = versionOf(document)
        const found = kept.get(reservationId)
        kept.delete(reservationId)
        if (found?.version === version) {
          kept.set(reservationId, found)
          return Effect.succeed({ pdf: found.pdf, cached: true })
        }
        // a new version replaces the old one, which nobody will ask for again
        const entry: Kept = { version, pdf: Deferred.makeUnsafe() }
        kept.set(reservationId, entry)
        if (kept.size > KEPT_CONFIRMATIONS) kept.delete(kept.keys().next().value!)
        return Effect.flatMap(Clock.currentTimeMillis, (now) => draw(document, new Date(now))).pipe(
          Effect.onExit((exit) =>
            Effect.andThen(
              // a failure is not kept: the next ask draws again
              Effect.sync(() => Exit.isFailure(exit) && kept.get(reservationId) === entry && kept.delete(reservationId)),
              Deferred.done(entry.pdf, exit)
            )
          ),
          Effect.ignore, // its outcome goes to the askers
          Effect.interruptible, // the drawing itself stops with the service
          Effect.forkIn(scope),
          Effect.as({ pdf: entry.pdf, cached: false })
        )
      }))

    return {
      /** The confirmation: hotel, reservation, guest, stay, rooms, package, price, cancellation, manage link. */
      confirmationPdf: Tracing.fn("Documents.confirmationPdf")(
        function*(hotel: HotelDefinition, view: ReservationView, manageUrl: string) {
          const { cached, pdf } = yield* pdfOf(view.reservation_id, confirmationDocument(hotel, view, manageUrl))
          yield* Tracing.annotate({ "pdf.cached": cached })
          return yield* Deferred.await(pdf)
        }
      )
    }
  })
}) {
  static readonly layerWithoutDependencies = Layer.effect(this, this.make)
  static readonly layer = this.layerWithoutDependencies.pipe(Layer.provide(PdfWorkers.layer))
}
