import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import type { HttpServerRequest } from "effect/http"
import { type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders, ServerResponse } from "node:http"

/** Headers the admission gives an answer (`ApiResponse#answerHeaders`). */
export type AnswerHeaders = Readonly<Record<string, string>>

/**
 * The API server's responses (`new Server({ ServerResponse: ApiResponse })`): the headers the
 * admission gives an answer (`answerHeaders`) go into its head when the head is written, whoever
 * writes it: the application, or Node itself on an `end()` with no head. Set beforehand with
 * `setHeader`, each was checked there, and then every header of the head was set again one by one:
 * Node's `writeHead` takes the headers it is given as they are only while none was set before
 * (docs/performance.md: with this, and `close` listeners added with `on`, GET /v1/hotel runs
 * 390,000–397,000 instructions against 411,000–420,000). A header of the same name set on the
 * response or given to `writeHead` (in lower case, as the platform writes them) wins, as it did
 * over one set beforehand.
 */
export class ApiResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  answerHeaders: AnswerHeaders | undefined = undefined
  /** The ones added since (`addAnswerHeaders`), kept apart: the admission's are one object for every answer. */
  #addedHeaders: AnswerHeaders | undefined = undefined
  /** The headers given to `writeHead` as an object, which Node writes without keeping them. */
  #headHeaders: OutgoingHttpHeaders | undefined = undefined

  /**
   * More headers for the answer's head, as the admission's (the rate limit's, known before the
   * application answers): a later one of the same name wins, and the application's own still win.
   */
  addAnswerHeaders(headers: AnswerHeaders) {
    this.#addedHeaders = this.#addedHeaders === undefined ? headers : { ...this.#addedHeaders, ...headers }
  }

  /** A header of the answer as written: given to `writeHead`, or set on the response. */
  writtenHeader(name: string): OutgoingHttpHeader | undefined {
    return this.#headHeaders?.[name] ?? this.getHeader(name)
  }

  override writeHead(
    statusCode: number,
    reasonOrHeaders?: string | OutgoingHttpHeaders | Array<OutgoingHttpHeader>,
    headers?: OutgoingHttpHeaders | Array<OutgoingHttpHeader>
  ): this {
    const ours = this.answerHeaders
    const added = this.#addedHeaders
    this.answerHeaders = undefined
    this.#addedHeaders = undefined
    const reason = typeof reasonOrHeaders === "string" ? reasonOrHeaders : undefined
    // as Node reads them: the headers are the third argument, else a second that is no reason phrase
    const given = headers ?? (reason === undefined ? reasonOrHeaders as typeof headers : undefined)
    const head: OutgoingHttpHeaders = {}
    if (ours !== undefined) for (const name in ours) if (!this.hasHeader(name)) head[name] = ours[name]
    if (added !== undefined) for (const name in added) if (!this.hasHeader(name)) head[name] = added[name]
    if (Array.isArray(given)) {
      // a raw list of names and values, which Node sets over the response's own
      for (const name in head) this.setHeader(name, head[name]!)
      return super.writeHead(statusCode, reason as string, given)
    }
    this.#headHeaders = Object.assign(head, given)
    return super.writeHead(statusCode, reason as string, head)
  }
}

/** The response of a request to the API's server, every one of which is an `ApiResponse` (Server.ts). */
export const apiResponseOf = (request: HttpServerRequest.HttpServerRequest): ApiResponse =>
  NodeHttpServerRequest.toServerResponse(request) as ApiResponse
