import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { threadId } from "node:worker_threads"
import { PDFDocument } from "pdf-lib"
import { confirmationDocument } from "../../../src/Domain/ConfirmationDocument.js"
import { reservationView } from "../../../src/Domain/ReservationViews.js"
import { DEFAULT_ENTRY, PdfWorkers } from "../../../src/Layers/Pdf/PdfWorkers.js"
import { demoHotel } from "../../support/hotel.js"
import { sampleReservation } from "../../support/reservation.js"

const CREATED_AT = new Date("2026-12-01T09:05:00.000Z")

/** The sample reservation's confirmation, numbered `number`. */
const documentOf = (number: string) =>
  confirmationDocument(demoHotel, reservationView(demoHotel, { ...sampleReservation(), number }), "https://hotel.test/manage#token=t")

const titleOf = (pdf: Uint8Array) => Effect.map(Effect.promise(() => PDFDocument.load(pdf)), (doc) => doc.getTitle())

const draw = (number: string) => Effect.flatMap(PdfWorkers, (workers) => workers.draw(documentOf(number), CREATED_AT))

const withWorkers = (size: number, entry = DEFAULT_ENTRY) => Effect.provide(PdfWorkers.layerWith({ size, entry }))

/** Draws the crashing thread (test/support/crashingPdfWorker.ts) does not survive. */
const CRASHING = "BR-CRASH00"

describe("PDF workers", () => {
  it.live("draw in a worker thread, not the caller's; the next draw goes to the same thread", () =>
    Effect.gen(function*() {
      const first = yield* draw("BR-AAAAAA")
      const second = yield* draw("BR-BBBBBB")
      expect(first.threadId).not.toBe(threadId)
      expect(second.threadId).toBe(first.threadId)
      expect(Buffer.from(first.pdf.subarray(0, 5)).toString()).toBe("%PDF-")
      expect(yield* titleOf(first.pdf)).toBe("Reservation confirmation BR-AAAAAA")
      expect(yield* titleOf(second.pdf)).toBe("Reservation confirmation BR-BBBBBB")
    }).pipe(withWorkers(1)))

  it.live("draws asked at once go to the pool's threads, each answered with its own document", () =>
    Effect.gen(function*() {
      const numbers = ["BR-AAAAAA", "BR-BBBBBB", "BR-CCCCCC", "BR-DDDDDD", "BR-EEEEEE"]
      const drawn = yield* Effect.all(numbers.map(draw), { concurrency: "unbounded" })
      expect(yield* Effect.all(drawn.map((d) => titleOf(d.pdf)))).toEqual(numbers.map((n) => `Reservation confirmation ${n}`))
      const threads = new Set(drawn.map((d) => d.threadId))
      expect(threads.size).toBeLessThanOrEqual(2)
      expect(threads.has(threadId)).toBe(false)
    }).pipe(withWorkers(2)))

  it.live("a thread that stops mid-draw fails that draw saying so; the next draw starts a new thread", () =>
    Effect.gen(function*() {
      const before = yield* draw("BR-AAAAAA")
      const crashed = yield* Effect.flip(draw(CRASHING))
      expect(crashed._tag).toBe("PdfWorkerError")
      expect(crashed.message).toBe("the PDF worker stopped (exit code 70)")
      const after = yield* draw("BR-BBBBBB")
      expect(yield* titleOf(after.pdf)).toBe("Reservation confirmation BR-BBBBBB")
      expect(after.threadId).not.toBe(before.threadId)
    }).pipe(withWorkers(1, new URL("../../support/crashingPdfWorker.ts", import.meta.url))))

  it.live("a thread that cannot start fails the draw saying why, and the next one too", () =>
    Effect.gen(function*() {
      for (const number of ["BR-AAAAAA", "BR-BBBBBB"]) {
        const failed = yield* Effect.flip(draw(number))
        expect(failed.message).toMatch(/^the PDF worker stopped \(exit code 1\): Cannot find module .*NoSuchWorker\.js/)
      }
    }).pipe(withWorkers(1, new URL("./NoSuchWorker.js", DEFAULT_ENTRY))))

  it.live("the threads stop with the layer: a draw still running when it closes fails, never hangs", () =>
    Effect.gen(function*() {
      const scope = yield* Effect.scope
      const context = yield* Layer.buildWithScope(PdfWorkers.layerWith({ size: 1, entry: DEFAULT_ENTRY }), scope)
      // started at once, so the draw is sent to its thread and waits for the answer when the scope closes
      const running = yield* Effect.forkChild(Effect.provide(draw("BR-AAAAAA"), context), { startImmediately: true })
      return running
    }).pipe(
      Effect.scoped,
      Effect.flatMap((running) => Effect.flip(Fiber.join(running))),
      Effect.map((failed) => expect(failed.message).toMatch(/^the PDF worker stopped/))
    ))
})
