import { HttpIncomingMessage, HttpServerError, HttpServerRequest, UrlParams } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect, Exit, Inspectable } from "effect"

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
(request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest =>
  new BoundedBodyRequest(request, readOnce(request, maxBytes, tooLarge))

/** Everything but the body is the platform's request. One class, so every request has one shape. */
class BoundedBodyRequest extends Inspectable.Class implements HttpServerRequest.HttpServerRequest {
  readonly [HttpServerRequest.TypeId]: HttpServerRequest.TypeId = HttpServerRequest.TypeId
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  constructor(
    private readonly request: HttpServerRequest.HttpServerRequest,
    readonly text: Effect.Effect<string, HttpServerError.RequestError>
  ) {
    super()
  }
  get json(): Effect.Effect<unknown, HttpServerError.RequestError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: () => text === "" ? null : JSON.parse(text),
        catch: (cause) => new HttpServerError.RequestError({ request: this.request, reason: "Decode", cause })
      }))
  }
  get urlParamsBody() {
    return Effect.map(this.text, (text) => UrlParams.fromInput(new URLSearchParams(text)))
  }
  get source() {
    return this.request.source
  }
  /** The Node response, where `NodeHttpServerRequest.toServerResponse` looks for it. */
  get response() {
    return NodeHttpServerRequest.toServerResponse(this.request)
  }
  get url() {
    return this.request.url
  }
  get originalUrl() {
    return this.request.originalUrl
  }
  get method() {
    return this.request.method
  }
  get headers() {
    return this.request.headers
  }
  get remoteAddress() {
    return this.request.remoteAddress
  }
  get cookies() {
    return this.request.cookies
  }
  get arrayBuffer() {
    return this.request.arrayBuffer
  }
  get stream() {
    return this.request.stream
  }
  get multipart() {
    return this.request.multipart
  }
  get multipartStream() {
    return this.request.multipartStream
  }
  get upgrade() {
    return this.request.upgrade
  }
  modify(options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]) {
    return new BoundedBodyRequest(this.request.modify(options), this.text)
  }
  toJSON() {
    return this.request.toJSON()
  }
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
