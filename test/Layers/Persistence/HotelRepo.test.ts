import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { HotelRepo } from "../../../src/Layers/Persistence/HotelRepo.js"
import { contract } from "../../support/contract.js"
import { demoHotel } from "../../support/hotel.js"

contract("HotelRepo", { inMemory: HotelRepo.InMemory(demoHotel), postgres: HotelRepo.layer }, (it) => {
  it.effect("holds the imported hotel, which needs no import", () =>
    Effect.gen(function*() {
      const repo = yield* HotelRepo
      expect(yield* repo.load).toEqual(demoHotel)
      expect(yield* repo.needsImport).toBe(false)
    }))

  it.effect("a replaced hotel is the one loaded from then on", () =>
    Effect.gen(function*() {
      const repo = yield* HotelRepo
      const renamed = { ...demoHotel, name: "Hôtel Belle Rive & Spa" }
      yield* repo.replace(renamed)
      expect(yield* repo.load).toEqual(renamed)
      yield* repo.replace(demoHotel)
      expect(yield* repo.load).toEqual(demoHotel)
    }))
})
