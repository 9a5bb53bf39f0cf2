/**
 * The OpenAPI document as clients have always read it. The framework's generator writes some
 * things its own way; these are put back, the facts unchanged:
 *
 * - a status several errors share is described by the first of them (not all, joined by ` | `);
 *   every 400 by what it says of the request, and an operation that takes no input has none
 *   (`RequestErrors` lists one for every operation, as a request that breaks its schema is one);
 * - a parameter carries its description, as its schema does; a query parameter that is a number
 *   is documented as one, with its bounds (not as the text the query carries);
 * - a union sent as a request body is written out in it, not named apart;
 * - an integer has no bounds but the ones its schema sets (not ±2^53), and a plain one is the
 *   shared `Int`;
 * - what a part of an `allOf` only says of the whole (a description, a format) is said beside it;
 * - a body that is not JSON is described by its response: a file's schema says it again, text's does not.
 */
import { Schema, SchemaAST } from "effect"

/** A JSON Schema or any part of the document: a JSON object, untyped as the framework's transform takes it. */
type Json = Record<string, any>

const INVALID_REQUEST = "Invalid request; error.code says which rule, error.message names the field"

/** The bounds the generator gives every integer: the safe ones. */
const SAFE_MIN = Number.MIN_SAFE_INTEGER
const SAFE_MAX = Number.MAX_SAFE_INTEGER

const COMPONENT = "#/components/schemas/"
const INT_REF = `${COMPONENT}Int`
const INT = { type: "integer", description: "an integer", title: "int" }

/** Keywords that describe a schema (or name its format) without adding a constraint to another's. */
const ANNOTATIONS = new Set(["title", "description", "examples", "default", "readOnly", "writeOnly", "format"])

const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** A part of `whole` (of its `allOf`) that only annotates, with nothing `whole` says itself. */
const isSaidOfTheWhole = (part: Json, whole: Json) => Object.keys(part).every((key) => ANNOTATIONS.has(key) && !(key in whole))

/** One schema as the document writes it (its parts first). */
const asWritten = (schema: Json): Json => {
  for (const [key, value] of Object.entries(schema)) schema[key] = written(value)
  if (schema.type === "integer" && schema.minimum === SAFE_MIN && schema.maximum === SAFE_MAX) {
    delete schema.minimum
    delete schema.maximum
  }
  if (Array.isArray(schema.allOf)) {
    const parts: Array<unknown> = []
    for (const part of schema.allOf) {
      if (isJson(part) && isSaidOfTheWhole(part, schema)) Object.assign(schema, part)
      else parts.push(part)
    }
    if (parts.length === 0) delete schema.allOf
    else schema.allOf = parts
  }
  return Object.keys(schema).length === 1 && schema.type === "integer" ? { $ref: INT_REF } : schema
}

const written = (value: unknown): unknown =>
  Array.isArray(value) ? value.map(written) : isJson(value) ? asWritten(value) : value

/** The part of a response's description before the others the generator joined to it: the first error's. */
const firstDescription = (description: string) => description.split(" | ")[0]!

/** Each body that is not JSON: a file's schema says what its response says; text's says nothing more. */
const describeBodies = (response: Json) => {
  for (const [mediaType, { schema }] of Object.entries<Json>(response.content ?? {})) {
    if (mediaType.endsWith("json") || schema?.type !== "string") continue
    if (schema.format === "binary") schema.description = response.description
    else delete schema.description
  }
}

const describeResponses = (operation: Json) => {
  const takesInput = operation.requestBody !== undefined || operation.parameters?.length > 0
  for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
    response.description = firstDescription(response.description)
    describeBodies(response)
    if (status !== "400") continue
    if (takesInput) response.description = INVALID_REQUEST
    else delete operation.responses[status]
  }
}

/** The number a query parameter decodes to, as a JSON Schema (its bounds included), by operation and name. */
type NumericQueries = ReadonlyMap<string, ReadonlyMap<string, Json>>

/** What of a group the document needs: its endpoints' queries. */
interface Group {
  readonly identifier: string
  readonly endpoints: Readonly<Record<string, { readonly identifier: string; readonly query: Schema.Top | undefined }>>
}

const numericQueries = (groups: ReadonlyArray<Group>): NumericQueries => {
  const found = new Map<string, Map<string, Json>>()
  for (const group of groups) {
    for (const endpoint of Object.values(group.endpoints)) {
      const query = endpoint.query === undefined ? undefined : SchemaAST.toType(endpoint.query.ast)
      if (query === undefined || !SchemaAST.isObjects(query)) continue
      const numbers = new Map<string, Json>()
      for (const property of query.propertySignatures) {
        const decoded = SchemaAST.toType(property.type)
        if (SchemaAST.isNumber(decoded)) numbers.set(String(property.name), Schema.toJsonSchemaDocument(Schema.make(decoded)).schema)
      }
      found.set(`${group.identifier}.${endpoint.identifier}`, numbers)
    }
  }
  return found
}

const describeParameters = (operation: Json, numbers: ReadonlyMap<string, Json> | undefined) => {
  for (const parameter of operation.parameters ?? []) {
    const number = parameter.in === "query" ? numbers?.get(parameter.name) : undefined
    if (number !== undefined) {
      const { type: _text, ...annotations } = parameter.schema
      parameter.schema = { ...asWritten(number), ...annotations }
    }
    if (typeof parameter.schema?.description === "string") parameter.description = parameter.schema.description
  }
}

/** A request body that is a union of named schemas is written out in the operation; returns the union's name. */
const inlineUnionBody = (operation: Json, schemas: Json): string | undefined => {
  const content = operation.requestBody?.content?.["application/json"]
  const ref: unknown = content?.schema?.$ref
  if (typeof ref !== "string" || !ref.startsWith(COMPONENT)) return undefined
  const name = ref.slice(COMPONENT.length)
  if (!Array.isArray(schemas[name]?.anyOf)) return undefined
  content.schema = schemas[name]
  return name
}

/** The document of an API of these groups as clients know it (the framework's `OpenApi.Transform`). */
export const asDocumented = (groups: ReadonlyArray<Group>) => (spec: Json): Json => {
  const numbers = numericQueries(groups)
  const document = written(spec) as Json
  const schemas: Json = document.components?.schemas ?? {}
  const inlined = new Set<string>()
  for (const path of Object.values<Json>(document.paths ?? {})) {
    for (const operation of Object.values<Json>(path)) {
      describeResponses(operation)
      describeParameters(operation, numbers.get(operation.operationId))
      const union = inlineUnionBody(operation, schemas)
      if (union !== undefined) inlined.add(union)
    }
  }
  for (const name of inlined) {
    if (!JSON.stringify(document).includes(`"${COMPONENT}${name}"`)) delete schemas[name]
  }
  if (JSON.stringify(document).includes(`"${INT_REF}"`)) schemas.Int = INT
  return document
}
