import { HttpServerError, type HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect, Exit } from "effect"

/**
 * The request as the platform serves it, but with a body reader of our own behind `text` (and so
 * `json` and `urlParamsBody`, which read through it).
 *
 * - The platform builds its reader with `Effect.runSync(Effect.cached(…))` and a stream scope on
 *   every request: about 60 µs of CPU, a tenth of a quote. This one waits on plain callbacks.
 * - Past `maxBytes` it stops reading and fails with `tooLarge` (a declared Content-Length is
 *   refused before any of this). The platform destroyed the socket instead, so a chunked body
 *   that was too large got no answer at all; now it gets one, and the connection is closed after
 *   it, since the rest of that body is never read.
 */
export const withBoundedBody = (maxBytes: number, tooLarge: unknown) =>
(request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest => {
  const text = readOnce(request, maxBytes, tooLarge)
  return Object.create(request, { text: { get: () => text } })
}

const readOnce = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number,
  tooLarge: unknown
): Effect.Effect<string, HttpServerError.RequestError> => {
  let outcome: Exit.Exit<string, HttpServerError.RequestError> | undefined
  let started = false
  const waiting: Array<(exit: Exit.Exit<string, HttpServerError.RequestError>) => void> = []
  const settle = (exit: Exit.Exit<string, HttpServerError.RequestError>) => {
    outcome = exit
    waiting.splice(0).forEach((resume) => resume(exit))
  }
  const start = () => {
    const source = NodeHttpServerRequest.toIncomingMessage(request)
    const chunks: Array<Buffer> = []
    let bytes = 0
    const onData = (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes <= maxBytes) return void chunks.push(chunk)
      source.off("data", onData).off("end", onEnd).pause()
      NodeHttpServerRequest.toServerResponse(request).setHeader("connection", "close")
      settle(Exit.fail(new HttpServerError.RequestError({ request, reason: "Decode", cause: tooLarge })))
    }
    const onEnd = () => settle(Exit.succeed(Buffer.concat(chunks, bytes).toString("utf8")))
    source.on("data", onData).once("end", onEnd).once("error", (cause) =>
      settle(Exit.fail(new HttpServerError.RequestError({ request, reason: "Transport", cause }))))
  }
  return Effect.async((resume) => {
    if (outcome !== undefined) return resume(outcome)
    waiting.push(resume)
    if (!started) {
      started = true
      start()
    }
  })
}
