import { parentPort } from "node:worker_threads"
import type { DrawRequest } from "../../src/Layers/Pdf/ConfirmationPdfWorker.js"

/**
 * A PDF worker thread (PdfWorkers' `entry`) that stops as a crash would, with exit code 70, while
 * drawing reservation BR-CRASH00, and draws every other document as the real one does.
 */
await import("../../src/Layers/Pdf/ConfirmationPdfWorker.js")
// after the real listener, which has started drawing
parentPort!.on("message", (request: DrawRequest) => {
  if (request.document.reservationNumber === "BR-CRASH00") process.exit(70)
})
