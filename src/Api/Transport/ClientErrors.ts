import { Schema } from "effect"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"
import { invalidRequest } from "../../Domain/Errors.js"
import { ValidationErrorBody } from "../Contract/Errors.js"
import type { Connections } from "./Connections.js"
import { HeadersTooLarge, HeadersTooLargeBody, PayloadTooLarge, PayloadTooLargeBody, RequestTimeout, RequestTimeoutBody } from "./TransportErrors.js"

/** An answer Node writes itself, before any application sees the request; its connection is closed after it. */
const rawAnswer = (status: number, reason: string, encoded: unknown) => {
  const body = JSON.stringify(encoded)
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
    `x-content-type-options: nosniff\r\nreferrer-policy: no-referrer\r\nconnection: close\r\n\r\n${body}`
}

const clientErrorAnswers: Record<string, string> = {
  HPE_HEADER_OVERFLOW: rawAnswer(
    431,
    "Request Header Fields Too Large",
    Schema.encodeSync(HeadersTooLargeBody)(new HeadersTooLarge({ message: "the request line and headers are larger than 16 KiB" }))
  ),
  HPE_CHUNK_EXTENSIONS_OVERFLOW: rawAnswer(
    413,
    "Payload Too Large",
    Schema.encodeSync(PayloadTooLargeBody)(new PayloadTooLarge({ message: "the chunk extensions of the request body are too large" }))
  ),
  ERR_HTTP_REQUEST_TIMEOUT: rawAnswer(
    408,
    "Request Timeout",
    Schema.encodeSync(RequestTimeoutBody)(new RequestTimeout({ message: "the request was not received in time" }))
  )
}

/** The body of a request refused as invalid, outside any application. */
export const invalidRequestBody = (message: string) => Schema.encodeSync(ValidationErrorBody)(invalidRequest(message))

const malformed = rawAnswer(400, "Bad Request", invalidRequestBody("the request is not valid HTTP/1.1"))

/**
 * Node's `clientError` listener for a server whose connections `connections` holds. A request
 * Node's parser refuses (headers over 16 KiB, a malformed message, a timeout) is answered as Node
 * would, with its status, but with an `Error` body: by default Node's answer had none. Nothing is
 * written when an answer to an earlier request on the connection is already under way.
 */
export const answerClientErrors = (connections: Connections) => (error: NodeJS.ErrnoException, socket: Duplex) => {
  const underWay = [...connections.answering(socket as Socket)].some((response) => response.headersSent && !response.writableFinished)
  if (socket.writable && !underWay) socket.write(clientErrorAnswers[error.code ?? ""] ?? malformed)
  socket.destroy(error)
}
