import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Multipart from "@effect/platform/Multipart"
import * as UrlParams from "@effect/platform/UrlParams"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Exit, Inspectable, Stream } from "effect"

/**
 * The request as the platform serves it, but with a body reader of our own behind `text`,
 * `json`, `urlParamsBody` and `arrayBuffer`.
 *
 * - The platform builds its reader with `Effect.runSync(Effect.cached(…))` and a stream scope on
 *   every request, which costs more CPU per request than this reader, which waits on plain
 *   callbacks (README, "Performance").
 * - Past `maxBytes` it stops reading and fails with `tooLarge` (a declared Content-Length is
 *   refused before any of this). The platform destroyed the socket instead, so a chunked body
 *   that was too large got no answer at all; now it gets one, and the connection is closed after
 *   it, since the rest of that body is never read.
 * - `json` refuses arrays and objects nested deeper than `maxDepth`.
 * - A multipart body is refused unread: the API takes JSON only, and the platform would have
 *   stored its files on disk first (and answered a large one with a 500).
 */
export const withBoundedBody = (limits: BodyLimits) =>
(request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest =>
  new BoundedBodyRequest(request, readOnce(request, limits.maxBytes, limits.tooLarge), limits)

export interface BodyLimits {
  readonly maxBytes: number
  /** The cause of the `RequestError` of a body over `maxBytes`. */
  readonly tooLarge: unknown
  /**
   * Arrays and objects nested deeper than this are refused by `json`: no body of the API nests
   * more than a few levels, and a decode error's report of a value thousands of levels deep
   * overflowed the stack (a 500).
   */
  readonly maxDepth: number
  /** The cause of the `RequestError` of a JSON body nested deeper than `maxDepth`. */
  readonly tooDeep: unknown
}

/** Whether a parsed JSON value nests arrays and objects more than `levels` deep. */
const nestsDeeper = (value: unknown, levels: number): boolean => {
  if (value === null || typeof value !== "object") return false
  if (levels === 0) return true
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    if (nestsDeeper(item, levels - 1)) return true
  }
  return false
}

/** Everything but the body is the platform's request. One class, so every request has one shape. */
class BoundedBodyRequest extends Inspectable.Class implements HttpServerRequest.HttpServerRequest {
  readonly [HttpServerRequest.TypeId]: HttpServerRequest.TypeId = HttpServerRequest.TypeId
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  constructor(
    private readonly request: HttpServerRequest.HttpServerRequest,
    private readonly body: Effect.Effect<Buffer, HttpServerError.RequestError>,
    private readonly limits: BodyLimits
  ) {
    super()
  }
  get text() {
    return Effect.map(this.body, (body) => body.toString("utf8"))
  }
  get arrayBuffer() {
    // a Buffer.concat result: never a SharedArrayBuffer
    return Effect.map(this.body, (body) => body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer)
  }
  get json(): Effect.Effect<unknown, HttpServerError.RequestError> {
    const refused = (cause: unknown) => Effect.fail(new HttpServerError.RequestError({ request: this.request, reason: "Decode", cause }))
    // one step for every body: parsed and measured in plain code
    return Effect.flatMap(this.text, (text) => {
      let value: unknown
      try {
        value = text === "" ? null : JSON.parse(text)
      } catch (cause) {
        return refused(cause)
      }
      return nestsDeeper(value, this.limits.maxDepth) ? refused(this.limits.tooDeep) : Effect.succeed(value)
    })
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
  get stream() {
    return this.request.stream
  }
  get multipart() {
    return Effect.fail(multipartRefused)
  }
  get multipartStream() {
    return Stream.fail(multipartRefused)
  }
  get upgrade() {
    return this.request.upgrade
  }
  modify(options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]) {
    return new BoundedBodyRequest(this.request.modify(options), this.body, this.limits)
  }
  toJSON() {
    return this.request.toJSON()
  }
}

const multipartRefused = new Multipart.MultipartError({ reason: "Parse", cause: "a multipart body where JSON was expected" })

const readOnce = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number,
  tooLarge: unknown
): Effect.Effect<Buffer, HttpServerError.RequestError> => {
  let outcome: Exit.Exit<Buffer, HttpServerError.RequestError> | undefined
  let started = false
  const waiting: Array<(exit: Exit.Exit<Buffer, HttpServerError.RequestError>) => void> = []
  const settle = (exit: Exit.Exit<Buffer, HttpServerError.RequestError>) => {
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
    const onEnd = () => settle(Exit.succeed(Buffer.concat(chunks, bytes)))
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
