import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
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

/**
 * The answers to GET /greeting of the probe API, its group built with the platform's services and
 * `groupGreeting`, run as a server runs its application: every request in one context (the
 * server's: the same platform services, and `serverGreeting` when given), each with its own
 * services added to it, `requestGreetings`'s too, one request for each in turn (none added for
 * `undefined`).
 */
const greetingsWith = (groupGreeting: string, serverGreeting: string | undefined, requestGreetings: ReadonlyArray<string | undefined>) =>
  Effect.gen(function*() {
    const platform = yield* Layer.build(NodeHttpServer.layerHttpServices)
    const app = yield* HttpRouter.toHttpEffect(HttpApiBuilder.layer(Probe).pipe(
      Layer.provide(ProbeGroup),
      Layer.provide(Layer.succeedContext(Context.add(platform, Greeting, groupGreeting)))
    ))
    const serve = Effect.gen(function*() {
      const answers: Array<unknown> = []
      for (const requestGreeting of requestGreetings) {
        const request = Effect.provideService(app, HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(new Request("http://probe.test/greeting")))
        const response = yield* Effect.scoped(requestGreeting === undefined ? request : Effect.provideService(request, Greeting, requestGreeting))
        answers.push(yield* Effect.promise(() => HttpServerResponse.toWeb(response).json()))
      }
      return answers
    })
    // the router's type asks each request for the handler's services; a server may hold none
    return yield* Effect.provideContext(serve, serverGreeting === undefined ? platform as Context.Context<never> as Context.Context<Greeting> : Context.add(platform, Greeting, serverGreeting))
  }).pipe(Effect.scoped)

describe("the services of an API group at each request", () => {
  it.effect("a service only the group was built with reaches its handlers", () =>
    Effect.map(greetingsWith("from the group", undefined, [undefined]), (answers) => expect(answers).toEqual(["from the group"])))

  it.effect("where the request holds the same service as another value, the group's wins", () =>
    Effect.map(greetingsWith("from the group", "from the server", [undefined]), (answers) => expect(answers).toEqual(["from the group"])))

  it.effect("where a server holds the group's services, a request holding one as another value still has the group's", () =>
    Effect.map(
      greetingsWith("from the group", "from the group", [undefined, "from the request", undefined, "from the request"]),
      (answers) => expect(answers).toEqual(Array(4).fill("from the group"))
    ))

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
