import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import { parentPort, threadId } from "node:worker_threads"
import type { ConfirmationDocument } from "../../Domain/ConfirmationDocument.js"
import { type FontFiles, renderPdf } from "./ConfirmationPdf.js"

/**
 * The entry of a PDF worker thread (`PdfWorkers`): it draws each confirmation it is sent and
 * answers with the PDF. Drawing is enough CPU to hold up every request on the main thread
 * (docs/performance.md).
 */

export interface DrawRequest {
  readonly id: number
  readonly document: ConfirmationDocument
  readonly createdAt: Date
}

export type DrawResponse =
  | { readonly id: number; readonly pdf: Uint8Array; readonly threadId: number }
  /** The drawing threw (a bug): the thread goes on with the next one. */
  | { readonly id: number; readonly error: string }

// through the package, not a path relative to this file: the same from src/ and from dist/
const fontPath = (file: string) => createRequire(import.meta.url).resolve(`dejavu-fonts-ttf/ttf/${file}`)

const readFont = (file: string) => {
  try {
    return readFileSync(fontPath(file))
  } catch (error) {
    throw new Error(`cannot read the PDF fonts of dejavu-fonts-ttf: ${String(error)}`)
  }
}

// DejaVu Sans covers French and Cyrillic, which the PDF standard fonts cannot encode
const fonts: FontFiles = { regular: readFont("DejaVuSans.ttf"), bold: readFont("DejaVuSans-Bold.ttf") }

// On Linux the nice value belongs to the thread: this one yields the CPU to the requests' thread
// (and the database) when they want it, and draws at full speed when they do not.
// A sandbox that refuses it leaves the thread at normal priority: still drawing, only less polite.
if (process.platform === "linux") {
  try {
    os.setPriority(os.constants.priority.PRIORITY_BELOW_NORMAL)
  } catch {
    // normal priority
  }
}

const port = parentPort
if (port === null) throw new Error("ConfirmationPdfWorker.ts is the entry of a worker thread (see PdfWorkers.ts)")

port.on("message", (request: DrawRequest) => {
  renderPdf(request.document, fonts, request.createdAt).then(
    // the PDF's bytes move to the main thread, not copied
    (pdf) => port.postMessage({ id: request.id, pdf, threadId } satisfies DrawResponse, [pdf.buffer as ArrayBuffer]),
    (error: unknown) =>
      port.postMessage({ id: request.id, error: error instanceof Error ? error.stack ?? error.message : String(error) } satisfies DrawResponse)
  )
})
