import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { HttpClientRequest } from "effect/http"
import { AvailabilityQuery } from "../../src/Domain/Availability.js"
import { DatabaseUnreachable } from "../../src/Layers/Persistence/DatabaseFaults.js"
import { DatabasePing } from "../../src/Layers/Persistence/Database.js"
import { HotelRepo } from "../../src/Layers/Persistence/HotelRepo.js"
import type { Language } from "../../src/Domain/Language.js"
import { type Cents, MAX_AMOUNT } from "../../src/Domain/Money.js"
import { UNAVAILABILITY_REASONS, UnavailabilityReason } from "../../src/Domain/Quote.js"
import { makeTestClock } from "../support/clock.js"
import { demoHotel } from "../support/hotel.js"
import { apiClient, request, TestApp } from "../support/TestApp.js"

// Today is 2026-11-22 in hotel time.
const clock = makeTestClock("2026-11-22T10:00:00Z")
const get = (url: string) => request(HttpClientRequest.get(url))
/** GET /v1/availability through the typed client, the query as a query string spells it. */
const availability = (query: typeof AvailabilityQuery.Encoded) =>
  Effect.flatMap(apiClient, (client) => client.hotel.availability({ query: Schema.decodeSync(AvailabilityQuery)(query) }))

layer(TestApp({ booked: { deluxe: { "2027-01-11": 3 } } }).pipe(Layer.provide(clock.layer)), { excludeTestServices: true })(
  "read-only API",
  (it) => {
    it.effect("GET / links every entry point with absolute URLs", () =>
      Effect.gen(function*() {
        const { body, status } = yield* get("/")
        expect(status).toBe(200)
        expect(body).toMatchObject({
          version: "1.1.0",
          openapi: "http://hotel.test/openapi.json",
          documentation: "http://hotel.test/docs/",
          api_index: "http://hotel.test/v1",
          api_catalog: "http://hotel.test/.well-known/api-catalog",
          health: "http://hotel.test/v1/health",
          mcp: "http://hotel.test/mcp",
          llms_txt: "http://hotel.test/llms.txt"
        })
      }))

    it.effect("GET /v1 is the discovery index with endpoints and agent rules", () =>
      Effect.gen(function*() {
        const client = yield* apiClient
        const index = yield* client.discovery.index()
        expect(index.version).toBe("1.1.0")
        expect(index.openapi).toBe("http://hotel.test/openapi.json")
        expect(index.mcp).toBe("http://hotel.test/mcp")
        expect(index.llms_txt).toBe("http://hotel.test/llms.txt")
        const paths = index.endpoints.map((e) => `${e.method} ${e.path}`)
        expect(paths).toEqual(expect.arrayContaining([
          "GET /",
          "GET /v1",
          "GET /v1/health",
          "GET /v1/hotel",
          "GET /v1/room-types",
          "GET /v1/availability",
          "GET /v1/calendar"
        ]))
        expect(paths).not.toContain("GET /.well-known/api-catalog")
        expect(paths).not.toContain("GET /llms.txt")
        expect(index.endpoints.every((e) => e.purpose.length > 0)).toBe(true)
        const rules = index.agent_rules.join("\n")
        const facts = ["only a quote's total is official", "2 guests", "infant under 2", "14:00", "12:00", "package_offers", "continue_url", "GUEST_COMPLETED"]
        for (const fact of [...facts, "promo_code", "invalid_promo_code", "quote_change", "change_stay"]) {
          expect(rules).toContain(fact)
        }
      }))

    it.effect("GET /v1 explains every unavailable reason and what to offer instead, and that the hotel's systems may change a stay", () =>
      Effect.gen(function*() {
        const client = yield* apiClient
        const rules = (yield* client.discovery.index()).agent_rules.join("\n")
        for (const reason of UnavailabilityReason.literals) {
          expect(rules).toContain(`${reason} (${UNAVAILABILITY_REASONS[reason]})`)
        }
        for (const advice of [
          "stop_sell (the hotel has closed this room type on a night of the stay: offer other dates or another room type)",
          "closed_to_arrival (the hotel takes no arrival on the check-in date in this room type: offer another arrival date",
          "closed_to_departure (the hotel takes no departure on the check-out date in this room type: offer another departure date",
          "min_stay (a stay arriving on the check-in date must last at least the number of nights given as min_stay: offer a stay of that many nights",
          "max_stay (a stay arriving on the check-in date may last at most the number of nights given as max_stay",
          "error.details.rooms[].reason",
          "ask again with nights set to its min_stay",
          "follow the hotel's own systems",
          "409 availability_changed",
          "409 price_changed"
        ]) expect(rules).toContain(advice)
        // the hotel's own interface is not the public's business
        expect(rules).not.toContain("/internal")
      }))

    it.effect("GET /v1/health answers ok", () =>
      Effect.gen(function*() {
        const { body, status } = yield* get("/v1/health")
        expect(status).toBe(200)
        expect(body).toEqual({ status: "ok", database: "ok" })
      }))

    it.effect("GET /v1/hotel gives facts, timezone and a tourist tax without amounts", () =>
      Effect.gen(function*() {
        const { body, status } = yield* get("/v1/hotel")
        expect(status).toBe(200)
        expect(body).toMatchObject({
          id: "belle-rive-nice",
          name: "Hôtel Belle Rive",
          city: "Nice",
          country: "FR",
          timezone: "Europe/Paris",
          check_in: "14:00",
          check_out: "12:00",
          currency: "EUR"
        })
        expect(body.tourist_tax.dynamic).toBe(true)
        expect(JSON.stringify(body.tourist_tax)).not.toMatch(/2\.6|2\.88|260|288/)
        expect(body.contact.email).toContain("@")
      }))

    it.effect("GET /v1/room-types gives the three room types with the occupancy constants", () =>
      Effect.gen(function*() {
        const body = yield* (yield* apiClient).hotel.roomTypes({ query: {} })
        expect(body.rooms.map((r) => r.id)).toEqual(["double", "twin", "deluxe"])
        expect(body.rooms.map((r) => r.size_m2)).toEqual([18, 20, 28])
        for (const room of body.rooms) {
          expect(room).toMatchObject({
            max_standard_occupancy: 2,
            additional_infant_under_2_allowed: true,
            max_additional_infants_under_2: 1,
            baby_cot: { available: true, on_request: true, price: 0, currency: "EUR" }
          })
          expect(room).not.toHaveProperty("inventory")
        }
      }))

    it.effect("GET /v1/room-types?language= gives the hotel's texts in the guest's language, English without it; another language is a 400", () =>
      Effect.gen(function*() {
        const client = yield* apiClient
        const names = (language?: Language) =>
          Effect.map(client.hotel.roomTypes({ query: language === undefined ? {} : { language } }), (body) => body.rooms.map((r) => r.name))
        expect(yield* names("fr")).toEqual(["Chambre Double", "Chambre Twin", "Chambre Deluxe Vue Mer"])
        const russian = yield* client.hotel.roomTypes({ query: { language: "ru" } })
        expect(russian.rooms[0]).toMatchObject({ id: "double", name: "Номер с двуспальной кроватью", max_standard_occupancy: 2 })
        expect(russian.rooms[0]!.beds).not.toMatch(/[a-z]/i)
        expect(yield* names()).toEqual(yield* names("en"))
        const other = yield* get("/v1/room-types?language=de")
        expect([other.status, other.body.error.code]).toEqual([400, "invalid_request"])
      }))

    it.effect("GET /v1/availability counts rooms free on every night, with defaults 2 adults, 0 children", () =>
      Effect.gen(function*() {
        const body = yield* availability({ checkin: "2027-01-10", checkout: "2027-01-13" })
        expect(body).toMatchObject({ nights: 3, adults: 2, children: 0 })
        expect(body.room_types).toEqual([
          { room_type_id: "double", name: "Double Room", available_rooms: 12, fits_occupancy: true, bookable: true, reason: null },
          { room_type_id: "twin", name: "Twin Room", available_rooms: 8, fits_occupancy: true, bookable: true, reason: null },
          { room_type_id: "deluxe", name: "Deluxe Sea View Room", available_rooms: 2, fits_occupancy: true, bookable: true, reason: null }
        ])
        expect(Object.keys(body.room_types[0]!).join()).not.toMatch(/price|total|amount/)
      }))

    it.effect("GET /v1/availability: children without ages count as standard guests", () =>
      Effect.gen(function*() {
        const couple = yield* availability({ checkin: "2027-01-10", checkout: "2027-01-11", adults: "2", children: "1" })
        expect(couple.room_types.every((r) => !r.fits_occupancy && !r.bookable)).toBe(true)
        const single = yield* availability({ checkin: "2027-01-10", checkout: "2027-01-11", adults: "1", children: "1" })
        expect(single.room_types.every((r) => r.fits_occupancy)).toBe(true)
      }))

    const badAvailability: ReadonlyArray<[string, string, string]> = [
      ["checkin=2027-01-12&checkout=2027-01-12", "invalid_dates", "checkout"],
      ["checkin=2027-01-12&checkout=2027-01-10", "invalid_dates", "checkout"],
      ["checkin=2026-11-21&checkout=2026-11-23", "invalid_dates", "checkin"],
      ["checkin=2027-01-01&checkout=2027-02-01", "stay_too_long", "30 nights"],
      ["checkin=2028-04-07&checkout=2028-04-08", "booking_window_exceeded", "500 days"],
      ["checkin=2027-01-10", "invalid_request", "checkout"],
      ["checkin=2027-02-30&checkout=2027-03-02", "invalid_request", "checkin"],
      ["checkin=10/01/2027&checkout=2027-01-12", "invalid_request", "checkin"],
      ["checkin=2027-01-10&checkout=2027-01-12&adults=3", "invalid_request", "adults"],
      ["checkin=2027-01-10&checkout=2027-01-12&adults=0", "invalid_request", "adults"],
      ["checkin=2027-01-10&checkout=2027-01-12&children=-1", "invalid_request", "children"],
      ["checkin=2027-01-10&checkout=2027-01-12&children=4", "invalid_request", "children"],
      // it once sized an array and took the process down
      ["checkin=2027-01-10&checkout=2027-01-12&children=668097797", "invalid_request", "children"],
      ["checkin=2027-01-10&checkout=2027-01-12&adults=two", "invalid_request", "adults"]
    ]
    for (const [query, code, field] of badAvailability) {
      it.effect(`GET /v1/availability?${query} is 400 ${code}`, () =>
        Effect.gen(function*() {
          const { body, status } = yield* get(`/v1/availability?${query}`)
          expect(status).toBe(400)
          expect(body.error.code).toBe(code)
          expect(body.error.message).toContain(field)
        }))
    }

    it.effect("the last bookable day of the window is accepted", () =>
      Effect.gen(function*() {
        // 2026-11-22 + 500 days = 2028-04-05
        const body = yield* availability({ checkin: "2028-04-05", checkout: "2028-04-06" })
        expect(body.nights).toBe(1)
      }))

    it.effect("an unknown path is a 404 Error body", () =>
      Effect.gen(function*() {
        const { body, status } = yield* get("/v1/nothing-here")
        expect(status).toBe(404)
        expect(body).toEqual({ error: { code: "not_found", message: "no resource at GET /v1/nothing-here" } })
      }))

    it.effect("every response carries nosniff and no-referrer, errors included", () =>
      Effect.gen(function*() {
        for (const url of ["/v1/hotel", "/v1/nothing-here", "/v1/availability"]) {
          const { headers } = yield* get(url)
          expect(headers["x-content-type-options"]).toBe("nosniff")
          expect(headers["referrer-policy"]).toBe("no-referrer")
        }
      }))

    it.effect("GET /.well-known/api-catalog is an RFC 9727 linkset", () =>
      Effect.gen(function*() {
        const { body, headers, status } = yield* get("/.well-known/api-catalog")
        expect(status).toBe(200)
        expect(headers["content-type"]).toBe("application/linkset+json")
        expect(body.linkset[0]["service-desc"][0].href).toBe("http://hotel.test/openapi.json")
        expect(body.linkset[0]["service-doc"][0].href).toBe("http://hotel.test/docs/")
        expect(body.linkset[0]["service-doc"][1]).toMatchObject({ href: "http://hotel.test/llms.txt", type: "text/markdown" })
        expect(body.linkset[1]).toMatchObject({
          anchor: "http://hotel.test/mcp",
          "service-desc": [{ href: "http://hotel.test/mcp" }],
          "service-doc": [{ href: "http://hotel.test/llms.txt" }],
          status: [{ href: "http://hotel.test/v1/health" }]
        })
      }))

    it.effect("GET /llms.txt summarises the hotel, the flow, the rules and the links in Markdown, from the index and the hotel", () =>
      Effect.gen(function*() {
        const { headers, status, text } = yield* get("/llms.txt")
        expect(status).toBe(200)
        expect(headers["content-type"]).toBe("text/markdown; charset=utf-8")
        expect(text).toMatch(/^# Hôtel Belle Rive Booking API\n\n> Public booking API/)
        const client = yield* apiClient
        const index = yield* client.discovery.index()
        for (const rule of index.agent_rules) expect(text).toContain(`- ${rule}\n`)
        for (const endpoint of index.endpoints) expect(text).toContain(`- \`${endpoint.method} ${endpoint.path}\`: ${endpoint.purpose}`)
        for (const room of ["**Double Room** (`double`): 18 m²", "**Twin Room** (`twin`): 20 m²", "**Deluxe Sea View Room** (`deluxe`): 28 m²"]) {
          expect(text).toContain(room)
        }
        expect(text).toContain("- [MCP server](http://hotel.test/mcp): Model Context Protocol, Streamable HTTP transport")
        expect(text).toContain("- [OpenAPI 3.1 description](http://hotel.test/openapi.json)")
        expect(text).toContain("3. `GET /v1/calendar` (MCP tool `price_calendar`): Lowest live total per arrival date")
        expect(text).toContain("5. `POST /v1/quotes` (MCP tool `quote_stay`): Official live quote")
        expect(text).toContain("optionally with a promo_code")
        expect(text).toContain("6. `POST /v1/reservation-intents` (MCP tool `create_reservation_intent`)")
        expect(text).toContain("**cancellation**: ")
        expect(text).toContain("- Why a stay cannot be booked, in a quote's unavailable_rooms[].reason")
        expect(text).not.toContain("/internal")
      }))

    it.effect("GET /docs/ is an API reference that loads nothing from the internet", () =>
      Effect.gen(function*() {
        const { status, text, headers } = yield* get("/docs/")
        expect(status).toBe(200)
        expect(headers["content-type"]).toContain("text/html")
        expect(text).toContain("Hôtel Belle Rive Booking API")
        expect(text).not.toMatch(/<script[^>]+src="https?:/)
        expect(text).not.toMatch(/<link[^>]+href="https?:/)
      }))
  }
)

describe("health", () => {
  it.effect("is 503 degraded when the database does not answer", () =>
    Effect.gen(function*() {
      const { body, status } = yield* get("/v1/health")
      expect(status).toBe(503)
      expect(body).toEqual({ status: "degraded", database: "unavailable" })
    }).pipe(
      Effect.provide(
        TestApp({ ping: Layer.succeed(DatabasePing, Effect.fail(new DatabaseUnreachable({ message: "connection refused" }))) })
          .pipe(Layer.provide(clock.layer))
      )
    ))
})

describe("health under a flood of probes", () => {
  it.effect("pings the database at most once a second: callers at once share one ping, later ones its answer", () => {
    const probeClock = makeTestClock("2026-11-22T10:00:00Z")
    let pings = 0
    // a round trip long enough for the flood to arrive while it runs
    const counted = Layer.succeed(DatabasePing, Effect.andThen(Effect.sync(() => pings += 1), Effect.sleep("50 millis")))
    const flood = Effect.forEach(Array.from({ length: 30 }), () => get("/v1/health"), { concurrency: "unbounded" })
    return Effect.gen(function*() {
      const answers = yield* flood
      expect(answers.map(({ body, status }) => ({ body, status }))).toEqual(Array(30).fill({ status: 200, body: { status: "ok", database: "ok" } }))
      expect(pings).toBe(1)
      probeClock.advance(999)
      yield* flood
      expect(pings).toBe(1)
      probeClock.advance(1)
      yield* flood
      expect(pings).toBe(2)
    }).pipe(Effect.provide(TestApp({ ping: counted }).pipe(Layer.provide(probeClock.layer))))
  })
})

/** A ping that keeps this process busy for `ms` (as a flood of calendars would), then ends as `outcome`. */
const pingAfterBusyLoop = (ms: number, outcome: Effect.Effect<void, DatabaseUnreachable>) =>
  Layer.succeed(
    DatabasePing,
    Effect.andThen(
      Effect.sync(() => {
        const until = Date.now() + ms
        while (Date.now() < until) {
          // the event loop is held, as by work in this process
        }
      }),
      outcome
    )
  )

describe("health, when this instance is busy", () => {
  const askHealth = (ping: Layer.Layer<DatabasePing>) =>
    get("/v1/health").pipe(Effect.provide(TestApp({ ping }).pipe(Layer.provide(clock.layer))))

  it.effect("is 200 busy when the ping was late only because the event loop lagged", () =>
    Effect.gen(function*() {
      const lateAnswer = yield* askHealth(pingAfterBusyLoop(1200, Effect.fail(new DatabaseUnreachable({ message: "no answer within a second", timedOut: true }))))
      expect(lateAnswer.status).toBe(200)
      expect(lateAnswer.body).toEqual({ status: "ok", database: "busy" })
      const answered = yield* askHealth(pingAfterBusyLoop(400, Effect.void))
      expect(answered.body).toEqual({ status: "ok", database: "busy" })
    }))

  it.effect("is 503 when the database refused, busy loop or not, or did not answer while the loop ran freely", () =>
    Effect.gen(function*() {
      const refused = yield* askHealth(pingAfterBusyLoop(400, Effect.fail(new DatabaseUnreachable({ message: "connect ECONNREFUSED" }))))
      expect(refused.status).toBe(503)
      const silent = yield* askHealth(pingAfterBusyLoop(0, Effect.fail(new DatabaseUnreachable({ message: "no answer within a second", timedOut: true }))))
      expect(silent.status).toBe(503)
      expect(silent.body).toEqual({ status: "degraded", database: "unavailable" })
    }))
})

describe("an unexpected fault", () => {
  it.effect("is a 500 internal_error that shows no internals", () =>
    Effect.gen(function*() {
      const { body, status, text } = yield* get("/v1/hotel")
      expect(status).toBe(500)
      expect(body).toEqual({ error: { code: "internal_error", message: "An unexpected error occurred. It has been logged." } })
      expect(text).not.toMatch(/SELECT|password|at .*\.ts/)
    }).pipe(
      Effect.provide(
        TestApp({
          hotelRepo: Layer.succeed(HotelRepo, {
            load: Effect.die(new Error("SELECT definition FROM hotel failed: password authentication failed")),
            needsImport: Effect.succeed(false),
            replace: () => Effect.void
          })
        }).pipe(Layer.provide(clock.layer))
      )
    ))

  it.effect("a response that does not encode is a 500 internal_error, not the caller's 400", () =>
    Effect.gen(function*() {
      const { body, status } = yield* get("/v1/calendar?from=2026-12-01&to=2026-12-02")
      expect(status).toBe(500)
      expect(body).toEqual({ error: { code: "internal_error", message: "An unexpected error occurred. It has been logged." } })
      // a request that does not decode is still the caller's
      expect((yield* get("/v1/calendar?from=2026-12-01&to=2026-12-02&adults=x")).body.error.code).toBe("invalid_request")
    }).pipe(
      Effect.provide(
        // rates no stay can be priced at on the wire: every total is over the most an amount may be
        TestApp({
          hotel: {
            ...demoHotel,
            room_types: demoHotel.room_types.map((room) => ({
              ...room,
              base_rates_cents: Object.fromEntries(Object.keys(room.base_rates_cents).map((season) => [season, (MAX_AMOUNT * 200) as Cents]))
            }))
          }
        }).pipe(Layer.provide(clock.layer))
      )
    ))
})

describe("GET /v1/hotel", () => {
  it.effect("answers a re-imported definition once the catalog has read it, not the document made for the last one", () => {
    const clock = makeTestClock("2026-11-22T10:00:00Z")
    return Effect.gen(function*() {
      expect((yield* get("/v1/hotel")).body).toMatchObject({ name: demoHotel.name })
      yield* Effect.flatMap(HotelRepo, (repo) => repo.replace({ ...demoHotel, name: "Renamed" }))
      clock.advance(5_000) // the catalog keeps a definition 5 s
      expect((yield* get("/v1/hotel")).body).toMatchObject({ name: "Renamed" })
    }).pipe(Effect.provide(TestApp().pipe(Layer.provideMerge(clock.layer))))
  })
})
