import { NodeHttpClient } from "@effect/platform-node"
import { Context, Effect, Layer, Option, Result } from "effect"
import { HttpClient, HttpClientRequest, HttpServer } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { NetAddress } from "effect/net"
import { Api } from "../../src/Api/Contract/Api.js"
import { HttpLive } from "../../src/Api/Transport/Http.js"
import { nodeServerLayer } from "../../src/Api/Transport/Server.js"
import { Services } from "../../src/Composition.js"
import type { HotelDefinition } from "../../src/Domain/Hotel.js"
import { ChannelMessageRepo } from "../../src/Layers/Persistence/ChannelMessageRepo.js"
import { DatabasePing } from "../../src/Layers/Persistence/Database.js"
import { HotelRepo } from "../../src/Layers/Persistence/HotelRepo.js"
import { HousekeepingRepo } from "../../src/Layers/Persistence/HousekeepingRepo.js"
import { InventoryRepo } from "../../src/Layers/Persistence/InventoryRepo.js"
import { AppSecret } from "../../src/Layers/Platform/AppSecret.js"
import { IdempotencyRepo } from "../../src/Layers/Persistence/IdempotencyRepo.js"
import { OutboxRepo } from "../../src/Layers/Persistence/OutboxRepo.js"
import { QuoteRepo } from "../../src/Layers/Persistence/QuoteRepo.js"
import { ReservationFeedRepo } from "../../src/Layers/Persistence/ReservationFeedRepo.js"
import { mergeRepositories } from "../../src/Layers/Persistence/Repositories.js"
import { ReservationRepo } from "../../src/Layers/Persistence/ReservationRepo.js"
import { TokenRepo } from "../../src/Layers/Persistence/TokenRepo.js"
import { Transactions } from "../../src/Layers/Persistence/Transactions.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { demoHotel, demoInventory } from "./hotel.js"

export interface InMemoryOptions {
  readonly hotel?: HotelDefinition
  readonly hotelRepo?: Layer.Layer<HotelRepo>
  readonly inventoryRepo?: Layer.Layer<InventoryRepo>
  /** Rooms already held per room type and night. */
  readonly booked?: Record<string, Record<string, number>>
  readonly ping?: Layer.Layer<DatabasePing>
  readonly config?: Partial<typeof AppConfig.Service>
}

/**
 * Tests make hundreds of requests a minute, and more intents an hour than a client may, from one
 * address: the rate limit and the intents' limit (on by default) are off unless a test sets them
 * (test/Api/Limits.test.ts, test/Api/IntentLimit.test.ts).
 */
export const UNLIMITED = { rateLimitPerMinute: 0, intentLimitPerHour: 0 } as const

/** The infrastructure in memory: the demo hotel, its inventory, a database that answers. */
export const InMemoryInfrastructure = (options: InMemoryOptions = {}) =>
  Layer.mergeAll(
    // each repository of the one list (`liveRepositories`) by its in-memory twin
    mergeRepositories({
      hotel: options.hotelRepo ?? HotelRepo.InMemory(options.hotel ?? demoHotel),
      inventory: options.inventoryRepo ?? InventoryRepo.InMemory(demoInventory, options.booked),
      channelMessages: ChannelMessageRepo.InMemory,
      quotes: QuoteRepo.InMemory,
      reservations: ReservationRepo.InMemory,
      reservationFeed: ReservationFeedRepo.InMemory,
      tokens: TokenRepo.InMemory,
      outbox: OutboxRepo.InMemory,
      housekeeping: HousekeepingRepo.InMemory,
      idempotency: IdempotencyRepo.InMemory,
      transactions: Transactions.InMemory,
      ping: options.ping ?? DatabasePing.InMemory
    }),
    AppSecret.InMemory,
    AppConfig.InMemory({ publicBaseUrl: "http://hotel.test", ...UNLIMITED, ...options.config })
  )

/** Every service on in-memory infrastructure. */
export const ServicesInMemory = (options: InMemoryOptions = {}) =>
  Services.pipe(Layer.provideMerge(InMemoryInfrastructure(options)))

/** The production Node server on a free port (with `options`, else its defaults), with a client pointed at it. */
export const testServer = (options: Parameters<typeof nodeServerLayer>[1] = {}) =>
  HttpServer.layerTestClient.pipe(
    Layer.provide(NodeHttpClient.layerNodeHttpOptions({ keepAlive: false })),
    Layer.provideMerge(nodeServerLayer({ port: 0 }, options))
  )
export const TestServer = testServer()

/** The whole HTTP API served in-process on in-memory services, with a client pointed at it. */
export const TestApp = (options: InMemoryOptions = {}) =>
  HttpLive.pipe(Layer.provideMerge(ServicesInMemory(options)), Layer.provideMerge(TestServer))

/** The in-process server's own address: pages and MCP clients go there, not to PUBLIC_BASE_URL. */
export const baseUrl = Effect.map(HttpServer.HttpServer, ({ address }) => {
  if (NetAddress.isUnixPathAddress(address)) throw new Error("the test server listens on TCP")
  const url = Result.getOrThrow(NetAddress.toUrl(address))
  if (NetAddress.isUnspecified(address.address)) url.hostname = "127.0.0.1"
  return url.origin
})

/** The reservation link's token the typed client presents, set around the calls of `apiClientWith`'s client. */
const PresentedToken = Context.Reference<Option.Option<string>>("test/PresentedToken", { defaultValue: () => Option.none() })

const makeApiClient = (http: HttpClient.HttpClient) =>
  HttpApiClient.makeWith(Api, {
    httpClient: HttpClient.mapRequestEffect(http, (request) =>
      Effect.map(PresentedToken, (token) =>
        Option.match(token, {
          onNone: () => request,
          onSome: (value) => HttpClientRequest.setHeader(request, "x-reservation-token", value)
        })))
  })
type ApiClient = Effect.Success<ReturnType<typeof makeApiClient>>

/** Making a client compiles the encoders of every endpoint (tens of ms): one per server's client, for every call. */
const madeFor = new WeakMap<HttpClient.HttpClient, ApiClient>()

/** A typed client of the API, derived from its definition. */
export const apiClient = Effect.flatMap(HttpClient.HttpClient, (http) => {
  const made = madeFor.get(http)
  return made !== undefined ? Effect.succeed(made) : Effect.tap(makeApiClient(http), (client) => Effect.sync(() => madeFor.set(http, client)))
})

type Call = (request?: unknown) => Effect.Effect<unknown, unknown>

/** The typed client presenting a reservation link's token (`X-Reservation-Token`), as the guest and manage pages do. */
export const apiClientWith = (token: string) =>
  Effect.map(apiClient, (client): ApiClient => {
    const withToken = (call: Call): Call => (request) => Effect.provideService(call(request), PresentedToken, Option.some(token))
    const groups = Object.entries(client as unknown as Record<string, Record<string, Call>>)
    // the same client, each endpoint's call made with the token
    return Object.fromEntries(groups.map(([group, calls]) =>
      [group, Object.fromEntries(Object.entries(calls).map(([name, call]) => [name, withToken(call)]))]
    )) as unknown as ApiClient
  })

/** Raw HTTP: status, headers and JSON body, for checking the wire shape itself. */
export const request = (req: HttpClientRequest.HttpClientRequest) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(req)
    const text = yield* response.text
    const isJson = /json/.test(response.headers["content-type"] ?? "")
    return { status: response.status, headers: response.headers, text, body: isJson && text !== "" ? JSON.parse(text) : undefined }
  })
