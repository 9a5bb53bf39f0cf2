import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { formatReport, fuzz, FuzzApp } from "../support/fuzz.js"

// A small sample of `npm run fuzz` (test/fuzz.ts): the same generators and checks, 50 requests per operation.
const options = { runs: 50, seed: 20261122 }

layer(FuzzApp(), { excludeTestServices: true })("fuzzing from the contract (sample)", (it) => {
  it.effect("every operation of /openapi.json answers generated requests as the document says, never a 5xx", () =>
    Effect.gen(function*() {
      const reports = yield* fuzz(options)
      const table = formatReport(reports, options)
      expect(reports.length, table).toBeGreaterThanOrEqual(14)
      for (const report of reports) {
        expect(report.requests, table).toBe(options.runs)
        expect(report.serverErrors, table).toBe(0)
        expect(report.invalid, table).toBe(0)
      }
      // the sample reaches past validation: successes and the deep 409s of the reservation flow
      const byId = new Map(reports.map((r) => [r.id, r]))
      expect(byId.get("POST /v1/quotes")!.ok, table).toBeGreaterThan(0)
      expect(byId.get("GET /v1/reservation-manage")!.ok, table).toBeGreaterThan(0)
    }), 120_000)
})
