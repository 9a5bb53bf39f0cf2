import { expect, layer } from "@effect/vitest"
import { Validator } from "@seriousme/openapi-schema-validator"
import { Effect, Layer } from "effect"
import { HttpClientRequest } from "effect/http"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { UNAVAILABILITY_REASONS, UnavailabilityReason } from "../../src/Domain/Quote.js"
import { makeTestClock } from "../support/clock.js"
import { request, TestApp } from "../support/TestApp.js"

const clock = makeTestClock("2026-11-22T10:00:00Z")
const fetchSpec = request(HttpClientRequest.get("/openapi.json")).pipe(Effect.map((r) => r.body))

layer(TestApp().pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("/openapi.json", (it) => {
  it.effect("is a valid OpenAPI 3.1 document of version 1.1.0 with every endpoint", () =>
    Effect.gen(function*() {
      const spec = yield* fetchSpec
      expect(spec.openapi).toBe("3.1.0")
      expect(spec.info.version).toBe("1.1.0")
      expect(spec.servers).toEqual([{ url: "http://hotel.test", description: "This deployment" }])
      for (const p of ["/", "/v1", "/v1/health", "/v1/hotel", "/v1/room-types", "/v1/availability", "/.well-known/api-catalog", "/llms.txt"]) {
        expect(spec.paths[p]?.get?.summary, p).toBeTruthy()
      }
      const result = yield* Effect.promise(() => new Validator().validate(spec))
      expect(result.errors ?? []).toEqual([])
      expect(result.valid).toBe(true)
    }))

  it.effect("shows examples of the main answers, money in major units as on the wire", () =>
    Effect.gen(function*() {
      const { components } = yield* fetchSpec
      expect(components.schemas.MultiRoomQuoteResponse.examples[0].package_offers[0].price.total).toBe(481.6)
      expect(components.schemas.ReservationIntent.examples[0].continue_url).toContain("/complete#token=")
      expect(components.schemas.ReservationCompleted.examples[0].status).toBe("GUEST_COMPLETED")
      expect(components.schemas.MultiRoomQuoteRequest.examples).toHaveLength(1)
    }))

  it.effect("documents the stay changes: both actions, the ChangeQuote answer and their 409s, with examples", () =>
    Effect.gen(function*() {
      const spec = yield* fetchSpec
      const { schemas } = spec.components
      const manage = spec.paths["/v1/reservation-manage"].post
      const refs = (schema: unknown): Array<string> => JSON.stringify(schema).match(/[A-Za-z]+(?=")/g) ?? []
      expect(refs(manage.requestBody)).toEqual(expect.arrayContaining(["QuoteChangeAction", "ChangeStayAction"]))
      expect(refs(manage.responses["200"])).toEqual(expect.arrayContaining(["Reservation", "ChangeQuote"]))
      expect(refs(manage.responses["409"])).toEqual(expect.arrayContaining(["ChangeNotAllowed", "PriceChanged", "AvailabilityChanged"]))
      expect(schemas.ChangeStayAction.examples[0]).toMatchObject({ action: "change_stay", expected_total: 454.68 })
      expect(schemas.QuoteChangeAction.examples[0]).toMatchObject({ action: "quote_change" })
      expect(schemas.ChangeQuote.examples[0]).toMatchObject({ previous_total: 430.8, new_total: 454.68, difference: 23.88 })
      expect(schemas.ChangeQuote.properties.difference.minimum).toBeLessThan(0)
      expect(schemas.ChangeNotAllowed.examples[0].error).toMatchObject({ code: "change_not_allowed", details: { reason: "deadline_passed" } })
      expect(schemas.PriceChanged.examples[0].error.code).toBe("price_changed")
      expect(schemas.AvailabilityChanged.examples[0].error.details.rooms[0].reason).toBe("sold_out")
    }))

  it.effect("explains each unavailable reason and what to do where a reason is answered, and never the hotel's own interface", () =>
    Effect.gen(function*() {
      const spec = yield* fetchSpec
      const operations = {
        "POST /v1/quotes": spec.paths["/v1/quotes"].post,
        "GET /v1/availability": spec.paths["/v1/availability"].get,
        "GET /v1/calendar": spec.paths["/v1/calendar"].get,
        "POST /v1/reservation-complete": spec.paths["/v1/reservation-complete"].post,
        "POST /v1/reservation-manage": spec.paths["/v1/reservation-manage"].post
      }
      for (const [name, operation] of Object.entries(operations)) {
        for (const reason of UnavailabilityReason.literals) {
          expect(operation.description, name).toContain(`${reason} (${UNAVAILABILITY_REASONS[reason]})`)
        }
      }
      for (const name of ["POST /v1/quotes", "GET /v1/availability", "GET /v1/calendar", "POST /v1/reservation-complete"] as const) {
        expect(operations[name].description, name).toContain("follow the hotel's own systems")
      }
      expect(operations["GET /v1/calendar"].description).toContain("ask again with nights set to its min_stay")
      expect(operations["POST /v1/reservation-complete"].description).toContain("details.rooms[] gives each room request")
      const { schemas } = spec.components
      expect(schemas.RoomUnavailability.properties.min_stay.description).toContain("fewest nights")
      expect(JSON.stringify(spec)).not.toContain("/internal")
    }))

  it.effect("documents our Error body, never the framework's", () =>
    Effect.gen(function*() {
      const spec = yield* fetchSpec
      const text = JSON.stringify(spec)
      expect(text).not.toContain("HttpApiDecodeError")
      const availability = spec.paths["/v1/availability"].get.responses
      expect(Object.keys(availability)).toEqual(expect.arrayContaining(["200", "400", "404", "500"]))
      const ref = availability["400"].content["application/json"].schema.$ref.split("/").pop()
      expect(spec.components.schemas[ref].properties.error.required).toEqual(["code", "message"])
      // an operation without input cannot be a 400
      expect(spec.paths["/v1/hotel"].get.responses["400"]).toBeUndefined()
      expect(spec.paths["/v1/health"].get.responses["503"]).toBeDefined()
    }))

  it.effect("passes redocly lint with no errors", () =>
    Effect.gen(function*() {
      const spec = yield* fetchSpec
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "openapi-"))
      const file = path.join(dir, "openapi.json")
      fs.writeFileSync(file, JSON.stringify(spec))
      const cli = path.resolve("node_modules/@redocly/cli/bin/cli.js")
      const outcome = yield* Effect.promise(() =>
        promisify(execFile)(process.execPath, [cli, "lint", file, "--format=stylish"], {
          env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" }
        }).then(
          ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
          (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, output: error.stdout + error.stderr })
        )
      )
      fs.rmSync(dir, { recursive: true, force: true })
      expect(outcome.output).not.toMatch(/\berror\b.*no-|\d+ errors?/i)
      expect(outcome.code, outcome.output).toBe(0)
    }), 60_000)
})
