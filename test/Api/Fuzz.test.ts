import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { formatReport, fuzz, FuzzApp, readContract } from "../support/fuzz.js"

// A small sample of `npm run fuzz` (test/fuzz.ts): the same generators, edges and checks, 50
// generated requests per operation and MCP tool after its edges, on the app in this process.
const options = { runs: 50, seed: 20261122 }

layer(FuzzApp(), { excludeTestServices: true })("fuzzing from the contract (sample)", (it) => {
  it.effect("every integer, string and array a request or a tool call can carry has an upper bound", () =>
    Effect.gen(function*() {
      const { operations, tools, unbounded } = yield* readContract
      expect(operations.length).toBeGreaterThanOrEqual(14)
      expect(tools.length).toBeGreaterThanOrEqual(5)
      expect(unbounded).toEqual([])
    }))

  it.effect("every operation of /openapi.json and every MCP tool answers generated requests and edges as documented, never a 5xx", () =>
    Effect.gen(function*() {
      const result = yield* fuzz(options)
      const table = formatReport(result, options)
      expect(result.down, table).toBeUndefined()
      const byId = new Map(result.reports.map((r) => [r.id, r]))
      expect(result.reports.length, table).toBeGreaterThanOrEqual(19)
      for (const report of result.reports) {
        expect(report.requests, table).toBe(options.runs + report.edges)
        expect(report.serverErrors, table).toBe(0)
        expect(report.invalid, table).toBe(0)
      }
      // the sample reaches past validation: successes and the deep 409s of the reservation flow
      expect(byId.get("POST /v1/quotes")!.ok, table).toBeGreaterThan(0)
      expect(byId.get("GET /v1/reservation-manage")!.ok, table).toBeGreaterThan(0)
      expect(byId.get("MCP quote_stay")!.ok, table).toBeGreaterThan(0)
      // every field's edges were sent: 3 lengths for each of availability's dates (and 4 far numbers as
      // text in a URL), 8 numbers for each of its counts
      expect(byId.get("GET /v1/availability")!.edges, table).toBe(30)
      expect(byId.get("MCP check_availability")!.edges, table).toBe(22)
    }), 120_000)
})
