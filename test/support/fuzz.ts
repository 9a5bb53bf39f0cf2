/**
 * Fuzzing from the contract: requests generated from the served `/openapi.json` (valid values,
 * boundaries, wrong types, missing and extra fields, huge and odd Unicode strings, odd headers,
 * wrong content types), and each schema's edges (its bounds, one past them, 2^31, 2^53, 1e308,
 * -1, huge arrays and strings: one field at a time in an otherwise valid request), sent on the
 * wire to a running server, and each answer checked against the document: never a 5xx; a status
 * the operation declares; a 2xx valid against its schema; a non-2xx an `Error` body whose
 * `error.code` the document lists for that operation and status. The MCP tools are called the
 * same way (`tools/call` on `/mcp`, arguments from each tool's `inputSchema`): never an
 * `internal_error`. After every batch the server must still answer `GET /v1/health`, and every
 * integer, string or array a request can carry without an upper bound in the document (or in a
 * tool's `inputSchema`) is a failure of its own.
 *
 * Used by the sample in `npm test` (test/Api/Fuzz.test.ts, the app in process) and the full run
 * (`npm run fuzz`, test/fuzz.ts, the service spawned as `npm start` runs it).
 */
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { Context, Effect, Layer, Option } from "effect"
import { type HttpClient, HttpClientRequest } from "effect/http"
import fc from "fast-check"
import * as http from "node:http"
import type { ReservationId } from "../../src/Domain/Ids.js"
import { addDays, type LocalDate, todayIn } from "../../src/Domain/LocalDate.js"
import { Tokens } from "../../src/Services/Tokens.js"
import { completeWith, get, post, tokenOf } from "./flow.js"
import { makeTestClock } from "./clock.js"
import { baseUrl, request, TestApp } from "./TestApp.js"

// ---------------------------------------------------------------------------------------------
// The document

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
/** A JSON schema or OpenAPI object, read loosely: the document is data. */
type Doc = Record<string, any>

interface Parameter {
  readonly name: string
  readonly in: "query" | "header" | "path" | "cookie"
  readonly required: boolean
  readonly schema: Doc
}

interface Operation {
  /** e.g. `POST /v1/quotes` */
  readonly id: string
  readonly method: string
  readonly path: string
  readonly parameters: ReadonlyArray<Parameter>
  readonly body: Doc | undefined
  /** The header of its apiKey security scheme, if it has one. */
  readonly tokenHeader: string | undefined
  readonly responses: Record<string, Doc>
  /** Per declared status, the `error.code` values the document lists for it. */
  readonly codes: ReadonlyMap<string, ReadonlySet<string>>
}

const CODE_LIST = /error\.code:\s*([a-z0-9_]+(?:\s*,\s*[a-z0-9_]+)*)/g

const refTarget = (spec: Doc, ref: string): Doc =>
  ref.replace(/^#\//, "").split("/").reduce((node: Doc, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], spec)

/** Every `error.code: a, b` list in a response's description and in the schemas its content reaches. */
const declaredCodes = (spec: Doc, response: Doc): Set<string> => {
  const codes = new Set<string>()
  const texts: Array<string> = [response.description ?? ""]
  const seen = new Set<Doc>()
  const visit = (schema: Doc | undefined): void => {
    if (schema === undefined || typeof schema !== "object" || seen.has(schema)) return
    seen.add(schema)
    if (typeof schema.description === "string") texts.push(schema.description)
    if (typeof schema.$ref === "string") visit(refTarget(spec, schema.$ref))
    for (const key of ["anyOf", "oneOf", "allOf"]) for (const member of schema[key] ?? []) visit(member)
  }
  for (const media of Object.values<Doc>(response.content ?? {})) visit(media.schema)
  for (const text of texts) {
    for (const match of text.matchAll(CODE_LIST)) for (const code of match[1]!.split(",")) codes.add(code.trim())
  }
  return codes
}

const operationsOf = (spec: Doc): ReadonlyArray<Operation> =>
  Object.entries<Doc>(spec.paths).flatMap(([path, item]) =>
    Object.entries<Doc>(item).filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method)).map(
      ([method, op]) => {
        const schemes = (op.security ?? spec.security ?? []).flatMap((requirement: Doc) => Object.keys(requirement))
        const apiKey = schemes.map((name: string) => spec.components?.securitySchemes?.[name]).find((s: Doc | undefined) =>
          s?.type === "apiKey" && s.in === "header"
        )
        return {
          id: `${method.toUpperCase()} ${path}`,
          method: method.toUpperCase(),
          path,
          parameters: (op.parameters ?? []).map((p: Doc) => ({ ...p, required: p.required === true })),
          body: op.requestBody?.content?.["application/json"]?.schema,
          tokenHeader: apiKey?.name,
          responses: op.responses,
          codes: new Map(Object.entries<Doc>(op.responses).map(([status, response]) => [status, declaredCodes(spec, response)]))
        }
      }
    )
  )

// ---------------------------------------------------------------------------------------------
// Checking answers against the document

interface WireResponse {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
}

interface Verdict {
  readonly status: number
  /** `error.code` of a non-2xx answer, when it has one */
  readonly code: string | undefined
  /** What is wrong with the answer; undefined when it is what the document says. */
  readonly problem: string | undefined
}

/** Validates bodies against the document's schemas (JSON Schema 2020-12, as OpenAPI 3.1 uses). */
const makeValidator = (spec: Doc) => {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true })
  addFormats.default(ajv)
  ajv.addFormat("binary", true)
  ajv.addSchema({ $id: "openapi.json", components: spec.components })
  const cache = new Map<Doc, ReturnType<typeof ajv.compile>>()
  const rebase = (node: unknown): unknown =>
    Array.isArray(node)
      ? node.map(rebase)
      : node !== null && typeof node === "object"
      ? Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === "$ref" && typeof v === "string" ? `openapi.json${v}` : rebase(v)]))
      : node
  return (schema: Doc, value: unknown): string | undefined => {
    let validate = cache.get(schema)
    if (validate === undefined) {
      validate = ajv.compile(rebase(schema) as Doc)
      cache.set(schema, validate)
    }
    return validate(value) ? undefined : ajv.errorsText(validate.errors, { dataVar: "body" })
  }
}

const mediaType = (headers: http.IncomingHttpHeaders) => (headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()

const checkResponse = (op: Operation, validate: ReturnType<typeof makeValidator>, response: WireResponse): Verdict => {
  const status = response.status
  const verdict = (problem: string | undefined, code?: string): Verdict => ({ status, code, problem })
  if (status >= 500) return verdict(`${status}: ${response.body.toString("utf8").slice(0, 300)}`)
  const declared = op.responses[String(status)]
  if (declared === undefined) return verdict(`status ${status} is not declared for ${op.id}`)
  const type = mediaType(response.headers)
  // the document may name a type with its parameters ("text/markdown; charset=utf-8")
  const content = Object.entries<Doc>(declared.content ?? {}).find(([declared]) => declared.split(";")[0]!.trim().toLowerCase() === type)?.[1]
  if (content === undefined) return verdict(`content type "${type}" is not declared for ${status}`)
  if (type === "application/pdf") {
    return verdict(response.body.subarray(0, 5).toString("latin1") === "%PDF-" ? undefined : "not a PDF")
  }
  // a declared text document (llms.txt): any text is valid
  if (type.startsWith("text/")) return verdict(undefined)
  let body: unknown
  try {
    body = JSON.parse(response.body.toString("utf8"))
  } catch {
    return verdict(`not JSON: ${response.body.toString("utf8").slice(0, 200)}`)
  }
  const invalid = validate(content.schema, body)
  if (status < 300) return verdict(invalid === undefined ? undefined : `2xx body does not match the document: ${invalid}`)
  const code = (body as { error?: { code?: unknown } })?.error?.code
  if (typeof code !== "string") return verdict(`no error.code: ${response.body.toString("utf8").slice(0, 200)}`)
  if (invalid !== undefined) return verdict(`Error body does not match the document: ${invalid}`, code)
  if (!op.codes.get(String(status))?.has(code)) return verdict(`code ${code} is not listed for ${status}`, code)
  return verdict(undefined, code)
}

// ---------------------------------------------------------------------------------------------
// The MCP tools

interface McpTool {
  /** e.g. `MCP quote_stay` */
  readonly id: string
  readonly name: string
  /** Its own root too: its `$ref`s point into its `$defs`. */
  readonly inputSchema: Doc
}

const MCP_HEADERS: ReadonlyArray<readonly [string, string]> = [["content-type", "application/json"], ["accept", "application/json, text/event-stream"]]

const jsonRpc = (id: number, method: string, params: unknown) => Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, method, params }), "utf8")

/** JSON-RPC's codes for a message the server refuses: parse error, invalid request, method not found, invalid params. */
const JSON_RPC_REFUSALS = new Set([-32700, -32600, -32601, -32602])

/**
 * A `tools/call` answer: a JSON-RPC result, or a JSON-RPC refusal under the call's own id (never
 * an internal error, nor a defect of the RPC layer); a tool error carries the REST API's `Error`
 * body, never `internal_error`. Counted as `200 <error.code>` when the tool answered an error. A
 * body over the limit is a 413 as anywhere.
 */
const checkToolAnswer = (id: number, response: WireResponse): Verdict => {
  const status = response.status
  const text = response.body.toString("utf8")
  const verdict = (problem: string | undefined, code?: string): Verdict => ({ status, code, problem })
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    return verdict(`status ${status}, not JSON: ${text.slice(0, 200)}`)
  }
  if (status === 413 && body?.error?.code === "payload_too_large") return verdict(undefined, "payload_too_large")
  if (status !== 200) return verdict(`status ${status}: ${text.slice(0, 300)}`)
  if (body?.error !== undefined) {
    const code = `jsonrpc ${body.error.code}`
    const refused = JSON_RPC_REFUSALS.has(body.error.code) && body.id === id
    return verdict(refused ? undefined : `JSON-RPC error that is no refusal of this call: ${text.slice(0, 300)}`, code)
  }
  const result = body?.result
  if (result === undefined) return verdict(`no result: ${text.slice(0, 200)}`)
  if (result.isError !== true) return verdict(undefined)
  const code = result.structuredContent?.error?.code
  if (typeof code !== "string") return verdict(`tool error without error.code: ${text.slice(0, 200)}`)
  return verdict(code === "internal_error" ? `internal_error: ${text.slice(0, 300)}` : undefined, code)
}

/** A tool's arguments: valid, or spoilt one way, as a body is. */
const toolArguments = (tool: McpTool, vocabulary: Vocabulary): fc.Arbitrary<{ label: string; value: unknown }> => {
  const valid = validValue(tool.inputSchema, vocabulary, tool.inputSchema)
  return fc.oneof(valid.map((value) => ({ label: "valid", value })), valid.chain(spoil))
}

// ---------------------------------------------------------------------------------------------
// Generating requests

/** A value resolved when the request is sent, from the state its token belongs to. */
class Slot {
  constructor(readonly name: "expected_total") {}
}

/** Which `X-Reservation-Token` a request carries; the live ones are made or picked when it is sent. */
type TokenChoice =
  | { readonly kind: "absent" }
  | { readonly kind: "literal"; readonly value: string }
  | { readonly kind: "twice" }
  | {
    readonly kind: "guest-fresh" | "guest-pool" | "guest-expired" | "manage-fresh" | "manage-pool" | "manage-nrf" | "manage-cancelled"
    readonly pick: number
  }

type BodyPlan =
  | { readonly kind: "none" }
  | { readonly kind: "json"; readonly value: unknown }
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "bytes"; readonly bytes: Uint8Array }
  /** A JSON body over the size limit. */
  | { readonly kind: "oversize"; readonly bytes: number }

interface RequestPlan {
  /** What kind of request it is, for the report. */
  readonly label: string
  readonly path: string
  readonly query: ReadonlyArray<readonly [string, string]>
  readonly rawQuery: string
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly contentType: string | undefined
  readonly body: BodyPlan
  readonly chunked: boolean
  readonly token: TokenChoice
}

/** Realistic values of the running app, keyed by property name or component name. */
interface Vocabulary {
  readonly today: LocalDate
  /** A stay that passes every rule, for the base value edges are set into. */
  readonly stay: { readonly checkin: LocalDate; readonly checkout: LocalDate }
  readonly byName: Readonly<Record<string, ReadonlyArray<Json | Slot>>>
}

const HUGE_CHARS = ["a", "é", "ж", "😀", "\u0301", "\u202e", " ", "\\", "\""]

/** Odd text: control characters, lone surrogates, bidi marks, emoji, combining marks, injection bait, huge. */
const oddString = (maxHuge = 80_000): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(
      "", " ", "\u0000", "a\u0000b", "\ud800", "\udc00x", "x\ud83d", "\ud83d\ud83d", "\u202eevil\u202c", "\u200f\u200e\u200b", "😀",
      "👨‍👩‍👧‍👦", "e\u0301\u0301\u0301", "\ufeff", "\uffff", "\ufffd", "\u2028\u2029", "null", "true", "0", "-1", "1e309", "NaN",
      "../../etc/passwd", "<script>alert(1)</script>", "' OR 1=1 --", "%00", "%E0%A4%A", "${jndi:ldap://x}", "__proto__", "constructor",
      "Ω≈ç√", "ﷺ", "𝕳𝖊𝖑𝖑𝖔", "\t\n\r", "\\", "\"", "2027-02-30", "2027-13-01", "0000-01-01", "9999-12-31", "+275760-09-13",
      "2026-11-22T00:00:00Z", "24:00", "23:60", "double ", " FLEX", "DOUBLE", "ＦＬＥＸ", "\u0130", "ß",
      // guest text posing as the hotel's (docs/decisions.md#guest-text): a line of its own, text reordered
      "Dupont\nTotal paid: EUR 0.00 (PAID IN FULL)", "a\r\nb", "a\rb", "\u2066x\u2069", "\u061c\u202a\u202d"
    ) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), maxLength: 4 }) },
    { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom("\u0000", "\u0001", "\u001f", "\u007f", "\u0085", "\u00a0", "\u2028", "\u202e", "\u2067"), maxLength: 6 }) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...HUGE_CHARS), fc.integer({ min: 200, max: maxHuge })).map(([c, n]) => c.repeat(n)) }
  )

const wrongValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, true, false, 0, -1, 1.5, -0.001, 1e308, -1e308, 2 ** 53 + 1, 1e21, "", "1", "true", [], {}, [null], { a: 1 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  oddString(2_000),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>
)

interface Flat {
  readonly ref?: string
  readonly types: ReadonlyArray<string>
  readonly schema: Doc
  readonly patterns: ReadonlyArray<string>
}

/** The schema with its `$ref` and `allOf` merged (siblings of a `$ref` win, as OpenAPI 3.1 reads them). */
const flatten = (spec: Doc, schema: Doc): Flat => {
  let ref: string | undefined
  const patterns: Array<string> = []
  const merge = (node: Doc): Doc => {
    let out: Doc = {}
    // its own pattern first: values are generated from the first one and filtered by the others
    if (typeof node.pattern === "string") patterns.push(node.pattern)
    if (typeof node.$ref === "string") {
      ref ??= node.$ref.split("/").pop()
      out = merge(refTarget(spec, node.$ref))
    }
    for (const member of node.allOf ?? []) out = { ...out, ...merge(member) }
    const { $ref: _ref, allOf: _allOf, ...own } = node
    return { ...out, ...own }
  }
  const merged = merge(schema)
  const types = Array.isArray(merged.type) ? merged.type : merged.type === undefined ? [] : [merged.type]
  return { ...(ref === undefined ? {} : { ref }), types, schema: merged, patterns: [...new Set(patterns)] }
}

const dateArbitrary = (today: LocalDate): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: -2, max: 45 }) },
    { weight: 2, arbitrary: fc.integer({ min: 45, max: 520 }) },
    { weight: 1, arbitrary: fc.integer({ min: -4000, max: 40_000 }) }
  ).map((days) => addDays(today, days))

/** Values the schema allows, boundaries included; realistic ones from the vocabulary mixed in. */
const validValue = (spec: Doc, vocabulary: Vocabulary, schema: Doc, name?: string, depth = 0): fc.Arbitrary<unknown> => {
  const flat = flatten(spec, schema)
  const s = flat.schema
  const known = [...(name === undefined ? [] : vocabulary.byName[name] ?? []), ...(flat.ref === undefined ? [] : vocabulary.byName[flat.ref] ?? [])]
  const generic = genericValue(spec, vocabulary, flat, depth)
  const examples: Array<unknown> = Array.isArray(s.examples) && flat.types.every((t) => t !== "object") ? s.examples : []
  const candidates = [...known, ...examples]
  return candidates.length === 0
    ? generic
    : fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...candidates) }, { weight: 1, arbitrary: generic })
}

const genericValue = (spec: Doc, vocabulary: Vocabulary, flat: Flat, depth: number): fc.Arbitrary<unknown> => {
  const s = flat.schema
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum)
  if ("const" in s) return fc.constant(s.const)
  const union = s.anyOf ?? s.oneOf
  if (Array.isArray(union)) return fc.oneof(...union.map((member: Doc) => validValue(spec, vocabulary, member, undefined, depth + 1)))
  if (flat.types.length > 1) {
    return fc.oneof(...flat.types.map((type) => genericValue(spec, vocabulary, { ...flat, types: [type] }, depth)))
  }
  switch (flat.types[0]) {
    case "object": {
      const properties: Record<string, Doc> = s.properties ?? {}
      const model = Object.fromEntries(Object.entries(properties).map(([key, sub]) => [key, validValue(spec, vocabulary, sub, key, depth + 1)]))
      return fc.record(model, { requiredKeys: (s.required ?? []).filter((key: string) => key in model) })
    }
    case "array": {
      const items = validValue(spec, vocabulary, s.items ?? {}, undefined, depth + 1)
      const min = s.minItems ?? 0
      const max = Math.min(s.maxItems ?? 4, depth > 2 ? min + 1 : 30)
      return fc.oneof(
        { weight: 4, arbitrary: fc.array(items, { minLength: min, maxLength: Math.min(max, min + 3) }) },
        { weight: 1, arbitrary: fc.array(items, { minLength: max, maxLength: max }) }
      )
    }
    case "string":
      return stringValue(vocabulary, flat)
    case "integer": {
      const min = s.minimum ?? (s.exclusiveMinimum === undefined ? -1000 : s.exclusiveMinimum + 1)
      const max = s.maximum ?? (s.exclusiveMaximum === undefined ? 1000 : s.exclusiveMaximum - 1)
      return fc.oneof({ weight: 3, arbitrary: fc.integer({ min, max }) }, { weight: 1, arbitrary: fc.constantFrom(min, max) })
    }
    case "number":
      return fc.oneof(
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: -100_000, max: 1_000_000 }).map((cents) => cents / 100)
      )
    case "boolean":
      return fc.boolean()
    case "null":
      return fc.constant(null)
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

const stringValue = (vocabulary: Vocabulary, flat: Flat): fc.Arbitrary<string> => {
  const s = flat.schema
  if (s.format === "date") return dateArbitrary(vocabulary.today)
  const min: number = s.minLength ?? 0
  const max: number = s.maxLength ?? 60
  const fits = (text: string) =>
    [...text].length >= min && [...text].length <= max && flat.patterns.every((p) => new RegExp(p, "u").test(text))
  if (flat.patterns.length > 0) {
    return fc.stringMatching(new RegExp(flat.patterns[0]!, "u"), { size: "small" }).filter(fits)
  }
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: "grapheme", minLength: min, maxLength: Math.min(max, 30) }) },
    { weight: 1, arbitrary: fc.constantFrom("x".repeat(Math.max(min, 1)), "é".repeat(max), "😀".repeat(Math.floor(max / 2)) + "a".repeat(max % 2)) }
  ).filter(fits)
}

// ---------------------------------------------------------------------------------------------
// Bounds and edges

/**
 * Where a request schema lets a value grow without bound: an integer or number without a maximum,
 * a string without maxLength, an array without maxItems (an enum or a constant is bounded).
 */
export const unboundedFields = (root: Doc, schema: Doc, at: string): Array<string> => {
  const found: Array<string> = []
  const visit = (node: Doc, at: string, depth: number): void => {
    if (node === null || typeof node !== "object" || depth > 12) return
    const flat = flatten(root, node)
    const s = flat.schema
    if (Array.isArray(s.enum) || "const" in s) return
    const union: ReadonlyArray<Doc> | undefined = s.anyOf ?? s.oneOf
    if (flat.types.length === 0 && union === undefined) found.push(`${at}: any value, without bounds`)
    for (const type of flat.types) {
      const missing = type === "integer" || type === "number"
        ? (s.maximum === undefined && s.exclusiveMaximum === undefined ? "maximum" : undefined)
        : type === "string"
        ? (s.maxLength === undefined ? "maxLength" : undefined)
        : type === "array"
        ? (s.maxItems === undefined ? "maxItems" : undefined)
        : undefined
      if (missing !== undefined) found.push(`${at}: ${type} without ${missing}`)
    }
    for (const member of union ?? []) visit(member, at, depth + 1)
    for (const [key, sub] of Object.entries<Doc>(s.properties ?? {})) visit(sub, `${at}.${key}`, depth + 1)
    if (s.items !== undefined) visit(s.items, `${at}[]`, depth + 1)
  }
  visit(schema, at, 0)
  return found
}

/**
 * The value of a schema with only what it requires, each field from the vocabulary where it has
 * one: a request that passes validation, which edges are set into one field at a time.
 */
const baseValue = (root: Doc, vocabulary: Vocabulary, schema: Doc, name?: string): unknown => {
  const flat = flatten(root, schema)
  const s = flat.schema
  if (name === "checkin" || name === "checkout") return vocabulary.stay[name]
  const known = [...(name === undefined ? [] : vocabulary.byName[name] ?? []), ...(flat.ref === undefined ? [] : vocabulary.byName[flat.ref] ?? [])]
  if (known.length > 0) return known[0]
  if (Array.isArray(s.enum)) return s.enum[0]
  if ("const" in s) return s.const
  if (Array.isArray(s.examples) && s.examples.length > 0 && !flat.types.includes("object")) return s.examples[0]
  const union: ReadonlyArray<Doc> | undefined = s.anyOf ?? s.oneOf
  if (union !== undefined) {
    return baseValue(root, vocabulary, union.find((member) => !flatten(root, member).types.includes("null")) ?? union[0]!, name)
  }
  switch (flat.types[0]) {
    case "object":
      return Object.fromEntries((s.required ?? []).map((key: string) => [key, baseValue(root, vocabulary, s.properties?.[key] ?? {}, key)]))
    case "array":
      return Array.from({ length: s.minItems ?? 0 }, () => baseValue(root, vocabulary, s.items ?? {}))
    case "integer":
    case "number":
      return s.minimum ?? 0
    case "string":
      if (s.format === "date") return vocabulary.stay.checkin
      return flat.patterns.length > 0
        ? fc.sample(stringValue(vocabulary, flat), { seed: 1, numRuns: 1 })[0]
        : "x".repeat(Math.max(1, s.minLength ?? 0))
    case "boolean":
      return true
    default:
      return null
  }
}

/** The JSON types a value has, as a schema names them. */
const jsonTypes = (value: unknown): ReadonlyArray<string> =>
  value === null
    ? ["null"]
    : Array.isArray(value)
    ? ["array"]
    : typeof value === "number"
    ? (Number.isInteger(value) ? ["integer", "number"] : ["number"])
    : [typeof value]

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Slot)

/** Whether a value may be of the schema, as far as its types, constants and properties tell: enough to pick a union's member. */
const admits = (root: Doc, schema: Doc, value: unknown): boolean => {
  if (value === undefined || value instanceof Slot) return true
  const { schema: s, types } = flatten(root, schema)
  if (Array.isArray(s.enum)) return s.enum.includes(value)
  if ("const" in s) return s.const === value
  const union: ReadonlyArray<Doc> | undefined = s.anyOf ?? s.oneOf
  if (union !== undefined) return union.some((member) => admits(root, member, value))
  if (types.length > 0 && !jsonTypes(value).some((type) => types.includes(type))) return false
  return !isRecord(value) ||
    Object.entries(value).every(([key, item]) =>
      s.properties?.[key] === undefined ? s.additionalProperties !== false : admits(root, s.properties[key], item)
    )
}

/** Numbers far beyond any bound a hotel sets, for every numeric field. */
const FAR_NUMBERS: ReadonlyArray<readonly [string, number]> = [["2^31", 2 ** 31], ["2^53", 2 ** 53], ["1e308", 1e308], ["-1", -1]]

/** Where an edge goes: a JSON body, or text (a URL's query or a header, where a number is text too). */
interface Place {
  /** The longest text an edge puts there. */
  readonly huge: number
  readonly text: boolean
}
/** Under the 64 KiB body limit. */
const IN_BODY: Place = { huge: 60_000, text: false }
/** Under Node's 16 KiB of request head. */
const IN_TEXT: Place = { huge: 8_000, text: true }

/** A schema's edges: its bounds and one past them, and values far beyond any bound. */
const edgeValues = (root: Doc, vocabulary: Vocabulary, flat: Flat, place: Place): Array<readonly [string, unknown]> => {
  const s = flat.schema
  if (Array.isArray(s.enum) || "const" in s) return []
  const edges: Array<readonly [string, unknown]> = []
  for (const type of flat.types) {
    if (type === "integer" || type === "number") {
      if (typeof s.minimum === "number") edges.push(["min-1", s.minimum - 1], ["min", s.minimum])
      if (typeof s.maximum === "number") edges.push(["max", s.maximum], ["max+1", s.maximum + 1])
      edges.push(...FAR_NUMBERS)
    } else if (type === "string") {
      if ((s.minLength ?? 0) > 0) edges.push(["minLength-1", "a".repeat(s.minLength - 1)])
      if (typeof s.maxLength === "number") edges.push(["maxLength", "a".repeat(s.maxLength)], ["maxLength+1", "a".repeat(s.maxLength + 1)])
      edges.push([`${place.huge} characters`, "a".repeat(place.huge)])
      // a text parameter may be read as a number whatever its schema says
      if (place.text) edges.push(...FAR_NUMBERS.map(([name, n]) => [`"${name}"`, String(n)] as const))
    } else if (type === "array") {
      const item = baseValue(root, vocabulary, s.items ?? {})
      const items = (n: number) => Array.from({ length: n }, () => item)
      if ((s.minItems ?? 0) > 0) edges.push(["minItems-1", items(s.minItems - 1)])
      if (typeof s.maxItems === "number") edges.push(["maxItems", items(s.maxItems)], ["maxItems+1", items(s.maxItems + 1)])
      const many = Math.floor(place.huge / ((JSON.stringify(item) ?? "null").length + 1))
      edges.push([`${many} items`, items(many)])
    }
  }
  return edges
}

interface Edge {
  readonly label: string
  readonly value: unknown
}

/**
 * Every edge of every field under `schema`, each set alone into `base` through `put` (which
 * builds the whole request value around the field), so that the rest of the request stays valid
 * and an edge the schema lets through reaches the code behind it.
 */
const edgesOf = (
  root: Doc,
  vocabulary: Vocabulary,
  schema: Doc,
  base: unknown,
  at: string,
  place: Place,
  put: (value: unknown) => unknown
): Array<Edge> => {
  const edges: Array<Edge> = []
  const walk = (node: Doc, value: unknown, at: string, put: (value: unknown) => unknown, depth: number): void => {
    if (depth > 8) return
    const flat = flatten(root, node)
    const s = flat.schema
    for (const [name, edge] of edgeValues(root, vocabulary, flat, place)) edges.push({ label: `edge ${at} ${name}`, value: put(edge) })
    const union: ReadonlyArray<Doc> | undefined = s.anyOf ?? s.oneOf
    for (const member of union ?? []) if (admits(root, member, value)) walk(member, value, at, put, depth + 1)
    if (flat.types.includes("object") && (value === undefined || isRecord(value))) {
      const object = value ?? {}
      for (const [key, sub] of Object.entries<Doc>(s.properties ?? {})) {
        walk(sub, object[key], `${at}.${key}`, (item) => put({ ...object, [key]: item }), depth + 1)
      }
    }
    if (flat.types.includes("array") && s.items !== undefined) {
      const array: ReadonlyArray<unknown> = Array.isArray(value) ? value : []
      const first = array.length > 0 ? array[0] : baseValue(root, vocabulary, s.items)
      walk(s.items, first, `${at}[0]`, (item) => put([item, ...array.slice(1)]), depth + 1)
    }
  }
  walk(schema, base, at, put, 0)
  return edges
}

/** Paths to every node of a JSON value, the root first. */
const pathsOf = (value: unknown, prefix: ReadonlyArray<string | number> = []): Array<ReadonlyArray<string | number>> => {
  const out: Array<ReadonlyArray<string | number>> = [prefix]
  if (Array.isArray(value)) value.forEach((item, i) => out.push(...pathsOf(item, [...prefix, i])))
  else if (value !== null && typeof value === "object" && !(value instanceof Slot)) {
    for (const [key, item] of Object.entries(value)) out.push(...pathsOf(item, [...prefix, key]))
  }
  return out
}

const updateAt = (value: unknown, path: ReadonlyArray<string | number>, f: (node: unknown, key: string | number, parent: any) => void): unknown => {
  const copy = structuredClone(value, { transfer: [] })
  if (path.length === 0) return copy
  let parent: any = copy
  for (const key of path.slice(0, -1)) parent = parent[key]
  f(parent[path.at(-1)!], path.at(-1)!, parent)
  return copy
}

/** A generated body value spoilt one way: a field missing, extra, of the wrong type, or odd text. */
const spoil = (valid: unknown): fc.Arbitrary<{ label: string; value: unknown }> => {
  const nodes = pathsOf(valid)
  const objects = nodes.filter((p) => {
    const node = p.reduce((n: any, k) => n[k], valid)
    return node !== null && typeof node === "object" && !Array.isArray(node)
  })
  const leaves = nodes.filter((p) => p.length > 0)
  const strings = leaves.filter((p) => typeof p.reduce((n: any, k) => n[k], valid) === "string")
  const options: Array<fc.Arbitrary<{ label: string; value: unknown }>> = [
    fc.tuple(fc.nat(), wrongValue).map(([i, wrong]) =>
      leaves.length === 0
        ? { label: "wrong type: body", value: wrong }
        : { label: "wrong type", value: updateAt(valid, leaves[i % leaves.length]!, (_n, k, parent) => void (parent[k] = wrong)) }
    )
  ]
  if (leaves.length > 0) {
    options.push(fc.nat().map((i) => {
      const path = leaves[i % leaves.length]!
      return {
        label: "missing field",
        value: updateAt(valid, path, (_n, k, parent) => Array.isArray(parent) ? parent.splice(Number(k), 1) : delete parent[k])
      }
    }))
  }
  if (objects.length > 0) {
    options.push(fc.tuple(fc.nat(), fc.oneof(fc.constantFrom("__proto__", "constructor", "prototype", "extra", "action", "", "id"), fc.string()), wrongValue)
      .map(([i, key, extra]) => ({
        label: "extra field",
        value: updateAt(valid, objects[i % objects.length]!, (node: any) => void Object.defineProperty(node, key, { value: extra, enumerable: true, writable: true, configurable: true }))
      }))
    )
  }
  if (strings.length > 0) {
    options.push(fc.tuple(fc.nat(), oddString()).map(([i, odd]) => ({
      label: "odd string",
      value: updateAt(valid, strings[i % strings.length]!, (_n, k, parent) => void (parent[k] = odd))
    })))
  }
  return fc.oneof(...options)
}

/** Bodies that are not the JSON asked for. */
const oddBody: fc.Arbitrary<{ label: string; body: BodyPlan }> = fc.oneof(
  fc.constantFrom<{ label: string; body: BodyPlan }>(
    { label: "empty body", body: { kind: "text", text: "" } },
    { label: "non-JSON body", body: { kind: "text", text: "{" } },
    { label: "non-JSON body", body: { kind: "text", text: "{\"checkin\": }" } },
    { label: "non-JSON body", body: { kind: "text", text: "undefined" } },
    { label: "non-JSON body", body: { kind: "text", text: "{'a': 1}" } },
    { label: "non-JSON body", body: { kind: "text", text: "\ufeff{}" } },
    { label: "non-JSON body", body: { kind: "text", text: "a=1&b=2" } },
    { label: "non-JSON body", body: { kind: "text", text: "--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--x--\r\n" } },
    { label: "deep JSON", body: { kind: "text", text: "[".repeat(20_000) + "]".repeat(20_000) } },
    { label: "deep JSON", body: { kind: "text", text: "{\"a\":".repeat(5_000) + "1" + "}".repeat(5_000) } },
    { label: "odd numbers", body: { kind: "text", text: "{\"adults\": 1e400, \"children\": -0, \"expected_total\": 123456789012345678901234567890}" } },
    { label: "duplicate keys", body: { kind: "text", text: "{\"action\":\"cancel\",\"action\":\"update_guest\"}" } },
    { label: "odd bytes", body: { kind: "bytes", bytes: Uint8Array.from([0xff, 0xfe, 0x00, 0x7b, 0x7d]) } },
    { label: "odd bytes", body: { kind: "bytes", bytes: Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]) } }
  ),
  fc.jsonValue({ maxDepth: 3 }).map((value) => ({ label: "other JSON", body: { kind: "json", value } as BodyPlan })),
  fc.string({ unit: "binary", maxLength: 200 }).map((text) => ({ label: "non-JSON body", body: { kind: "text", text } as BodyPlan })),
  fc.integer({ min: 64 * 1024 + 1, max: 300 * 1024 }).map((bytes) => ({ label: "oversize body", body: { kind: "oversize", bytes } as BodyPlan }))
)

const CONTENT_TYPES = [
  "text/plain",
  "text/plain; charset=utf-8",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/octet-stream",
  "APPLICATION/JSON",
  "application/json; charset=latin1",
  "application/merge-patch+json",
  "application/jsonx",
  "json",
  "",
  ";;;"
]

/** Header values a client can send: visible ASCII, tab, and bytes 0x80–0xFF (UTF-8 read as Latin-1). */
const headerText = (text: string) => Buffer.from(text, "utf8").toString("latin1").replace(/[^\t\x20-\x7e\x80-\xff]/g, "")

const headerValue = (schema: Doc | undefined): fc.Arbitrary<string> => {
  const max = schema?.maxLength ?? 200
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: schema?.minLength ?? 0, maxLength: Math.min(max, 40) }) },
    { weight: 1, arbitrary: fc.constantFrom("a".repeat(max), "a".repeat(max + 1), "", " ", "\t", "é".repeat(max)) },
    { weight: 1, arbitrary: oddString(6_000).map(headerText) }
  )
}

const oddHeaders: fc.Arbitrary<Array<readonly [string, string]>> = fc.array(
  fc.oneof(
    fc.constantFrom<readonly [string, string]>(
      ["accept", "application/xml"],
      ["accept", "text/html"],
      ["accept", "*/*;q=0"],
      ["accept-encoding", "gzip, br, zstd"],
      ["accept-language", "ru-RU,ru;q=0.9"],
      ["x-forwarded-for", "1.2.3.4, ::1"],
      ["x-forwarded-proto", "javascript"],
      ["origin", "null"],
      ["cookie", "a=b; token=x"],
      ["authorization", "Bearer x"],
      ["x-http-method-override", "DELETE"],
      ["expect", "100-continue-ish"],
      ["range", "bytes=0-1"],
      ["if-none-match", "*"],
      ["traceparent", "00-zzzz-yyyy-01"],
      ["traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"]
    ),
    fc.tuple(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), oddString(4_000).map(headerText))
  ),
  { maxLength: 3 }
)

const tokenChoice = (secured: boolean): fc.Arbitrary<TokenChoice> => {
  const live = (kind: Exclude<TokenChoice["kind"], "absent" | "literal" | "twice">, weight: number) => ({
    weight: secured ? weight : 0,
    arbitrary: fc.nat().map((pick) => ({ kind, pick }) as TokenChoice)
  })
  return fc.oneof(
    { weight: secured ? 2 : 20, arbitrary: fc.constant<TokenChoice>({ kind: "absent" }) },
    { weight: 2, arbitrary: fc.oneof(
      fc.constantFrom("", " ", "\t", "x".repeat(43), "x".repeat(65), "x".repeat(IN_TEXT.huge), "null", "undefined", "Bearer x"),
      fc.base64String({ maxLength: 60 }),
      oddString(6_000).map(headerText)
    ).map((value) => ({ kind: "literal", value }) as TokenChoice) },
    { weight: secured ? 1 : 0, arbitrary: fc.constant<TokenChoice>({ kind: "twice" }) },
    live("guest-fresh", 4),
    live("guest-pool", 2),
    live("guest-expired", 1),
    live("manage-fresh", 4),
    live("manage-pool", 3),
    live("manage-nrf", 1),
    live("manage-cancelled", 1)
  )
}

const percentEncode = (text: string) => {
  try {
    return encodeURIComponent(text)
  } catch {
    // a lone surrogate: sent as the bytes a careless client would send
    return [...Buffer.from(text, "utf8")].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("")
  }
}

/** Requests for one operation of the document. */
const requestArbitrary = (spec: Doc, op: Operation, vocabulary: Vocabulary): fc.Arbitrary<RequestPlan> => {
  const queryParams = op.parameters.filter((p) => p.in === "query")
  const headerParams = op.parameters.filter((p) => p.in === "header")
  const paramValue = (p: Parameter) =>
    fc.oneof(
      { weight: 6, arbitrary: validValue(spec, vocabulary, p.schema, p.name).map((v) => typeof v === "string" ? v : JSON.stringify(v)) },
      { weight: 1, arbitrary: oddString(6_000) },
      { weight: 1, arbitrary: wrongValue.map((v) => typeof v === "string" ? v : JSON.stringify(v)) }
    )
  const query = fc.tuple(
    ...queryParams.map((p) =>
      fc.oneof(
        { weight: p.required ? 12 : 3, arbitrary: paramValue(p).map((v) => [[p.name, v] as const]) },
        { weight: 1, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: fc.tuple(paramValue(p), paramValue(p)).map(([a, b]) => [[p.name, a] as const, [p.name, b] as const]) }
      )
    ),
    fc.oneof(
      { weight: 8, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom("extra", "__proto__", "checkin[]", "a.b", ""), oddString(1_000)).map(([k, v]) => [[k, v] as const]) }
    )
  ).map((groups) => groups.flat())
  const rawQuery = fc.oneof(
    { weight: 12, arbitrary: fc.constant("") },
    { weight: 1, arbitrary: fc.constantFrom("%", "%E0%A4%A", "%ZZ", "a=%", "&&&", "=", "a=1&a[b]=2", "checkin=%00", "%ED%A0%80=1", "a=%ED%A0%80") }
  )
  const headers = fc.tuple(
    ...headerParams.map((p) =>
      fc.oneof(
        { weight: 2, arbitrary: fc.constant([]) },
        { weight: 3, arbitrary: headerValue(p.schema).map((v) => [[p.name, v] as const]) }
      )
    ),
    fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: oddHeaders })
  ).map((groups) => groups.flat())

  const body: fc.Arbitrary<{ label: string; body: BodyPlan }> = op.body === undefined
    ? fc.oneof(
      { weight: 12, arbitrary: fc.constant({ label: "no body", body: { kind: "none" } as BodyPlan }) },
      { weight: 1, arbitrary: oddBody }
    )
    : (() => {
      const valid = validValue(spec, vocabulary, op.body)
      const examples: Array<unknown> = flatten(spec, op.body).schema.examples ?? []
      const validOrExample = examples.length === 0 ? valid : fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: fc.constantFrom(...examples) })
      return fc.oneof(
        { weight: 6, arbitrary: validOrExample.map((value) => ({ label: "valid", body: { kind: "json", value } as BodyPlan })) },
        { weight: 6, arbitrary: validOrExample.chain(spoil).map(({ label, value }) => ({ label, body: { kind: "json", value } as BodyPlan })) },
        { weight: 2, arbitrary: oddBody }
      )
    })()
  const contentType = fc.oneof(
    { weight: 12, arbitrary: fc.constant<string | undefined>("application/json") },
    { weight: 1, arbitrary: fc.constant<string | undefined>(undefined) },
    { weight: 2, arbitrary: fc.constantFrom<string | undefined>(...CONTENT_TYPES) }
  )
  const path = fc.oneof(
    { weight: 20, arbitrary: fc.constant(op.path) },
    { weight: 1, arbitrary: fc.constantFrom(`${op.path}/`, `${op.path}/x`, `${op.path.toUpperCase()}`, `/${op.path}`, `${op.path}%2F..`, `${op.path};a=b`) }
  )
  return fc.record({
    body,
    contentType,
    chunked: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    query,
    rawQuery,
    headers,
    path,
    token: tokenChoice(op.tokenHeader !== undefined)
  }).map(({ body, ...rest }) => ({
    ...rest,
    label: body.body.kind === "none" ? (rest.token.kind === "absent" ? "plain" : `token ${rest.token.kind}`) : body.label,
    body: body.body,
    contentType: body.body.kind === "none" ? undefined : rest.contentType
  }))
}

/** The link whose token an operation takes: the manage link's endpoints are named so. */
const linkOf = (op: Operation) => /manage|document/.test(op.path) ? "manage" : "guest"

/** A parameter's value as URL or header text. */
const asText = (value: unknown) => typeof value === "string" ? value : JSON.stringify(value)

/**
 * The edges of every parameter and body field of an operation, each alone in an otherwise valid
 * request (with a live token of the link the operation takes), in a fixed order.
 */
const edgePlans = (spec: Doc, op: Operation, vocabulary: Vocabulary): Array<RequestPlan> => {
  const params = op.parameters.filter((p) => p.in === "query" || p.in === "header")
  const baseParams: Record<string, unknown> = Object.fromEntries(
    params.filter((p) => p.required).map((p) => [p.name, baseValue(spec, vocabulary, p.schema, p.name)])
  )
  const baseBody = op.body === undefined ? undefined : baseValue(spec, vocabulary, op.body)
  const token: TokenChoice = op.tokenHeader === undefined ? { kind: "absent" } : { kind: `${linkOf(op)}-pool`, pick: 0 }
  const plan = (label: string, values: Record<string, unknown>, body: unknown): RequestPlan => {
    const where = (place: Parameter["in"]) =>
      params.filter((p) => p.in === place && values[p.name] !== undefined).map((p) => [p.name, asText(values[p.name])] as const)
    return {
      label,
      path: op.path,
      query: where("query"),
      rawQuery: "",
      headers: where("header"),
      contentType: op.body === undefined ? undefined : "application/json",
      body: op.body === undefined ? { kind: "none" } : { kind: "json", value: body },
      chunked: false,
      token
    }
  }
  const tokenEdges = op.tokenHeader === undefined ? [] : [65, IN_TEXT.huge].map((length): RequestPlan => ({
    ...plan(`edge ${op.tokenHeader} ${length} characters`, baseParams, baseBody),
    token: { kind: "literal", value: "x".repeat(length) }
  }))
  return [
    ...tokenEdges,
    ...params.flatMap((p) =>
      edgesOf(spec, vocabulary, p.schema, baseParams[p.name], p.name, IN_TEXT, (value) => ({ ...baseParams, [p.name]: value }))
        .map((edge) => plan(edge.label, edge.value as Record<string, unknown>, baseBody))
    ),
    ...(op.body === undefined
      ? []
      : edgesOf(spec, vocabulary, op.body, baseBody, "body", IN_BODY, (value) => value).map((edge) => plan(edge.label, baseParams, edge.value)))
  ]
}

// ---------------------------------------------------------------------------------------------
// Sending

const send = (
  agent: http.Agent,
  port: number,
  method: string,
  target: string,
  headers: ReadonlyArray<readonly [string, string]>,
  body: Buffer | undefined,
  chunked: boolean,
  timeoutMs = 30_000
): Promise<WireResponse> =>
  new Promise((resolve, reject) => {
    const outgoing: Record<string, string | Array<string>> = {}
    for (const [name, value] of headers) {
      const previous = outgoing[name]
      outgoing[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]
    }
    // Node frames a GET's body only when told how: without either header its bytes would be a next request
    if (body !== undefined) {
      if (chunked) outgoing["transfer-encoding"] = "chunked"
      else outgoing["content-length"] = String(body.length)
    }
    const req = http.request({ host: "127.0.0.1", port, method, path: target, headers: outgoing, agent })
    let answered = false
    req.on("response", (res) => {
      answered = true
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on("error", reject)
    })
    // a body the server refused before reading all of it: the answer came, the rest of the write fails
    req.on("error", (error) => answered ? undefined : reject(error))
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)))
    if (body === undefined) return void req.end()
    if (chunked) {
      for (let i = 0; i < body.length; i += 16 * 1024) req.write(body.subarray(i, i + 16 * 1024))
      req.end()
    } else req.end(body)
  })

// ---------------------------------------------------------------------------------------------
// The live states requests are mixed with: tokens, quotes, totals

interface LiveReservation {
  readonly token: string
  readonly total: number
}

/** The server under the fuzzer: in this process (the sample in `npm test`) or a process of its own (`npm run fuzz`). */
export class FuzzTarget extends Context.Service<FuzzTarget, {
  readonly port: number
  /** The server's time, in milliseconds. */
  readonly now: () => number
  /** Lets a quote and a reservation's guest link lapse. */
  readonly expire: (quoteId: string, reservationId: ReservationId) => Effect.Effect<void>
  /** The manage link's token of a completed reservation, as its confirmation email gives it. */
  readonly manageToken: (reservationId: ReservationId) => Effect.Effect<string>
  /** Why the server is gone (its process ended, with the tail of its output), if it is. */
  readonly gone: () => string | undefined
}>()("FuzzTarget") {}

const ROOM_TYPES = ["double", "twin", "deluxe"] as const

/** Realistic states of the app a request can use: made before the run and while it runs. */
const makeStates = Effect.gen(function*() {
  const target = yield* FuzzTarget
  const todayNow = Effect.sync(() => todayIn("Europe/Paris", new Date(target.now())))
  let made = 0
  /** A stay of 1–3 nights, spread over the year so the inventory lasts. */
  const nextStay = Effect.map(todayNow, (today) => {
    made += 1
    const checkin = addDays(today, 4 + ((made * 37) % 480))
    return { checkin, checkout: addDays(checkin, 1 + (made % 3)) }
  })
  const pending = (rateCode = "FLEX") =>
    Effect.gen(function*() {
      // the run books many rooms: a stay sold out meanwhile is passed over for the next
      for (let attempt = 0; attempt < 50; attempt++) {
        const { checkin, checkout } = yield* nextStay
        const q = yield* post("/v1/quotes", { checkin, checkout, rooms: [{ room_type_id: ROOM_TYPES[made % 3], adults: 1 + (made % 2) }] })
        const offer = q.body?.package_offers?.find((o: { rate_code: string }) => o.rate_code === rateCode)
        if (offer !== undefined) return { quote: q.body, offer }
      }
      return yield* Effect.die(new Error(`no ${rateCode} offer in 50 stays`))
    }).pipe(
      Effect.flatMap(({ offer, quote }) =>
        Effect.flatMap(post("/v1/reservation-intents", { quote_id: quote.quote_id, package_code: offer.package_code }), (intent) =>
          intent.status === 200
            ? Effect.succeed({
              id: intent.body.reservation_id as ReservationId,
              token: tokenOf(intent.body.continue_url),
              total: offer.price.total as number
            })
            : Effect.die(new Error(`intent failed: ${intent.text}`)))
      ),
      Effect.orDie
    )
  const completed = (rateCode = "FLEX") =>
    Effect.gen(function*() {
      const guest = yield* pending(rateCode)
      const done = yield* completeWith(guest.token, guest.total)
      if (done.status !== 200) return yield* Effect.die(new Error(`completion failed: ${done.text}`))
      const token = yield* target.manageToken(done.body.reservation_id as ReservationId)
      return { token, total: guest.total }
    }).pipe(Effect.orDie)
  const quoteIds: Array<string> = []
  const packageCodes = new Set<string>()
  const quoteFor = (body: unknown) =>
    Effect.map(post("/v1/quotes", body), (q) => {
      quoteIds.push(q.body.quote_id)
      for (const offer of q.body.package_offers ?? []) packageCodes.add(offer.package_code)
    })

  // Made first and then left to lapse: an expired quote and an expired guest link.
  const expiredQuote = yield* post("/v1/quotes", { ...(yield* nextStay), rooms: [{ room_type_id: "double", adults: 2 }] })
  const expiredGuest = yield* pending()
  yield* target.expire(expiredQuote.body.quote_id, expiredGuest.id)
  const today = yield* todayNow

  for (const [days, nights, rooms] of [
    [10, 2, [{ room_type_id: "double", adults: 2 }]],
    [60, 7, [{ room_type_id: "twin", adults: 2, children_ages: [1] }]],
    [3, 1, [{ room_type_id: "deluxe", adults: 1 }, { room_type_id: "double", adults: 2, quantity: 2 }]],
    [200, 3, [{ room_type_id: "double", adults: 1, rate_code: "NRF" }]],
    [1, 2, [{ room_type_id: "deluxe", adults: 2, rate_code: "FLEX_BB" }]]
  ] as const) {
    yield* quoteFor({ checkin: addDays(today, days), checkout: addDays(today, days + nights), rooms })
  }
  const guestPool: Array<LiveReservation> = [yield* pending(), yield* pending("FLEX_BB")]
  const managePool: Array<LiveReservation> = [yield* completed(), yield* completed("FLEX_BB")]
  const nrf = yield* completed("NRF")
  const cancelled = yield* completed()
  const cancel = yield* post("/v1/reservation-manage", { action: "cancel" }, { "x-reservation-token": cancelled.token })
  if (cancel.status !== 200) return yield* Effect.die(new Error(`cancel failed: ${cancel.text}`))
  const publicView = yield* get("/v1/reservation-public", { "x-reservation-token": guestPool[0]!.token })
  const termsVersion: string = publicView.body.terms.version

  const ids = {
    RoomTypeId: [...ROOM_TYPES, "suite"],
    RateCode: ["FLEX", "FLEX_BB", "NRF", "UNKNOWN"],
    QuoteId: [...quoteIds, expiredQuote.body.quote_id, "q_unknown"],
    PackageCode: [...packageCodes, "NONE"]
  }
  const vocabulary: Vocabulary = {
    today,
    stay: { checkin: addDays(today, 40), checkout: addDays(today, 42) },
    byName: {
      ...ids,
      // the tools' input schemas inline the ids: known by their field names there
      room_type_id: ids.RoomTypeId,
      rate_code: ids.RateCode,
      quote_id: ids.QuoteId,
      package_code: ids.PackageCode,
      terms_version: [termsVersion, "2020-01"],
      accept_terms: [true, true, false],
      expected_total: [new Slot("expected_total"), new Slot("expected_total"), new Slot("expected_total"), 0],
      adults: [1, 2, "1", "2"],
      children: [0, 1, 2, "0", "1"],
      children_ages: [[], [1], [5, 12], [0, 17]],
      quantity: [1, 2, 10],
      language: ["en", "fr", "ru"],
      first_name: ["Ana", "Jeanne", "Анна"],
      last_name: ["Lopez", "Dupont", "Иванова"],
      email: ["ana@example.com"],
      phone: ["+34 600 123 456", "+33 6 12 34 56 78"]
    }
  }

  const pickFrom = <A>(pool: ReadonlyArray<A>, pick: number) => pool[pick % pool.length]!
  /** The token (and the total of its reservation) a request carries, made now if it asks for a fresh one. */
  const resolveToken = (choice: TokenChoice) => {
    const none = (values: ReadonlyArray<string>) => ({ values, total: 0 })
    const one = (live: LiveReservation): { values: ReadonlyArray<string>; total: number } => ({ values: [live.token], total: live.total })
    switch (choice.kind) {
      case "absent":
        return Effect.succeed(none([]))
      case "literal":
        return Effect.succeed(none([choice.value]))
      case "twice":
        return Effect.succeed(none([pickFrom(managePool, 0).token, pickFrom(guestPool, 0).token]))
      case "guest-fresh":
        return Effect.map(pending(choice.pick % 5 === 0 ? "FLEX_BB" : "FLEX"), (live) => (guestPool.push(live), one(live)))
      case "guest-pool":
        return Effect.succeed(one(pickFrom(guestPool, choice.pick)))
      case "guest-expired":
        return Effect.succeed(one(expiredGuest))
      case "manage-fresh":
        return Effect.map(completed(choice.pick % 4 === 0 ? "NRF" : "FLEX"), (live) => (managePool.push(live), one(live)))
      case "manage-pool":
        return Effect.succeed(one(pickFrom(managePool, choice.pick)))
      case "manage-nrf":
        return Effect.succeed(one(nrf))
      case "manage-cancelled":
        return Effect.succeed(one(cancelled))
    }
  }
  return { vocabulary, resolveToken }
})

/** The whole app served in this process on a clock of its own (today is Sunday 2026-11-22), as the fuzzer's target. */
export const FuzzApp = () => {
  const clock = makeTestClock("2026-11-22T10:00:00Z")
  const target = Layer.effect(
    FuzzTarget,
    Effect.gen(function*() {
      const tokens = yield* Tokens
      return {
        port: Number(new URL(yield* baseUrl).port),
        now: clock.now,
        // a day later, the day's quotes and guest links have lapsed
        expire: () => Effect.sync(() => clock.advance(25 * 60 * 60 * 1000)),
        manageToken: (reservationId) => Effect.map(tokens.reveal(reservationId, "manage"), Option.getOrThrow),
        // a server in this process that dies takes the run with it
        gone: () => undefined
      }
    })
  )
  // the run completes many reservations from one address: the limits per address off, or their 429s would hide the flow
  return target.pipe(
    Layer.provideMerge(TestApp({ config: { bookingLimitPerHour: 0, roomNightsPerAddressPerDay: 0 } }).pipe(Layer.provide(clock.layer)))
  )
}

// ---------------------------------------------------------------------------------------------
// Running

export interface OperationReport {
  /** e.g. `POST /v1/quotes`, `MCP quote_stay` */
  readonly id: string
  requests: number
  /** Requests among them that set an edge into one field. */
  edges: number
  ok: number
  /** `status code` → count, for every answer that is not a success */
  readonly errors: Map<string, number>
  serverErrors: number
  invalid: number
  readonly problems: Array<string>
  elapsedMs: number
}

export interface FuzzResult {
  readonly reports: ReadonlyArray<OperationReport>
  /** Fields of `/openapi.json` and of the tools' input schemas without an upper bound. */
  readonly unbounded: ReadonlyArray<string>
  /** Why the server stopped answering `GET /v1/health`, and after what; undefined while it answered every check. */
  readonly down: string | undefined
}

interface FuzzOptions {
  readonly runs: number
  readonly seed: number
  /** Run only the operations whose id contains this. */
  readonly only?: string | undefined
  /** Told of each operation once it is done (a long run shows its progress). */
  readonly done?: (report: OperationReport) => void
}

/** Requests between two checks that the server still answers `GET /v1/health`. */
const BATCH = 50

/** Whether a run found nothing wrong and sent at least `runs` requests per operation. */
export const passed = (result: FuzzResult, options: FuzzOptions) =>
  result.down === undefined && result.unbounded.length === 0 && result.reports.length > 0 &&
  result.reports.every((r) => r.serverErrors === 0 && r.invalid === 0 && r.requests >= options.runs)

const materialize = (value: unknown, total: number): unknown =>
  value instanceof Slot
    ? total
    : Array.isArray(value)
    ? value.map((v) => materialize(v, total))
    : value !== null && typeof value === "object"
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, materialize(v, total)]))
    : value

const shorten = (text: string, max: number) => text.length > max ? `${text.slice(0, max)}…(${text.length})` : text

const describePlan = (op: Operation, plan: RequestPlan, target: string) =>
  JSON.stringify({
    op: op.id,
    label: plan.label,
    target: shorten(target, 300),
    contentType: plan.contentType,
    chunked: plan.chunked,
    token: plan.token.kind === "literal" ? `literal ${shorten(plan.token.value, 20)}` : plan.token.kind,
    headers: plan.headers.map(([k, v]) => [k, shorten(v, 80)]),
    body: plan.body.kind === "json"
      ? shorten(JSON.stringify(plan.body.value) ?? "", 400)
      : plan.body.kind === "text"
      ? shorten(plan.body.text, 200)
      : plan.body.kind
  })

/** One request of a run: how to send it and judge the answer, with a description of what was sent. */
interface Case {
  readonly run: Effect.Effect<{ readonly verdict: Verdict; readonly sent: string }, never, HttpClient.HttpClient>
}

/** Why the server does not answer `GET /v1/health` with 200 within 10 s, if it does not. */
const unhealthy = (port: number, gone: () => string | undefined) =>
  Effect.promise(async () => {
    const agent = new http.Agent({ keepAlive: false })
    const answer = await send(agent, port, "GET", "/v1/health", [], undefined, false, 10_000).then(
      (response) => response.status === 200 ? undefined : `GET /v1/health answered ${response.status}: ${response.body.toString("utf8").slice(0, 200)}`,
      (error: unknown) => `GET /v1/health had no answer: ${String(error)}`
    )
    agent.destroy()
    if (answer === undefined) return undefined
    // the process' own account of its end says more than a refused connection, once its exit is seen
    await new Promise((resolve) => setTimeout(resolve, 1000))
    return gone() ?? answer
  })

/** The served document and MCP tools, with every field a request can carry without an upper bound. */
export const readContract = Effect.gen(function*() {
  const target = yield* FuzzTarget
  const spec = (yield* request(HttpClientRequest.get("/openapi.json"))).body as Doc
  const listed = yield* Effect.promise(() => send(new http.Agent(), target.port, "POST", "/mcp", MCP_HEADERS, jsonRpc(1, "tools/list", {}), false))
  const tools: ReadonlyArray<McpTool> = JSON.parse(listed.body.toString("utf8")).result.tools.map((tool: Doc) => ({
    id: `MCP ${tool.name}`,
    name: tool.name,
    inputSchema: tool.inputSchema
  }))
  const operations = operationsOf(spec)
  const unbounded = [
    ...operations.flatMap((op) => [
      ...op.parameters.flatMap((p) => unboundedFields(spec, p.schema, `${op.id} ${p.in} ${p.name}`)),
      ...(op.body === undefined ? [] : unboundedFields(spec, op.body, `${op.id} body`))
    ]),
    ...tools.flatMap((tool) => unboundedFields(tool.inputSchema, tool.inputSchema, `${tool.id} arguments`))
  ]
  return { spec, operations, tools, unbounded }
})

/**
 * Fuzzes every operation of the served document and every MCP tool with `runs` generated
 * requests each, after the edges of each of their fields; checks the server's health after
 * every batch and stops at the first failed check.
 */
export const fuzz = (options: FuzzOptions) =>
  Effect.gen(function*() {
    const target = yield* FuzzTarget
    const { operations, spec, tools, unbounded } = yield* readContract
    const validate = makeValidator(spec)
    const { resolveToken, vocabulary } = yield* makeStates
    const reports: Array<OperationReport> = []
    const selected = <A extends { readonly id: string }>(items: ReadonlyArray<A>) =>
      items.filter((item) => options.only === undefined || item.id.includes(options.only))

    /** Sends the cases of one operation on a connection of its own; the reason the server went down, if it did. */
    const runOperation = (id: string, edges: number, cases: ReadonlyArray<Case>) =>
      Effect.gen(function*() {
        const started = Date.now()
        const report: OperationReport = { id, requests: 0, edges, ok: 0, errors: new Map(), serverErrors: 0, invalid: 0, problems: [], elapsedMs: 0 }
        reports.push(report)
        let last = ""
        for (const [index, next] of cases.entries()) {
          const { sent, verdict } = yield* next.run
          report.requests += 1
          const success = verdict.status >= 200 && verdict.status < 300 && verdict.code === undefined
          if (success) report.ok += 1
          else if (verdict.status !== 0) {
            const key = `${verdict.status} ${verdict.code ?? "-"}`
            report.errors.set(key, (report.errors.get(key) ?? 0) + 1)
          }
          if (verdict.status >= 500 || verdict.code === "internal_error") report.serverErrors += 1
          if (verdict.problem !== undefined) {
            report.invalid += 1
            if (report.problems.length < 5) report.problems.push(`${verdict.problem}\n      request: ${sent}`)
          }
          last = sent
          // a request without an answer is checked at once: on a hung server, each of the batch would wait its timeout
          if ((index + 1) % BATCH === 0 || index === cases.length - 1 || verdict.status === 0) {
            const down = yield* unhealthy(target.port, target.gone)
            if (down !== undefined) {
              report.elapsedMs = Date.now() - started
              return `${down}\n  after the batch of ${id} that ended with: ${last}`
            }
          }
        }
        report.elapsedMs = Date.now() - started
        options.done?.(report)
        return undefined
      })

    for (const [index, op] of selected(operations).entries()) {
      const plans = [
        ...edgePlans(spec, op, vocabulary),
        ...fc.sample(requestArbitrary(spec, op, vocabulary), { seed: options.seed + index * 7919, numRuns: options.runs })
      ]
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
      let previous = ""
      const cases = plans.map((plan): Case => ({
        run: Effect.gen(function*() {
          const token = yield* resolveToken(plan.token)
          const headers: Array<readonly [string, string]> = [...plan.headers]
          if (op.tokenHeader !== undefined || plan.token.kind !== "absent") {
            for (const value of token.values) headers.push([(op.tokenHeader ?? "X-Reservation-Token").toLowerCase(), value])
          }
          if (plan.contentType !== undefined) headers.push(["content-type", plan.contentType])
          const body = plan.body.kind === "none"
            ? undefined
            : plan.body.kind === "json"
            ? Buffer.from(JSON.stringify(materialize(plan.body.value, token.total)) ?? "null", "utf8")
            : plan.body.kind === "text"
            ? Buffer.from(plan.body.text, "utf8")
            : plan.body.kind === "bytes"
            ? Buffer.from(plan.body.bytes)
            : Buffer.from(JSON.stringify({ padding: "a".repeat(plan.body.bytes) }), "utf8")
          const search = [
            ...plan.query.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`),
            ...(plan.rawQuery === "" ? [] : [plan.rawQuery])
          ].join("&")
          const url = search === "" ? plan.path : `${plan.path}?${search}`
          const outcome = yield* Effect.result(Effect.tryPromise(() => send(agent, target.port, op.method, url, headers, body, plan.chunked)))
          const verdict: Verdict = outcome._tag === "Failure"
            ? { status: 0, code: undefined, problem: `no answer: ${String(outcome.failure.cause)} (after ${previous})` }
            : checkResponse(op, validate, outcome.success)
          const sent = describePlan(op, plan, url)
          previous = `${sent} → ${verdict.status}`
          return { verdict, sent }
        })
      }))
      const down = yield* runOperation(op.id, plans.length - options.runs, cases)
      agent.destroy()
      if (down !== undefined) return { reports, unbounded, down }
    }

    for (const [index, tool] of selected(tools).entries()) {
      const base = baseValue(tool.inputSchema, vocabulary, tool.inputSchema)
      const calls = [
        ...edgesOf(tool.inputSchema, vocabulary, tool.inputSchema, base, "arguments", IN_BODY, (value) => value),
        ...fc.sample(toolArguments(tool, vocabulary), { seed: options.seed + (operations.length + index) * 7919, numRuns: options.runs })
      ]
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
      const cases = calls.map((call, id): Case => ({
        run: Effect.gen(function*() {
          const args = materialize(call.value, 0)
          const outcome = yield* Effect.result(
            Effect.tryPromise(() => send(agent, target.port, "POST", "/mcp", MCP_HEADERS, jsonRpc(id, "tools/call", { name: tool.name, arguments: args }), false))
          )
          const verdict: Verdict = outcome._tag === "Failure"
            ? { status: 0, code: undefined, problem: `no answer: ${String(outcome.failure.cause)}` }
            : checkToolAnswer(id, outcome.success)
          return { verdict, sent: JSON.stringify({ tool: tool.name, label: call.label, arguments: shorten(JSON.stringify(args) ?? "", 400) }) }
        })
      }))
      const down = yield* runOperation(tool.id, calls.length - options.runs, cases)
      agent.destroy()
      if (down !== undefined) return { reports, unbounded, down }
    }
    const result: FuzzResult = { reports, unbounded, down: undefined }
    return result
  })

/** The table of a run: requests (edges among them), successes, the rest by status and code, 5xx, invalid answers; then what failed. */
export const formatReport = (result: FuzzResult, options: FuzzOptions): string => {
  const { reports } = result
  const lines = [
    `fuzz: seed ${options.seed}, ${options.runs} generated requests per operation after its edges (replay: FUZZ_SEED=${options.seed} FUZZ_RUNS=${options.runs})`,
    "",
    "| operation | requests | edges | success | others by status and code | 5xx | invalid | seconds |",
    "|---|---:|---:|---:|---|---:|---:|---:|"
  ]
  for (const r of reports) {
    const errors = [...r.errors.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k}: ${n}`).join(", ")
    lines.push(`| ${r.id} | ${r.requests} | ${r.edges} | ${r.ok} | ${errors} | ${r.serverErrors} | ${r.invalid} | ${(r.elapsedMs / 1000).toFixed(1)} |`)
  }
  const total = reports.reduce((n, r) => n + r.requests, 0)
  lines.push(
    "",
    `total: ${total} requests, ${reports.reduce((n, r) => n + r.serverErrors, 0)} 5xx or internal_error, ` +
      `${reports.reduce((n, r) => n + r.invalid, 0)} invalid, ${result.unbounded.length} unbounded fields, ` +
      `health checked every ${BATCH} requests: ${result.down === undefined ? "always answered" : "DOWN"}`
  )
  if (result.down !== undefined) lines.push("", `server down: ${result.down}`)
  if (result.unbounded.length > 0) lines.push("", "fields without an upper bound:", ...result.unbounded.map((u) => `  - ${u}`))
  for (const r of reports.filter((r) => r.problems.length > 0)) {
    lines.push("", `${r.id}:`, ...r.problems.map((p) => `  - ${p}`))
  }
  return lines.join("\n")
}
