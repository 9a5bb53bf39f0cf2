import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { copiesOnEncode, directAnswer } from "../../src/Api/Handlers/DirectAnswer.js"
import { Amount } from "../../src/Domain/Money.js"
import { MultiRoomQuoteResponse } from "../../src/Domain/Quote.js"

const WITHOUT_CHECKS = { disableChecks: true } as const

/** The answer's JSON text, and what the API's builder would write: the schema's encoding, as JSON. */
const bothWays = <S extends Schema.Codec<any, any>>(schema: S, value: S["Type"]) => {
  const response = directAnswer(schema, WITHOUT_CHECKS)(value)
  expect(response.headers["content-type"]).toBe("application/json")
  const body = response.body
  if (body._tag !== "Uint8Array") throw new Error(`a ${body._tag} body`)
  return {
    direct: JSON.parse(new TextDecoder().decode(body.body)),
    schema: JSON.parse(JSON.stringify(Schema.encodeSync(schema, WITHOUT_CHECKS)(value)))
  }
}

const Line = Schema.Struct({
  label: Schema.String,
  amount: Amount,
  note: Schema.optionalKey(Schema.String),
  counted: Schema.NumberFromString
})
const Bill = Schema.Struct({
  id: Schema.String.pipe(Schema.brand("BillId")),
  lines: Schema.Array(Line),
  total: Schema.NullOr(Amount),
  paid_at: Schema.NullOr(Schema.DateTimeUtcFromString),
  tags: Schema.Array(Schema.Literals(["a", "b"]))
})

describe("an answer written from the service's value", () => {
  it("a schema of strings, numbers, literals, nulls, arrays and structs only copies; one that converts does not", () => {
    expect(copiesOnEncode(Schema.Struct({ a: Schema.NullOr(Schema.Int), b: Schema.Array(Schema.Literals(["x", "y"])) }).ast)).toBe(true)
    expect(copiesOnEncode(Schema.String.pipe(Schema.brand("Id")).ast)).toBe(true)
    for (const converting of [Amount, Schema.NumberFromString, Schema.Date, Schema.Struct({ inner: Schema.Array(Schema.NullOr(Amount)) })]) {
      expect(copiesOnEncode(converting.ast)).toBe(false)
    }
    expect(copiesOnEncode(MultiRoomQuoteResponse.ast)).toBe(false) // its amounts: cents inside, euros on the wire
  })

  it("converts as the schema does: cents to euros in an array of structs, an absent optional field, a union, a date", () => {
    const { direct, schema } = bothWays(Bill, Schema.decodeUnknownSync(Bill)({
      id: "b1",
      lines: [{ label: "room", amount: 466.5, note: "late", counted: "2" }, { label: "tax", amount: 15.6, counted: "1" }],
      total: 482.1,
      paid_at: "2026-11-29T05:00:00.000Z",
      tags: ["a"]
    }))
    expect(direct).toEqual(schema)
    expect(direct.lines).toEqual([{ label: "room", amount: 466.5, note: "late", counted: "2" }, { label: "tax", amount: 15.6, counted: "1" }])
    expect(bothWays(Bill, Schema.decodeUnknownSync(Bill)({ id: "b2", lines: [], total: null, paid_at: null, tags: [] })).direct)
      .toEqual({ id: "b2", lines: [], total: null, paid_at: null, tags: [] })
  })
})
