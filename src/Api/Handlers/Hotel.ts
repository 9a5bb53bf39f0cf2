import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Health } from "../../Services/Health.js"
import { HotelCatalog } from "../../Services/HotelCatalog.js"
import { Inventory } from "../../Services/Inventory.js"
import { Api } from "../Contract/Api.js"

export const HotelHttp = HttpApiBuilder.group(Api, "hotel", (handlers) =>
  Effect.gen(function*() {
    const health = yield* Health
    const catalog = yield* HotelCatalog
    const inventory = yield* Inventory
    return handlers
      .handle("health", () => health.check())
      .handle("hotel", () => catalog.hotel())
      .handle("roomTypes", ({ query }) => catalog.roomTypes(query.language))
      .handle("availability", ({ query }) => inventory.availability(query))
  }))
