/**
 * One message a client POSTs to `/mcp`, checked before the protocol reads it. The RPC layer under
 * the MCP server answers a malformed message with a defect (its schema's text, a wrong id) or, for
 * a body that is not an object, a 500; here each gets the answer the protocols say it should.
 */
import * as McpSchema from "@effect/ai/McpSchema"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Either, ParseResult, Schema } from "effect"
import { MCP_PATH } from "../Domain/Discovery.js"
import { ValidationError } from "../Domain/Errors.js"
import { describeIssues, ValidationErrorBody } from "./Errors.js"

/**
 * A request id: a whole number, or one written as a string (the RPC layer turns ids into integers,
 * so other strings and fractions cannot be answered under their own id).
 */
const RequestId = Schema.Union(
  Schema.Int.pipe(Schema.between(-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)),
  Schema.String.pipe(Schema.pattern(/^-?\d{1,15}$/))
).annotations({ message: () => ({ message: "must be a whole number (this server answers no other ids)", override: true }) })

/** A JSON-RPC 2.0 request (with an id) or notification (without). */
const Envelope = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.optional(RequestId),
  method: Schema.String.pipe(Schema.maxLength(100)),
  params: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})

const decodeEnvelope = Schema.decodeUnknownEither(Envelope)

/** Every method a client may call or notify, with the schema of its params. */
const methods = McpSchema.ClientRpcs.requests as ReadonlyMap<string, { readonly payloadSchema: Schema.Schema.Any }>

const paramsDecoders = new Map(
  [...methods].map(([method, rpc]) => [method, Schema.decodeUnknownEither(rpc.payloadSchema as Schema.Schema<unknown>)])
)

const invalidRequest = (detail: string) =>
  HttpServerResponse.unsafeJson(
    Schema.encodeSync(ValidationErrorBody)(
      new ValidationError({
        code: "invalid_request",
        message: `${MCP_PATH} takes one JSON-RPC 2.0 request or notification of MCP: ${detail}`
      })
    ),
    { status: 400 }
  )

/** A JSON-RPC error answer to a request, under its id (`-32601` method not found, `-32602` invalid params). */
const rpcError = (id: number | string, code: number, message: string) =>
  HttpServerResponse.unsafeJson({ jsonrpc: "2.0", id: typeof id === "string" ? Number(id) : id, error: { code, message } })

const issuesOf = (error: ParseResult.ParseError) =>
  describeIssues(ParseResult.ArrayFormatter.formatErrorSync(error)) ?? error.message

/**
 * The answer to a message the protocol must not see, if it is one: a batch (an array: MCP
 * 2025-06-18 removed them, and the protocol would run their calls all at once) or anything not a
 * JSON-RPC message is 400 `invalid_request`; a request for a method MCP has not, or with params
 * its method does not take, is a JSON-RPC error under the request's id; a notification of either
 * is accepted and ignored, as JSON-RPC answers no notification.
 */
export const refusal = (message: unknown): HttpServerResponse.HttpServerResponse | undefined => {
  if (Array.isArray(message)) return invalidRequest("MCP 2025-06-18 removed JSON-RPC batches (an array body)")
  const envelope = decodeEnvelope(message)
  if (Either.isLeft(envelope)) return invalidRequest(issuesOf(envelope.left))
  const { id, method, params } = envelope.right
  const decodeParams = paramsDecoders.get(method)
  const problem = decodeParams === undefined
    ? { code: -32601, message: `Method not found: ${method}` }
    : Either.match(decodeParams(params), {
      onLeft: (error) => ({ code: -32602, message: `Invalid params of ${method}: ${issuesOf(error)}` }),
      onRight: () => undefined
    })
  if (problem === undefined) return undefined
  return id === undefined ? HttpServerResponse.empty({ status: 202 }) : rpcError(id, problem.code, problem.message)
}
