import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Ref } from "effect"
import type { ReservationId } from "../../src/Domain/Ids.js"
import { manageView } from "../../src/Domain/Management.js"
import type { ReservationRecord } from "../../src/Domain/Reservation.js"
import { reservationView } from "../../src/Domain/ReservationViews.js"
import { PdfWorkerError, PdfWorkers } from "../../src/Layers/Pdf/PdfWorkers.js"
import { Documents, KEPT_CONFIRMATIONS } from "../../src/Services/Documents.js"
import { demoHotel } from "../support/hotel.js"
import { sampleReservation } from "../support/reservation.js"

const MANAGE_URL = "https://hotel.test/manage#token=t"

/** The drawings asked of the PDF workers, and a gate that holds them until opened. */
class Drawings extends Context.Service<Drawings, {
  readonly count: Ref.Ref<number>
  readonly open: Deferred.Deferred<void>
  /** The drawings of these reservation numbers fail as a stopped thread's. */
  readonly failing: Ref.Ref<ReadonlySet<string>>
}>()("test/Drawings") {}

/**
 * PDF workers that draw a "PDF" naming the document and the drawing's number, once the gate is
 * open: at once, or when the test opens it (`closed`).
 */
const countingWorkers = (gate: "open" | "closed") => Layer.effectContext(Effect.gen(function*() {
  const drawings = { count: yield* Ref.make(0), open: yield* Deferred.make<void>(), failing: yield* Ref.make<ReadonlySet<string>>(new Set()) }
  if (gate === "open") yield* Deferred.succeed(drawings.open, undefined)
  const workers: Context.Service.Shape<typeof PdfWorkers> = {
    draw: (document) =>
      Effect.gen(function*() {
        const n = yield* Ref.updateAndGet(drawings.count, (c) => c + 1)
        yield* Deferred.await(drawings.open)
        if ((yield* Ref.get(drawings.failing)).has(document.reservationNumber)) {
          return yield* new PdfWorkerError({ message: "the PDF worker stopped (exit code 70)" })
        }
        return { pdf: new TextEncoder().encode(`${document.reservationNumber} ${document.language} #${n}`), threadId: 1 }
      })
  }
  return Context.make(PdfWorkers, workers).pipe(Context.add(Drawings, drawings))
}))

const documentsOn = (gate: "open" | "closed") => Documents.layerWithoutDependencies.pipe(Layer.provideMerge(countingWorkers(gate)))
const TestDocuments = documentsOn("open")

const record = (id: string, changes: Partial<ReservationRecord> = {}): ReservationRecord => ({
  ...sampleReservation(),
  id: id as ReservationId,
  number: `BR-${id.toUpperCase()}`,
  ...changes
})

const confirmation = (r: ReservationRecord, view = reservationView(demoHotel, r)) =>
  Effect.flatMap(Documents, (documents) => documents.confirmationPdf(demoHotel, view, MANAGE_URL).pipe(Effect.map((pdf) => new TextDecoder().decode(pdf))))

const drawings = Effect.flatMap(Drawings, ({ count }) => Ref.get(count))

describe("confirmation PDFs kept per reservation version", () => {
  it.effect("the confirmation email's view and the manage link's view are one version: drawn once, then kept", () =>
    Effect.gen(function*() {
      const r = record("aaaaaa")
      const emailed = yield* confirmation(r)
      const downloaded = yield* confirmation(r, manageView(demoHotel, r, Date.parse("2027-01-10T10:00:00Z")))
      const again = yield* confirmation(r)
      expect(emailed).toBe("BR-AAAAAA en #1")
      expect([downloaded, again]).toEqual([emailed, emailed])
      expect(yield* drawings).toBe(1)
    }).pipe(Effect.provide(TestDocuments)))

  it.effect("a change to what the document shows is a new version, drawn again; the old one is not kept", () =>
    Effect.gen(function*() {
      const r = record("bbbbbb")
      const first = yield* confirmation(r)
      const phone = yield* confirmation({ ...r, guest: { ...r.guest!, phone: "+33 6 00 00 00 01" } })
      const french = yield* confirmation({ ...r, guest: { ...r.guest!, phone: "+33 6 00 00 00 01" }, language: "fr" })
      const cancelled = yield* confirmation({ ...r, status: "CANCELLED" })
      expect([first, phone, french, cancelled]).toEqual(["BR-BBBBBB en #1", "BR-BBBBBB en #2", "BR-BBBBBB fr #3", "BR-BBBBBB en #4"])
      // another reservation's is kept apart
      expect(yield* confirmation(record("cccccc"))).toBe("BR-CCCCCC en #5")
      expect(yield* confirmation({ ...r, status: "CANCELLED" })).toBe("BR-BBBBBB en #4")
      // only the latest version of a reservation is kept
      expect(yield* confirmation(r)).toBe("BR-BBBBBB en #6")
    }).pipe(Effect.provide(TestDocuments)))

  it.effect("asks for a version while it is being drawn wait for that one drawing", () =>
    Effect.gen(function*() {
      const r = record("dddddd")
      // each has asked and waits: started at once, a fork runs until it waits
      const asks = yield* Effect.forEach([1, 2, 3, 4, 5], () => Effect.forkChild(confirmation(r), { startImmediately: true }))
      yield* Deferred.succeed((yield* Drawings).open, undefined)
      expect(yield* Fiber.joinAll(asks)).toEqual(Array(5).fill("BR-DDDDDD en #1"))
      expect(yield* drawings).toBe(1)
    }).pipe(Effect.provide(documentsOn("closed"))))

  it.effect("an ask that leaves while its version is drawn does not stop the drawing: the next ask gets it", () =>
    Effect.gen(function*() {
      const r = record("gggggg")
      const left = yield* Effect.forkChild(confirmation(r), { startImmediately: true })
      yield* Fiber.interrupt(left)
      yield* Deferred.succeed((yield* Drawings).open, undefined)
      expect(yield* confirmation(r)).toBe("BR-GGGGGG en #1")
      expect(yield* drawings).toBe(1)
    }).pipe(Effect.provide(documentsOn("closed"))))

  it.effect("a drawing that failed is not kept: the ask fails as unavailable, the next one draws again", () =>
    Effect.gen(function*() {
      const { failing } = yield* Drawings
      yield* Ref.set(failing, new Set(["BR-EEEEEE"]))
      const r = record("eeeeee")
      for (let i = 0; i < 2; i++) {
        const failed = yield* Effect.flip(confirmation(r))
        expect(failed).toMatchObject({ _tag: "ServiceUnavailable", message: "the confirmation PDF could not be drawn just now: try again in a moment" })
      }
      yield* Ref.set(failing, new Set())
      expect(yield* confirmation(r)).toBe("BR-EEEEEE en #3")
    }).pipe(Effect.provide(TestDocuments)))

  it.effect(`at most ${KEPT_CONFIRMATIONS} reservations' confirmations are kept: the least recently asked goes first`, () =>
    Effect.gen(function*() {
      const ids = Array.from({ length: KEPT_CONFIRMATIONS + 1 }, (_, i) => `f${String(i).padStart(5, "0")}`)
      for (const id of ids.slice(0, KEPT_CONFIRMATIONS)) yield* confirmation(record(id))
      // the first is asked again: the second is now the least recently asked
      yield* confirmation(record(ids[0]!))
      yield* confirmation(record(ids[KEPT_CONFIRMATIONS]!))
      expect(yield* drawings).toBe(KEPT_CONFIRMATIONS + 1)
      yield* confirmation(record(ids[0]!))
      expect(yield* drawings).toBe(KEPT_CONFIRMATIONS + 1)
      yield* confirmation(record(ids[1]!))
      expect(yield* drawings).toBe(KEPT_CONFIRMATIONS + 2)
    }).pipe(Effect.provide(TestDocuments)))
})
