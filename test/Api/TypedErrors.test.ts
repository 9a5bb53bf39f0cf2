import { describe, expect, it, layer } from "@effect/vitest"
import { Arbitrary, Effect, Exit, Layer, Result, Schema, SchemaAST } from "effect"
import { HttpApi, type HttpApiGroup } from "effect/http-api"
import { Api } from "../../src/Api/Contract/Api.js"
import { ChannelApi } from "../../src/Api/Contract/Channel.js"
import { ErrorBody } from "../../src/Api/Contract/Errors.js"
import { makeTestClock } from "../support/clock.js"
import { complete, eur, pendingBooking, quoteStay } from "../support/flow.js"
import { apiClient, apiClientWith, TestApp } from "../support/TestApp.js"

/*
 * A typed client decodes an error body by its status: the union of the errors an endpoint lists
 * for that status, tried in turn. Each body must come back as the error that sent it, with its own
 * fields (cents in cent fields), however many errors share the status. Driven by the API's
 * definitions: an error added later is covered without a line here.
 */

/** Each error (an `errorBody` schema) an endpoint lists for a status, and the union the client decodes that status with. */
interface StatusErrors {
  readonly endpoint: string
  readonly status: number
  readonly union: ErrorSchema
  readonly members: ReadonlyArray<ErrorSchema>
}

/** An error body's schema, as the API holds it: no service is needed to encode or decode it. */
type ErrorSchema = Schema.Codec<unknown, unknown>

const statusErrors = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
): ReadonlyArray<StatusErrors> => {
  const found: Array<StatusErrors> = []
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, errors, group }) =>
      errors.forEach((schemas, status) => {
        // reflection widens them to any schema
        const members = schemas as ReadonlyArray<Schema.Top> as ReadonlyArray<ErrorSchema>
        found.push({ endpoint: `${group.identifier}.${endpoint.identifier}`, status, union: Schema.Union(members), members })
      })
  })
  return found
}

const everyStatus = [...statusErrors(Api), ...statusErrors(ChannelApi)]

/** The body as the client receives it: JSON, so a key whose value is undefined is not there. */
const overTheWire = (body: unknown): unknown => JSON.parse(JSON.stringify(body))

/** The examples annotated on a schema's AST, if any. */
const examplesOf = (ast: SchemaAST.AST): ReadonlyArray<unknown> => {
  const examples = ast.annotations?.examples
  return Array.isArray(examples) ? examples : []
}

/** The generic `Error` example, which a body schema without an example of its own inherits. */
const genericExample = examplesOf(ErrorBody.ast)[0]

/** Bodies each error sends: instances drawn from its class's schema (and its documented example), encoded. */
const bodiesOf = (body: ErrorSchema) =>
  Effect.gen(function*() {
    const encode = Schema.encodeUnknownExit(body)
    // drawn fields the wire cannot carry (an amount beyond the Amount bounds) make no body the server sends
    const sendable = Arbitrary.filter(Arbitrary.schema(Schema.toType(body)), (instance) => Exit.isSuccess(encode(instance)))
    const drawn = yield* Arbitrary.sampleEffect(sendable, { count: 12, seed: 29 })
    const sent = drawn.flatMap((instance) => {
      const encoded = encode(instance)
      return Exit.isSuccess(encoded) ? [{ instance, wire: overTheWire(encoded.value) }] : []
    })
    // an example in the document is a body its own error sends
    const documented = examplesOf(SchemaAST.toEncoded(body.ast)).filter((e) => e !== genericExample)
      .map((example) => ({ instance: Schema.decodeUnknownSync(body)(example), wire: example }))
    return [...sent, ...documented]
  })

describe("error bodies through the typed client", () => {
  it("cover every endpoint, and the statuses several errors share", () => {
    expect(everyStatus.length).toBeGreaterThan(60)
    const shared = everyStatus.filter(({ members }) => members.length > 1).map(({ endpoint, status }) => `${status} ${endpoint}`)
    expect(shared).toEqual(expect.arrayContaining([
      "409 reservations.complete",
      "409 reservations.createIntent",
      "409 manage.act",
      "400 manage.act",
      "400 quotes.quoteRooms",
      "401 reservations.publicView",
      "401 channel.inventory"
    ]))
  })

  for (const { endpoint, members, status, union } of everyStatus) {
    it.effect(`${status} ${endpoint}: each body decodes to the error that sent it, with its fields`, () =>
      Effect.gen(function*() {
        const decode = Schema.decodeUnknownResult(union)
        for (const member of members) {
          for (const { instance, wire } of yield* bodiesOf(member)) {
            const decoded = decode(wire)
            expect(Result.isSuccess(decoded), JSON.stringify(wire)).toBe(true)
            const error = Result.getOrThrow(decoded) as object
            expect(error).toBeInstanceOf((instance as object).constructor)
            expect({ ...error }).toEqual({ ...(instance as object) })
          }
        }
      }))
  }

  it("a price_changed body carries euros; the client's PriceChanged holds cents", () => {
    const completion = everyStatus.find(({ endpoint, status }) => endpoint === "reservations.complete" && status === 409)!
    const decoded = Schema.decodeUnknownSync(completion.union)({
      error: {
        code: "price_changed",
        message: "the total changed",
        details: { previous_total: 498.6, new_total: 512.4, currency: "EUR", rooms: [{ room_index: 0, room_type_id: "double", reason: "price_changed" }] }
      }
    })
    expect(decoded).toMatchObject({ _tag: "PriceChanged", previous_total: 49_860, new_total: 51_240 })
  })

  it("a body no error of the status sends is a decoding failure, not the first error of the status", () => {
    const completion = everyStatus.find(({ endpoint, status }) => endpoint === "reservations.complete" && status === 409)!
    const decode = Schema.decodeUnknownResult(completion.union)
    for (
      const error of [
        { code: "cancellation_not_allowed", message: "no", details: { reason: "non_refundable", refundable: false, free_cancellation_until: null } },
        { code: "availability_changed", message: "no", details: { previous_total: 1, new_total: 2, currency: "EUR", rooms: [] } },
        { code: "quote_expired", message: "no" }
      ]
    ) {
      expect(Result.isFailure(decode({ error })), error.code).toBe(true)
    }
  })
})

// Today is Sunday 2026-11-22 in hotel time.
const clock = makeTestClock("2026-11-22T10:00:00Z")

layer(TestApp().pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("refusals through the typed client", (it) => {
  it.effect("price_changed: PriceChanged with both totals in cents", () =>
    Effect.gen(function*() {
      const stay = ["2027-05-04", "2027-05-05"] as const
      const mine = yield* pendingBooking(...stay, [{ room_type_id: "double", adults: 2 }])
      for (let i = 0; i < 5; i++) {
        const other = yield* pendingBooking(...stay, [{ room_type_id: "double", adults: 2, quantity: 2 }])
        yield* complete(other.token, other.total)
      }
      const refused = yield* Effect.flip(complete(mine.token, mine.total))
      expect(refused).toMatchObject({
        _tag: "PriceChanged",
        previous_total: eur(131.76),
        new_total: eur(144.36),
        currency: "EUR",
        rooms: [{ room_index: 0, room_type_id: "double", reason: "price_changed" }]
      })
    }))

  it.effect("availability_changed: AvailabilityChanged naming the room request", () =>
    Effect.gen(function*() {
      const stay = ["2027-06-01", "2027-06-02"] as const
      const mine = yield* pendingBooking(...stay, [{ room_type_id: "double", adults: 1 }, { room_type_id: "deluxe", adults: 2 }])
      const others = yield* pendingBooking(...stay, [{ room_type_id: "deluxe", adults: 2, quantity: 5 }])
      yield* complete(others.token, others.total)
      const refused = yield* Effect.flip(complete(mine.token, mine.total))
      expect(refused).toMatchObject({
        _tag: "AvailabilityChanged",
        currency: "EUR",
        rooms: [{ room_index: 1, room_type_id: "deluxe", reason: "sold_out" }]
      })
    }))

  it.effect("invalid_token: InvalidToken, not MissingToken", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip((yield* apiClientWith("not-a-token")).reservations.publicView())
      expect(refused._tag).toBe("InvalidToken")
    }))

  it.effect("group_booking: GroupBookingRequired with the limit and the hotel's contact, not QuoteNotReservable", () =>
    Effect.gen(function*() {
      const group = yield* quoteStay("2027-01-12", "2027-01-14", [
        { room_type_id: "double", adults: 2, quantity: 4 },
        { room_type_id: "twin", adults: 1, quantity: 3 }
      ])
      const refused = yield* Effect.flip((yield* apiClient).reservations.createIntent({
        headers: {},
        payload: { quote_id: group.quote_id, package_code: group.package_offers[0]!.package_code, language: "en" }
      }))
      expect(refused).toMatchObject({
        _tag: "GroupBookingRequired",
        quote_id: group.quote_id,
        reason: "group_booking",
        max_rooms: 6,
        requested_rooms: 7,
        contact: { email: "reservations@belle-rive-nice.example", phone: "+33 4 93 00 12 34" }
      })
    }))
})
