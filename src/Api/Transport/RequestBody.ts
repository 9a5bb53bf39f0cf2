import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Exit, Inspectable, type Schema } from "effect"
import { HttpIncomingMessage, HttpServerError, HttpServerRequest, UrlParams } from "effect/http"
import type { Readable } from "node:stream"

/**
 * The request as the platform serves it, but with a body reader of our own behind `text`,
 * `json`, `urlParamsBody` and `arrayBuffer`: the body's limits in one place.
 *
 * - Past `maxBytes` it stops reading and fails with `tooLarge` (a declared Content-Length is
 *   refused before any of this), whatever the route: the platform's limit is one for the whole
 *   server, and it reads the rest of such a body into nothing; here the connection is closed
 *   after the answer instead, since the rest of that body is never read.
 * - Arrays and objects nested deeper than `maxDepth` are refused: by `json`, and by `text` where
 *   `textDepth` says so (the API's framework parses the text itself).
 * - It waits on plain callbacks, where the platform's reader builds `Effect.runSync(Effect.cached(…))`
 *   and a stream-finished watch a request: on Effect 4 that is no longer dearer than this
 *   reader by more than a microsecond (docs/performance.md).
 */
export const withBoundedBody = (limits: BodyLimits) =>
(request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest =>
  new BoundedBodyRequest(request, readOnce(request, limits.maxBytes, limits.tooLarge), limits)

export interface BodyLimits {
  readonly maxBytes: number
  /** The cause of the `RequestParseError` of a body over `maxBytes`. */
  readonly tooLarge: unknown
  /**
   * Arrays and objects nested deeper than this are refused: no body of the API nests more than a
   * few levels, and a decode error's report of a value thousands of levels deep overflowed the
   * stack (a 500).
   */
  readonly maxDepth: number
  /** The cause of the `RequestParseError` of a JSON body nested deeper than `maxDepth`. */
  readonly tooDeep: unknown
  /** Whether `text` refuses such a body too: the API's framework reads the text and parses it itself. */
  readonly textDepth: boolean
}

/**
 * Whether a JSON text nests arrays and objects more than `levels` deep: its brackets counted
 * outside its strings, one pass with no parse (an invalid text may be said to nest; the caller
 * parses it to tell).
 */
const nestsDeeper = (text: string, levels: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // a backslash escapes the next character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > levels) return true
    } else if (c === 93 || c === 125) depth--
  }
  return false
}

/** Whether `text` is valid JSON nested deeper than `levels`; invalid JSON is left to whoever parses it. */
const isDeepJson = (text: string, levels: number): boolean => {
  if (!nestsDeeper(text, levels)) return false
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

const parseFailure = (request: HttpServerRequest.HttpServerRequest, cause: unknown) =>
  new HttpServerError.HttpServerError({ reason: new HttpServerError.RequestParseError({ request, reason: "Parse", cause }) })

/** Everything but the body is the platform's request. One class, so every request has one shape. */
class BoundedBodyRequest extends Inspectable.Class implements HttpServerRequest.HttpServerRequest {
  readonly [HttpServerRequest.TypeId]: typeof HttpServerRequest.TypeId = HttpServerRequest.TypeId
  readonly [HttpIncomingMessage.TypeId]: typeof HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  constructor(
    private readonly request: HttpServerRequest.HttpServerRequest,
    private readonly body: Effect.Effect<Buffer, HttpServerError.HttpServerError>,
    private readonly limits: BodyLimits
  ) {
    super()
  }
  private get utf8() {
    return Effect.map(this.body, (body) => body.toString("utf8"))
  }
  get text(): Effect.Effect<string, HttpServerError.HttpServerError> {
    if (!this.limits.textDepth) return this.utf8
    return Effect.flatMap(this.utf8, (text) =>
      isDeepJson(text, this.limits.maxDepth) ? Effect.fail(parseFailure(this.request, this.limits.tooDeep)) : Effect.succeed(text))
  }
  get arrayBuffer() {
    // a Buffer.concat result: never a SharedArrayBuffer
    return Effect.map(this.body, (body) => body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer)
  }
  get json(): Effect.Effect<Schema.Json, HttpServerError.HttpServerError> {
    // one step for every body: parsed and measured in plain code
    return Effect.flatMap(this.utf8, (text) => {
      let value: Schema.Json
      try {
        value = text === "" ? null : JSON.parse(text)
      } catch (cause) {
        return Effect.fail(parseFailure(this.request, cause))
      }
      return nestsDeeper(text, this.limits.maxDepth)
        ? Effect.fail(parseFailure(this.request, this.limits.tooDeep))
        : Effect.succeed(value)
    })
  }
  get urlParamsBody() {
    return Effect.map(this.utf8, (text) => UrlParams.fromInput(new URLSearchParams(text)))
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
  get peerAddress() {
    return this.request.peerAddress
  }
  get protocol() {
    return this.request.protocol
  }
  get cookies() {
    return this.request.cookies
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
  upgradeWith(options: Parameters<HttpServerRequest.HttpServerRequest["upgradeWith"]>[0]) {
    return this.request.upgradeWith(options)
  }
  modify(options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]) {
    return new BoundedBodyRequest(this.request.modify(options), this.body, this.limits)
  }
  toJSON() {
    return this.request.toJSON()
  }
}

const readOnce = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number,
  tooLarge: unknown
): Effect.Effect<Buffer, HttpServerError.HttpServerError> => {
  let outcome: Exit.Exit<Buffer, HttpServerError.HttpServerError> | undefined
  let started = false
  const waiting: Array<(exit: Exit.Exit<Buffer, HttpServerError.HttpServerError>) => void> = []
  const settle = (exit: Exit.Exit<Buffer, HttpServerError.HttpServerError>) => {
    outcome = exit
    waiting.splice(0).forEach((resume) => resume(exit))
  }
  const start = () => {
    const source: Readable = NodeHttpServerRequest.toIncomingMessage(request)
    const chunks: Array<Buffer> = []
    let bytes = 0
    const onData = (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes <= maxBytes) return void chunks.push(chunk)
      source.off("data", onData).off("end", onEnd).pause()
      NodeHttpServerRequest.toServerResponse(request).setHeader("connection", "close")
      settle(Exit.fail(
        new HttpServerError.HttpServerError({
          reason: new HttpServerError.RequestParseError({ request, reason: "BodyTooLarge", cause: tooLarge })
        })
      ))
    }
    const onEnd = () => settle(Exit.succeed(Buffer.concat(chunks, bytes)))
    source.on("data", onData).once("end", onEnd).once("error", (cause) => settle(Exit.fail(parseFailure(request, cause))))
  }
  return Effect.callback((resume) => {
    if (outcome !== undefined) return resume(outcome)
    waiting.push(resume)
    if (!started) {
      started = true
      start()
    }
  })
}
