import { Clock, Context, Data, Duration, Effect, Layer, Queue } from "effect"
import { createRequire } from "node:module"
import { availableParallelism } from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import type { ConfirmationDocument } from "../../Domain/ConfirmationDocument.js"
import type { DrawRequest, DrawResponse } from "./ConfirmationPdfWorker.js"
import * as Tracing from "../Platform/Tracing.js"

/** A PDF was not drawn: its worker thread stopped (or never started), or it took far too long. */
export class PdfWorkerError extends Data.TaggedError("PdfWorkerError")<{ readonly message: string }> {}

export interface DrawnPdf {
  readonly pdf: Uint8Array
  /** The worker thread that drew it, for the traces. */
  readonly threadId: number
}

export interface PdfWorkersOptions {
  /** Threads drawing at once. */
  readonly size: number
  /** The thread's module: `ConfirmationPdfWorker`, compiled (.js) or not (.ts, run through tsx). */
  readonly entry: URL
}

/**
 * One thread per core but the one the requests run on, and at most two: PDFs are rare beside the
 * other requests, and a third thread would only take CPU from them.
 */
const DEFAULT_SIZE = Math.max(1, Math.min(2, availableParallelism() - 1))

/**
 * The thread entry beside this module: .ts under tsx and vitest; once built, .js at the root of
 * dist/, beside the chunk holding this code (src/bin/build.mjs).
 */
export const DEFAULT_ENTRY = new URL(`./ConfirmationPdfWorker${path.extname(new URL(import.meta.url).pathname)}`, import.meta.url)

/** A draw takes a fraction of a second: one still running after this is stuck, and its thread is stopped. */
const DRAW_TIMEOUT = Duration.seconds(30)

/** The threads run in real time, whatever clock the caller keeps (a test's). */
const realClock = Clock.Clock.defaultValue()

/**
 * tsx's ESM API, resolved from here as an `import` would (its `require` build cannot register the
 * loader from a worker): a TypeScript entry (vitest, `npm run dev`) loads it first, since Node 20
 * ignores `--import tsx` in a worker's execArgv.
 */
const tsxEsmApi = () => {
  const require = createRequire(import.meta.url)
  const manifest = require.resolve("tsx/package.json")
  const target: string = require(manifest).exports["./esm/api"].import.default
  return pathToFileURL(path.join(path.dirname(manifest), target)).href
}

const throughTsx = (entry: URL) =>
  `import(${JSON.stringify(tsxEsmApi())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}) })`

/** A started thread, and why it stopped if it threw. */
interface Thread {
  readonly worker: Worker
  failure: string | undefined
}

/** A place in the pool: its thread starts at its first draw, and again at the next draw after it stopped. */
interface Slot {
  thread: Thread | undefined
}

const make = (options: PdfWorkersOptions) =>
  Effect.gen(function*() {
    const slots: Array<Slot> = Array.from({ length: options.size }, () => ({ thread: undefined }))
    // a draw takes a free slot, or waits in line for one
    const free = yield* Queue.unbounded<Slot>()
    yield* Queue.offerAll(free, slots)
    // the threads end with the layer: a draw still running fails (its thread stopped), one waiting is interrupted
    yield* Effect.addFinalizer(() =>
      Effect.andThen(Queue.shutdown(free), Effect.promise(() => Promise.all(slots.map((slot) => slot.thread?.worker.terminate()))))
    )
    let requests = 0

    const start = (slot: Slot): Thread => {
      const worker = options.entry.pathname.endsWith(".ts")
        ? new Worker(throughTsx(options.entry), { eval: true })
        : new Worker(options.entry)
      const thread: Thread = { worker, failure: undefined }
      // an 'error' without a listener would be thrown on this thread; 'exit' always follows it
      worker.on("error", (error) => void (thread.failure = error.message))
      worker.once("exit", () => {
        if (slot.thread === thread) slot.thread = undefined
      })
      return (slot.thread = thread)
    }

    const drawOn = (thread: Thread, request: DrawRequest) =>
      Effect.callback<DrawnPdf, PdfWorkerError>((resume) => {
        const onMessage = (response: DrawResponse) => {
          if (response.id !== request.id) return // the answer to a draw whose caller left
          stop()
          resume(
            "error" in response
              ? Effect.die(new Error(`the PDF worker could not draw ${request.document.reservationNumber}: ${response.error}`))
              : Effect.succeed({ pdf: response.pdf, threadId: response.threadId })
          )
        }
        const onExit = (code: number) => {
          stop()
          const why = thread.failure === undefined ? "" : `: ${thread.failure}`
          resume(Effect.fail(new PdfWorkerError({ message: `the PDF worker stopped (exit code ${code})${why}` })))
        }
        const stop = () => void thread.worker.off("message", onMessage).off("exit", onExit)
        thread.worker.on("message", onMessage).once("exit", onExit)
        thread.worker.postMessage(request)
        return Effect.sync(stop)
      })

    const drawIn = (slot: Slot, document: ConfirmationDocument, createdAt: Date) =>
      Effect.suspend(() => {
        const thread = slot.thread ?? start(slot)
        return drawOn(thread, { id: requests++, document, createdAt }).pipe(
          Effect.timeoutOrElse({
            duration: DRAW_TIMEOUT,
            orElse: () => Effect.fail(new PdfWorkerError({ message: `the PDF worker took over ${Duration.format(DRAW_TIMEOUT)}: stopped` }))
          }),
          Effect.tapErrorTag("PdfWorkerError", () => Effect.promise(() => thread.worker.terminate())),
          Effect.provideService(Clock.Clock, realClock)
        )
      })

    return {
      draw: Tracing.fn("PdfWorkers.draw")(function*(document: ConfirmationDocument, createdAt: Date) {
        const drawn = yield* Effect.acquireUseRelease(Queue.take(free), (slot) => drawIn(slot, document, createdAt), (slot) => Queue.offer(free, slot))
        yield* Tracing.annotate({ "pdf.worker.thread_id": drawn.threadId, "pdf.bytes": drawn.pdf.length })
        return drawn
      })
    }
  })

/**
 * Draws confirmation PDFs in worker threads (`ConfirmationPdfWorker`), so that no request waits
 * behind one on the main thread. A thread that stops (a crash) fails the draw it had and is
 * started again at the next one.
 */
export class PdfWorkers extends Context.Service<PdfWorkers, {
  /** The document as a PDF, drawn in the first free thread (in line when none is free). */
  readonly draw: (document: ConfirmationDocument, createdAt: Date) => Effect.Effect<DrawnPdf, PdfWorkerError>
}>()("PdfWorkers") {
  /** A pool of its own size and thread entry (the tests'). */
  static readonly layerWith = (options: PdfWorkersOptions) => Layer.effect(PdfWorkers, make(options))

  static readonly layer = PdfWorkers.layerWith({ size: DEFAULT_SIZE, entry: DEFAULT_ENTRY })
}
