/**
 * One message a client POSTs to `/mcp`, checked before the protocol reads it, and the protocol's
 * answer, checked before it is written. The RPC layer under the MCP server answers a malformed
 * message with a defect (its schema's text, a wrong id) or, for a body that is not an object, a
 * 500, and a failure with its whole cause; here each gets the answer the protocols say it should.
 */
import * as McpSchema from "@effect/ai/McpSchema"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as RpcMessage from "@effect/rpc/RpcMessage"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import { Either, ParseResult, Predicate, Schema } from "effect"
import { MCP_PATH } from "../Contract/Discovery.js"
import { ValidationError } from "../../Domain/Errors.js"
import { describeIssues, quote, ValidationErrorBody } from "../Contract/Errors.js"

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
 * Keys that reach an object's prototype when code copies or merges one: no MCP message has such a
 * field, so a message carrying one is refused before any schema or handler sees it.
 */
const PROTOTYPE_KEYS = new Set(["__proto__", "constructor", "prototype"])

/** Where the first of `PROTOTYPE_KEYS` is, at any depth of a JSON value (at most 16 levels: RequestBody). */
const prototypeKeyAt = (value: unknown, path = ""): string | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const isArray = Array.isArray(value)
  for (const [key, child] of Object.entries(value)) {
    const at = isArray ? `${path}[${key}]` : `${path === "" ? "" : `${path}.`}${quote(key)}`
    if (!isArray && PROTOTYPE_KEYS.has(key)) return at
    const found = prototypeKeyAt(child, at)
    if (found !== undefined) return found
  }
  return undefined
}

/** How much of an unknown tool's name an answer repeats: any real name fits. */
const MAX_ECHOED_TOOL_NAME = 64

/** The problem with a message's method and params, as a JSON-RPC error, if it has one. */
const problemOf = (
  tools: ReadonlySet<string>,
  message: unknown,
  method: string,
  params: unknown
): { readonly code: number; readonly message: string } | undefined => {
  const decodeParams = paramsDecoders.get(method)
  if (decodeParams === undefined) return { code: -32601, message: `Method not found: ${method}` }
  // in the message as sent: decoding the envelope drops a `__proto__` key of params
  const prototypeKey = prototypeKeyAt(message)
  if (prototypeKey !== undefined) return { code: -32602, message: `Invalid params of ${method}: ${prototypeKey} is a key no message may carry` }
  return Either.match(decodeParams(params), {
    onLeft: (error) => ({ code: -32602, message: `Invalid params of ${method}: ${issuesOf(error)}` }),
    onRight: (decoded) =>
      method === "tools/call" && Predicate.hasProperty(decoded, "name") && typeof decoded.name === "string" && !tools.has(decoded.name)
        ? { code: -32602, message: `Unknown tool: ${quote(decoded.name, MAX_ECHOED_TOOL_NAME)}` }
        : undefined
  })
}

/**
 * The answer to a message the protocol must not see, if it is one: a batch (an array: MCP
 * 2025-06-18 removed them, and the protocol would run their calls all at once) or anything not a
 * JSON-RPC message is 400 `invalid_request`; a request for a method MCP has not, with params its
 * method does not take or that carry a prototype's key, or for a tool the server has not (`tools`),
 * is a JSON-RPC error under the request's id; a notification of any of these is accepted and
 * ignored, as JSON-RPC answers no notification.
 */
export const refusal = (tools: ReadonlySet<string>) => (message: unknown): HttpServerResponse.HttpServerResponse | undefined => {
  if (Array.isArray(message)) return invalidRequest("MCP 2025-06-18 removed JSON-RPC batches (an array body)")
  const envelope = decodeEnvelope(message)
  if (Either.isLeft(envelope)) return invalidRequest(issuesOf(envelope.left))
  const { id, method, params } = envelope.right
  const problem = problemOf(tools, message, method, params)
  if (problem === undefined) return undefined
  return id === undefined ? HttpServerResponse.empty({ status: 202 }) : rpcError(id, problem.code, problem.message)
}

// --- answers ----------------------------------------------------------------------

/** JSON-RPC's codes of a request refused for what it says; their message tells the client what to fix. */
const REFUSAL_CODES = new Set([-32700, -32600, -32601, -32602])

/** The longest message of a refusal: enough to name the field, never a request echoed back. */
const MAX_REFUSAL_MESSAGE = 300

/** Our fault, whatever it was (logged where it happened): JSON-RPC's internal error, with no internals. */
const INTERNAL_ERROR = { code: -32603, message: "Internal error" }

interface JsonRpcAnswer {
  readonly jsonrpc: "2.0"
  readonly id?: number | null | undefined
  readonly error?: { readonly _tag?: "Cause" | "Defect"; readonly code: number; readonly message: string }
}

/** An error answer as a client may see it: `{code, message}`, no cause, no defect, no stack. */
const publicAnswer = (answer: JsonRpcAnswer): JsonRpcAnswer => {
  const { error } = answer
  if (error === undefined) return answer
  // the RPC layer puts -32603 in the id of a defect's answer: it belongs to no request
  if (error._tag === "Defect") return { jsonrpc: "2.0", id: null, error: INTERNAL_ERROR }
  return {
    jsonrpc: "2.0",
    id: answer.id,
    error: REFUSAL_CODES.has(error.code) ? { code: error.code, message: quote(error.message, MAX_REFUSAL_MESSAGE) } : INTERNAL_ERROR
  }
}

type ServerMessage = RpcMessage.FromServerEncoded

const failed = (message: ServerMessage) => message._tag === "Defect" || (message._tag === "Exit" && message.exit._tag === "Failure")

/**
 * JSON-RPC as the RPC layer writes it, but an error answer carries only its code and message: the
 * layer would add the failure's whole cause (`data`), a defect's message and stack included.
 */
export const jsonRpcWithoutInternals = (serialization: RpcSerialization.RpcSerialization["Type"]) =>
  RpcSerialization.RpcSerialization.of({
    ...serialization,
    unsafeMake: () => {
      const parser = serialization.unsafeMake()
      return {
        decode: parser.decode,
        encode: (response) => {
          const messages = (Array.isArray(response) ? response : [response]) as ReadonlyArray<ServerMessage>
          const encoded = parser.encode(response)
          if (typeof encoded !== "string" || !messages.some(failed)) return encoded
          const answer: JsonRpcAnswer | ReadonlyArray<JsonRpcAnswer> = JSON.parse(encoded)
          return JSON.stringify(Array.isArray(answer) ? answer.map(publicAnswer) : publicAnswer(answer as JsonRpcAnswer))
        }
      }
    }
  })
