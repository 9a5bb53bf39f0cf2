import { expect, layer } from "@effect/vitest"
import { Effect, Fiber, Latch, Layer } from "effect"
import { InventoryRepo } from "../../src/Layers/Persistence/InventoryRepo.js"
import { CALENDARS_AT_ONCE } from "../../src/Services/PriceCalendar.js"
import { makeTestClock } from "../support/clock.js"
import { eventually } from "../support/eventually.js"
import { get, post } from "../support/flow.js"
import { demoInventory } from "../support/hotel.js"
import { TestApp } from "../support/TestApp.js"

const clock = makeTestClock("2026-11-22T10:00:00Z")
const gate = Latch.makeUnsafe(false)
let reading = 0

/** The demo inventory, whose calendar read waits until the test opens the gate: calendars that take long. */
const heldInventory = Layer.effect(
  InventoryRepo,
  InventoryRepo.useSync((repo) => ({
    ...repo,
    nightsBetween: (from, until) =>
      Effect.sync(() => reading++).pipe(
        Effect.andThen(gate.await),
        Effect.andThen(repo.nightsBetween(from, until)),
        Effect.ensuring(Effect.sync(() => reading--))
      )
  }))
).pipe(Layer.provide(InventoryRepo.InMemory(demoInventory)))

const calendar = get("/v1/calendar?from=2026-12-01&to=2026-12-31&nights=1&adults=2")

layer(TestApp({ inventoryRepo: heldInventory }).pipe(Layer.provide(clock.layer)), { excludeTestServices: true })(
  "the price calendar's concurrency",
  (it) => {
    it.effect("a few calendars are computed at once; the rest wait at most about 1 s, then 503 unavailable with Retry-After", () =>
      Effect.gen(function*() {
        const flood = 3 * CALENDARS_AT_ONCE
        const started = Date.now()
        const fibers = yield* Effect.forEach(Array.from({ length: flood }), () => Effect.forkChild(calendar))
        const answered = Effect.sync(() => fibers.filter((fiber) => fiber.pollUnsafe() !== undefined).length)
        // the calendars beyond the bound are answered while those computing are still held
        yield* eventually(Effect.map(answered, (n) => n === flood - CALENDARS_AT_ONCE))
        const waited = Date.now() - started
        expect(reading).toBe(CALENDARS_AT_ONCE)
        yield* gate.open
        const answers = yield* Effect.forEach(fibers, Fiber.join)
        const refused = answers.filter((a) => a.status !== 200)
        expect(answers.length - refused.length).toBe(CALENDARS_AT_ONCE)
        for (const answer of refused) {
          expect([answer.status, answer.headers["retry-after"]]).toEqual([503, "1"])
          expect(answer.body.error).toMatchObject({ code: "unavailable", details: { retry_after_seconds: 1 } })
        }
        // a bound, not a speed: generous on a shared machine
        expect(waited).toBeLessThan(10_000)
        // every turn given back, those of the refused waits too: as many again are all computed
        const again = yield* Effect.forEach(Array.from({ length: flood }), () => calendar, { concurrency: "unbounded" })
        expect(again.map((a) => a.status)).toEqual(Array(flood).fill(200))
        yield* eventually(Effect.sync(() => reading === 0))
      }))

    it.effect("the MCP tool price_calendar waits for the same turns: busy, it is the tool error unavailable", () =>
      Effect.gen(function*() {
        yield* gate.close
        const held = yield* Effect.forEach(Array.from({ length: CALENDARS_AT_ONCE }), () => Effect.forkChild(calendar))
        yield* eventually(Effect.sync(() => reading === CALENDARS_AT_ONCE))
        const tool = yield* post("/mcp", {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "price_calendar", arguments: { from: "2026-12-01", to: "2026-12-31", nights: 1, adults: 2 } }
        })
        expect(tool.body.result.isError).toBe(true)
        expect(tool.body.result.structuredContent.error).toMatchObject({ code: "unavailable", details: { retry_after_seconds: 1 } })
        yield* gate.open
        const answers = yield* Effect.forEach(held, Fiber.join)
        expect(answers.map((a) => a.status)).toEqual(Array(CALENDARS_AT_ONCE).fill(200))
      }))
  }
)
