import { describe, expect, it } from "@effect/vitest"
import { type Context, type Duration, Effect, Exit, Fiber, Layer } from "effect"
import { SqlError } from "effect/sql"
import { TestClock } from "effect/testing"
import { HotelRepo } from "../../src/Layers/Persistence/HotelRepo.js"
import { HotelCatalog } from "../../src/Services/HotelCatalog.js"
import { demoHotel } from "../support/hotel.js"

/** The demo hotel in memory, counting how often the catalog reads it. */
const CountingRepo = Layer.effect(
  HotelRepo,
  Effect.map(HotelRepo, (repo) => {
    let loads = 0
    return { ...repo, load: Effect.suspend(() => (loads++, repo.load)), loads: () => loads }
  })
).pipe(Layer.provideMerge(HotelRepo.InMemory(demoHotel)))

const TestCatalog = HotelCatalog.layer.pipe(Layer.provideMerge(CountingRepo))

describe("HotelCatalog", () => {
  it.effect("keeps the definition 5 s, then reads the re-imported one, once for all concurrent callers", () =>
    Effect.gen(function*() {
      const catalog = yield* HotelCatalog
      const repo = (yield* HotelRepo) as unknown as typeof HotelRepo.Service & { readonly loads: () => number }
      expect((yield* catalog.definition()).name).toBe(demoHotel.name)
      yield* repo.replace({ ...demoHotel, name: "Renamed" })
      yield* TestClock.adjust("4 seconds")
      expect((yield* catalog.definition()).name).toBe(demoHotel.name)
      expect(repo.loads()).toBe(1)
      yield* TestClock.adjust("1 second")
      const names = yield* Effect.all(Array.from({ length: 10 }, () => catalog.definition()), { concurrency: "unbounded" })
      expect(names.map((h) => h.name)).toEqual(Array(10).fill("Renamed"))
      expect(repo.loads()).toBe(2)
    }).pipe(Effect.provide(TestCatalog)))

  it.effect("answers from the copy it has while the database fails, and reads again a second later", () =>
    Effect.gen(function*() {
      const catalog = yield* HotelCatalog
      const repo = (yield* HotelRepo) as unknown as FailingRepo
      expect((yield* catalog.definition()).name).toBe(demoHotel.name)
      repo.fail(true)
      yield* TestClock.adjust("5 seconds")
      expect((yield* catalog.definition()).name).toBe(demoHotel.name)
      expect((yield* catalog.definition()).name).toBe(demoHotel.name)
      expect(repo.loads()).toBe(2) // the failed read is not repeated by every request
      repo.fail(false)
      yield* repo.replace({ ...demoHotel, name: "Renamed" })
      yield* TestClock.adjust("1 second")
      expect((yield* catalog.definition()).name).toBe("Renamed")
    }).pipe(Effect.provide(FailingCatalog)))

  it.effect("with no copy yet, the callers waiting behind a read that fails get its failure, not a wait of their own", () =>
    Effect.gen(function*() {
      const catalog = yield* HotelCatalog
      const repo = (yield* HotelRepo) as unknown as FailingRepo
      repo.fail(true, "5 seconds")
      const callers = yield* Effect.forkChild(Effect.all(Array.from({ length: 5 }, () => Effect.exit(catalog.definition())), { concurrency: "unbounded" }))
      yield* Effect.yieldNow
      yield* TestClock.adjust("5 seconds") // the one read's deadline
      const exits = yield* Fiber.join(callers)
      expect(exits.every(Exit.isFailure)).toBe(true)
      expect(repo.loads()).toBe(1)
    }).pipe(Effect.provide(FailingCatalog)))
})

/** The demo hotel in memory, whose reads can be made to fail as a database gone would (after a wait, as a deadline). */
interface FailingRepo extends Context.Service.Shape<typeof HotelRepo> {
  readonly loads: () => number
  readonly fail: (failing: boolean, after?: Duration.Input) => void
}
const FailingCatalog = HotelCatalog.layer.pipe(Layer.provideMerge(Layer.effect(
  HotelRepo,
  Effect.map(HotelRepo, (repo) => {
    let loads = 0
    let failing = false
    let wait: Duration.Input = 0
    const gone = Effect.die(
      new SqlError.SqlError({ reason: new SqlError.ConnectionError({ cause: new Error("connect ECONNREFUSED 127.0.0.1:5432"), message: "Failed to acquire connection" }) })
    )
    return {
      ...repo,
      load: Effect.suspend(() => (loads++, failing ? Effect.andThen(Effect.sleep(wait), gone) : repo.load)),
      loads: () => loads,
      fail: (value: boolean, after: Duration.Input = 0) => {
        failing = value
        wait = after
      }
    }
  })
).pipe(Layer.provideMerge(HotelRepo.InMemory(demoHotel)))))
