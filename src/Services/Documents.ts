import * as FileSystem from "@effect/platform/FileSystem"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Clock, Effect } from "effect"
import { createRequire } from "node:module"
import { confirmationDocument } from "../Domain/ConfirmationDocument.js"
import type { HotelDefinition } from "../Domain/Hotel.js"
import type { ReservationView } from "../Domain/Reservation.js"
import type { FontFiles } from "../Layers/ConfirmationPdf.js"
import * as Tracing from "../Layers/Tracing.js"

// through the package, not a path relative to this file: the same from src/ and from a bundle in dist/
const fontPath = (file: string) => createRequire(import.meta.url).resolve(`dejavu-fonts-ttf/ttf/${file}`)

/** Guest documents as PDF, in the reservation's language. */
export class Documents extends Effect.Service<Documents>()("Documents", {
  effect: Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    // DejaVu Sans covers French and Cyrillic, which the PDF standard fonts cannot encode
    const fonts: FontFiles = yield* Effect.all({
      regular: fs.readFile(fontPath("DejaVuSans.ttf")),
      bold: fs.readFile(fontPath("DejaVuSans-Bold.ttf"))
    }).pipe(Effect.orDieWith((error) => new Error(`cannot read the PDF fonts of dejavu-fonts-ttf: ${error.message}`)))
    const renderer = yield* Effect.cached(Effect.promise(() => import("../Layers/ConfirmationPdf.js")))
    return {
      /** The confirmation: hotel, reservation, guest, stay, rooms, package, price, cancellation, manage link. */
      confirmationPdf: Tracing.fn("Documents.confirmationPdf")(
        function*(hotel: HotelDefinition, view: ReservationView, manageUrl: string) {
          const createdAt = new Date(yield* Clock.currentTimeMillis)
          const { renderPdf } = yield* renderer
          return yield* Effect.promise(() => renderPdf(confirmationDocument(hotel, view, manageUrl), fonts, createdAt))
        }
      )
    }
  }),
  dependencies: [NodeFileSystem.layer]
}) {}
