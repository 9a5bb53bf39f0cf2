import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Schema } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { AvailabilityQuery } from "../../src/Domain/Availability.js"
import { InventoryRepo } from "../../src/Layers/Persistence/InventoryRepo.js"
import { daysFromToday } from "../support/clock.js"
import { apiClient, TestApp } from "../support/TestApp.js"
import { demoInventory } from "../support/hotel.js"

/*
 * `effect`'s API builder runs each request with the services its group was built with. Patched
 * (patches/effect+4.1.0.patch), it provides them only when the request's own context does not hold
 * each of them already as the same value; the service's wiring makes it so (`ApiMiddlewareLive`),
 * and a request keeps its own context instead of a copy made for it.
 */

class Greeting extends Context.Service<Greeting, string>()("test/Greeting") {}

const Probe = HttpApi.make("probe").add(
  HttpApiGroup.make("probe").add(HttpApiEndpoint.get("greeting", "/greeting", { success: Schema.String }))
)

const ProbeGroup = HttpApiBuilder.group(Probe, "probe", (handlers) => handlers.handle("greeting", () => Effect.service(Greeting)))

/** The answer to GET /greeting of the probe API, its group built with `groupGreeting`, its server's requests with `serverGreeting` (when given). */
const greetingWith = (groupGreeting: string, serverGreeting?: string) =>
  Effect.promise(async () => {
    const routes = HttpApiBuilder.layer(Probe).pipe(
      Layer.provide(ProbeGroup.pipe(Layer.provide(Layer.succeed(Greeting, groupGreeting)))),
      Layer.provide(NodeHttpServer.layerHttpServices)
    )
    const { dispose, handler } = HttpRouter.toWebHandler(routes, { disableLogger: true })
    const request = new Request("http://probe.test/greeting")
    try {
      // the router's type asks each request for the handler's services; the first case gives none
      const context = serverGreeting === undefined ? Context.empty() as Context.Context<Greeting> : Context.make(Greeting, serverGreeting)
      const response = await handler(request, context)
      return await response.json()
    } finally {
      await dispose()
    }
  })

describe("the services of an API group at each request", () => {
  it.effect("a service only the group was built with reaches its handlers", () =>
    Effect.map(greetingWith("from the group"), (answer) => expect(answer).toBe("from the group")))

  it.effect("where the request holds the same service as another value, the group's wins", () =>
    Effect.map(greetingWith("from the group", "from the server"), (answer) => expect(answer).toBe("from the group")))

  it.live("an API handler of the service runs in the request's own context, not a copy made with its group's services", () => {
    // the router is in the context the group was built in, never in a request's own
    const routerSeen: Array<boolean> = []
    const probedInventory = Layer.effect(
      InventoryRepo,
      Effect.map(Effect.service(InventoryRepo), (repo) =>
        InventoryRepo.of({
          ...repo,
          nights: (from, until) =>
            Effect.withFiber((fiber) => {
              routerSeen.push(Context.getOption(fiber.context, HttpRouter.HttpRouter)._tag === "Some")
              return repo.nights(from, until)
            })
        }))
    ).pipe(Layer.provide(InventoryRepo.InMemory(demoInventory)))
    return Effect.gen(function*() {
      const client = yield* apiClient
      const query = Schema.decodeSync(AvailabilityQuery)({ checkin: daysFromToday(30), checkout: daysFromToday(32), adults: "2" })
      const answer = yield* client.hotel.availability({ query })
      expect(answer.room_types.length).toBeGreaterThan(0)
      expect(routerSeen).toEqual([false])
    }).pipe(Effect.provide(TestApp({ inventoryRepo: probedInventory })))
  })
})
