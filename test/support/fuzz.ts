/**
 * Fuzzing from the contract: requests generated from the served `/openapi.json` (valid values,
 * boundaries, wrong types, missing and extra fields, huge and odd Unicode strings, odd headers,
 * wrong content types), sent on the wire to the in-process app, and each answer checked against
 * the document: never a 5xx; a status the operation declares; a 2xx valid against its schema; a
 * non-2xx an `Error` body whose `error.code` the document lists for that operation and status.
 *
 * Used by the sample in `npm test` (test/Api/Fuzz.test.ts) and the full run (`npm run fuzz`,
 * test/fuzz.ts).
 */
import { HttpClientRequest, HttpServer } from "@effect/platform"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { Context, Effect, Layer, Option } from "effect"
import fc from "fast-check"
import * as http from "node:http"
import type { ReservationId } from "../../src/Domain/Ids.js"
import { addDays, type LocalDate, todayIn } from "../../src/Domain/LocalDate.js"
import { Tokens } from "../../src/Services/Tokens.js"
import { completeWith, get, post, tokenOf } from "./flow.js"
import { makeTestClock } from "./clock.js"
import { request, TestApp } from "./TestApp.js"

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
      "2026-11-22T00:00:00Z", "24:00", "23:60", "double ", " FLEX", "DOUBLE", "ＦＬＥＸ", "\u0130", "ß"
    ) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), maxLength: 4 }) },
    { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom("\u0000", "\u0001", "\u001f", "\u007f", "\u0085", "\u00a0"), maxLength: 6 }) },
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
    options.push(fc.tuple(fc.nat(), fc.oneof(fc.constantFrom("__proto__", "constructor", "extra", "action", "", "id"), fc.string()), wrongValue)
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
      fc.constantFrom("", " ", "\t", "x".repeat(43), "null", "undefined", "Bearer x"),
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

// ---------------------------------------------------------------------------------------------
// Sending

const send = (
  agent: http.Agent,
  port: number,
  method: string,
  target: string,
  headers: ReadonlyArray<readonly [string, string]>,
  body: Buffer | undefined,
  chunked: boolean
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
    req.setTimeout(30_000, () => req.destroy(new Error("no answer within 30 s")))
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

const ROOM_TYPES = ["double", "twin", "deluxe"] as const

/** Realistic states of the app a request can use: made before the run and while it runs. */
const makeStates = Effect.gen(function*() {
  const tokens = yield* Tokens
  const clock = yield* FuzzClock
  const todayNow = Effect.sync(() => todayIn("Europe/Paris", new Date(clock.now())))
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
      return yield* Effect.dieMessage(`no ${rateCode} offer in 50 stays`)
    }).pipe(
      Effect.flatMap(({ offer, quote }) =>
        Effect.flatMap(post("/v1/reservation-intents", { quote_id: quote.quote_id, package_code: offer.package_code }), (intent) =>
          intent.status === 200
            ? Effect.succeed({ token: tokenOf(intent.body.continue_url), total: offer.price.total as number })
            : Effect.dieMessage(`intent failed: ${intent.text}`))
      ),
      Effect.orDie
    )
  const completed = (rateCode = "FLEX") =>
    Effect.gen(function*() {
      const guest = yield* pending(rateCode)
      const done = yield* completeWith(guest.token, guest.total)
      if (done.status !== 200) return yield* Effect.dieMessage(`completion failed: ${done.text}`)
      const token = yield* tokens.reveal(done.body.reservation_id as ReservationId, "manage").pipe(Effect.map(Option.getOrThrow))
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
  clock.advance(25 * 60 * 60 * 1000)
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
  if (cancel.status !== 200) return yield* Effect.dieMessage(`cancel failed: ${cancel.text}`)
  const publicView = yield* get("/v1/reservation-public", { "x-reservation-token": guestPool[0]!.token })
  const termsVersion: string = publicView.body.terms.version

  const vocabulary: Vocabulary = {
    today,
    byName: {
      RoomTypeId: [...ROOM_TYPES, "suite"],
      RateCode: ["FLEX", "FLEX_BB", "NRF", "UNKNOWN"],
      QuoteId: [...quoteIds, expiredQuote.body.quote_id, "q_unknown"],
      PackageCode: [...packageCodes, "NONE"],
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

/** The app's clock, which the fuzzer reads and moves (to let a quote and a guest link lapse). */
class FuzzClock extends Context.Tag("FuzzClock")<FuzzClock, {
  readonly now: () => number
  readonly advance: (ms: number) => void
}>() {}

/** The whole app in memory on a clock of its own (today is Sunday 2026-11-22), with that clock. */
export const FuzzApp = () => {
  const clock = makeTestClock("2026-11-22T10:00:00Z")
  return Layer.merge(
    // the run completes many reservations from one address: BOOKING_LIMIT_PER_HOUR off, or its 429s would hide the flow
    TestApp({ config: { bookingLimitPerHour: 0 } }).pipe(Layer.provide(clock.layer)),
    Layer.succeed(FuzzClock, { now: clock.now, advance: clock.advance })
  )
}

// ---------------------------------------------------------------------------------------------
// Running

interface OperationReport {
  readonly id: string
  requests: number
  ok: number
  /** `status code` → count, for every non-2xx answer */
  readonly errors: Map<string, number>
  /** label → count */
  readonly labels: Map<string, number>
  serverErrors: number
  invalid: number
  readonly problems: Array<string>
  generationMs: number
  elapsedMs: number
}

interface FuzzOptions {
  readonly runs: number
  readonly seed: number
  /** Run only the operations whose id contains this. */
  readonly only?: string | undefined
}

const materialize = (value: unknown, total: number): unknown =>
  value instanceof Slot
    ? total
    : Array.isArray(value)
    ? value.map((v) => materialize(v, total))
    : value !== null && typeof value === "object"
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, materialize(v, total)]))
    : value

const describePlan = (op: Operation, plan: RequestPlan, target: string) =>
  JSON.stringify({
    op: op.id,
    label: plan.label,
    target: target.length > 300 ? `${target.slice(0, 300)}…` : target,
    contentType: plan.contentType,
    chunked: plan.chunked,
    token: plan.token.kind,
    headers: plan.headers.map(([k, v]) => [k, v.length > 80 ? `${v.slice(0, 80)}…(${v.length})` : v]),
    body: plan.body.kind === "json"
      ? (JSON.stringify(plan.body.value) ?? "").slice(0, 400)
      : plan.body.kind === "text"
      ? plan.body.text.slice(0, 200)
      : plan.body.kind
  })

/**
 * Fuzzes every operation of the served document with `runs` requests each. Needs the whole app
 * served (TestApp) with the fuzz clock.
 */
export const fuzz = (options: FuzzOptions) =>
  Effect.gen(function*() {
    const spec = (yield* request(HttpClientRequest.get("/openapi.json"))).body as Doc
    const validate = makeValidator(spec)
    const server = yield* HttpServer.HttpServer
    if (server.address._tag !== "TcpAddress") return yield* Effect.dieMessage("the fuzzer needs a TCP server")
    const port = server.address.port
    const { resolveToken, vocabulary } = yield* makeStates
    const reports: Array<OperationReport> = []
    let previous = ""
    for (const [index, op] of operationsOf(spec).entries()) {
      if (options.only !== undefined && !op.id.includes(options.only)) continue
      const report: OperationReport = { id: op.id, requests: 0, ok: 0, errors: new Map(), labels: new Map(), serverErrors: 0, invalid: 0, problems: [], generationMs: 0, elapsedMs: 0 }
      reports.push(report)
      const generating = Date.now()
      const plans = fc.sample(requestArbitrary(spec, op, vocabulary), { seed: options.seed + index * 7919, numRuns: options.runs })
      report.generationMs = Date.now() - generating
      // a connection of its own: one left idle while the plans were generated may have been closed meanwhile
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
      for (const plan of plans) {
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
        const target = search === "" ? plan.path : `${plan.path}?${search}`
        const outcome = yield* Effect.either(Effect.tryPromise(() => send(agent, port, op.method, target, headers, body, plan.chunked)))
        report.requests += 1
        report.labels.set(plan.label, (report.labels.get(plan.label) ?? 0) + 1)
        const verdict: Verdict = outcome._tag === "Left"
          ? { status: 0, code: undefined, problem: `no answer: ${String(outcome.left.cause)} (after ${previous})` }
          : checkResponse(op, validate, outcome.right)
        if (verdict.status >= 200 && verdict.status < 300) report.ok += 1
        else if (verdict.status !== 0) {
          const key = `${verdict.status} ${verdict.code ?? "-"}`
          report.errors.set(key, (report.errors.get(key) ?? 0) + 1)
        }
        if (verdict.status >= 500) report.serverErrors += 1
        previous = `${describePlan(op, plan, target)} → ${verdict.status}`
        if (verdict.problem !== undefined) {
          report.invalid += 1
          if (report.problems.length < 5) report.problems.push(`${verdict.problem}\n      request: ${describePlan(op, plan, target)}`)
        }
      }
      agent.destroy()
      report.elapsedMs = Date.now() - generating
    }
    return reports
  })

/** The table of a run: requests, 2xx, non-2xx by status and code, 5xx, invalid answers. */
export const formatReport = (reports: ReadonlyArray<OperationReport>, options: FuzzOptions): string => {
  const lines = [
    `fuzz: seed ${options.seed}, ${options.runs} requests per operation (replay: FUZZ_SEED=${options.seed} FUZZ_RUNS=${options.runs})`,
    "",
    "| operation | requests | 2xx | non-2xx by status and code | 5xx | invalid | seconds |",
    "|---|---:|---:|---|---:|---:|---:|"
  ]
  for (const r of reports) {
    const errors = [...r.errors.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k}: ${n}`).join(", ")
    lines.push(`| ${r.id} | ${r.requests} | ${r.ok} | ${errors} | ${r.serverErrors} | ${r.invalid} | ${(r.elapsedMs / 1000).toFixed(1)} |`)
  }
  const total = reports.reduce((n, r) => n + r.requests, 0)
  lines.push("", `total: ${total} requests, ${reports.reduce((n, r) => n + r.serverErrors, 0)} 5xx, ${reports.reduce((n, r) => n + r.invalid, 0)} invalid`)
  for (const r of reports.filter((r) => r.problems.length > 0)) {
    lines.push("", `${r.id}:`, ...r.problems.map((p) => `  - ${p}`))
  }
  return lines.join("\n")
}
