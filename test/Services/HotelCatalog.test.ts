import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
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

const TestCatalog = HotelCatalog.Default.pipe(Layer.provideMerge(CountingRepo))

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
})
