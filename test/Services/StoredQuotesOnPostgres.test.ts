import { NodeServices } from "@effect/platform-node"
import { SqlClient } from "effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as path from "node:path"
import { Repositories, Services } from "../../src/Composition.js"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import responsesAsText from "../../src/Layers/Persistence/migrations/0017_quote_responses_as_text.js"
import responsesUnparsed from "../../src/Layers/Persistence/migrations/0019_quote_responses_unparsed.js"
import { QuoteRepo } from "../../src/Layers/Persistence/QuoteRepo.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { AppSecret } from "../../src/Layers/Platform/AppSecret.js"
import { Quotes } from "../../src/Services/Quotes.js"
import { Reservations } from "../../src/Services/Reservations.js"
import { makeTestClock } from "../support/clock.js"
import { TestDatabase } from "../support/database.js"

const clock = makeTestClock("2026-11-22T10:00:00Z")
const Config = Layer.mergeAll(AppConfig.InMemory({ hotelFile: path.resolve("data/hotel.json") }), NodeServices.layer, AppSecret.InMemory)
const OnPostgres = Services.pipe(
  Layer.provideMerge(Repositories),
  Layer.provideMerge(TestDatabase),
  Layer.provide(Config),
  // the services run on the tests' fibers, which read the clock from the layer's context: merged, not only provided
  Layer.provideMerge(clock.layer)
)

const client = { client: "deploy-test", ai_agent: null, session: null }
const quoteDouble = (checkin: string, checkout: string) =>
  Effect.flatMap(Quotes, (quotes) =>
    quotes.quoteRooms({
      checkin: checkin as LocalDate,
      checkout: checkout as LocalDate,
      rooms: [{ room_type_id: "double" as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }],
      promo_code: "direct12"
    }, client))

layer(OnPostgres, { excludeTestServices: true, timeout: 60_000 })("quotes stored by earlier versions", (it) => {
  it.effect("a quote stored without the fields added since reads as its version meant it, and an intent is made from it", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* QuoteRepo
      // the previous version had no promo codes; the one before it, no reservable / not_reservable either
      const withoutPromoCode = yield* quoteDouble("2026-12-10", "2026-12-13")
      const withoutAll = yield* quoteDouble("2026-12-14", "2026-12-17")
      yield* sql`UPDATE quotes SET response = response::jsonb - 'promo_code' WHERE id = ${withoutPromoCode.quote_id}`
      yield* sql`UPDATE quotes SET response = response::jsonb - 'promo_code' - 'reservable' - 'not_reservable' WHERE id = ${withoutAll.quote_id}`
      for (const quote of [withoutPromoCode, withoutAll]) {
        const stored = Option.getOrThrow(yield* repo.find(quote.quote_id))
        expect(stored.response).toEqual({ ...quote, promo_code: null })
        const offer = quote.package_offers[0]
        const { response } = yield* (yield* Reservations).createIntent(
          { quote_id: quote.quote_id, package_code: offer.package_code, language: "en" },
          client,
          undefined,
          "192.0.2.1"
        )
        expect(response.status).toBe("PENDING_GUEST")
      }
    }))

  it.effect("an unavailable quote stored without reservable reads as not reservable", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO inventory_nights (room_type_id, night, booked) SELECT id, '2026-12-20', inventory FROM room_types WHERE id = 'double'`
      const quote = yield* quoteDouble("2026-12-20", "2026-12-22")
      expect(quote.status).toBe("unavailable")
      yield* sql`UPDATE quotes SET response = response::jsonb - 'promo_code' - 'reservable' - 'not_reservable' WHERE id = ${quote.quote_id}`
      const stored = Option.getOrThrow(yield* (yield* QuoteRepo).find(quote.quote_id))
      expect(stored.response).toEqual({ ...quote, promo_code: null, reservable: false })
    }))

  it.effect("a quote's response is stored as the text the service wrote, and one stored as jsonb by the version before reads the same once migrated", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* QuoteRepo
      const quote = yield* quoteDouble("2026-12-24", "2026-12-27")
      const stored = Option.getOrThrow(yield* repo.find(quote.quote_id))
      // json keeps the text as written: jsonb would answer it re-written (a space after each colon, keys reordered)
      const [asStored] = yield* sql<{ text: string }>`SELECT response::text AS text FROM quotes WHERE id = ${quote.quote_id}`
      expect(asStored!.text).toBe(JSON.stringify(stored.response))
      const older = yield* quoteDouble("2026-12-28", "2026-12-30")
      // the version before stored jsonb, and may still be writing while another instance migrates
      yield* sql`ALTER TABLE quotes ALTER COLUMN response TYPE jsonb USING response::jsonb`
      yield* responsesAsText
      yield* sql`
        INSERT INTO quotes (id, expires_at, checkin, checkout, status, session_id, client, response)
        SELECT q.id || '_late', q.expires_at, q.checkin, q.checkout, q.status, q.session_id, q.client, q.response::jsonb
        FROM quotes q WHERE q.id = ${older.quote_id}`
      const [column] = yield* sql<{ type: string }>`SELECT data_type AS type FROM information_schema.columns WHERE table_name = 'quotes' AND column_name = 'response'`
      expect(column!.type).toBe("json")
      expect(Option.getOrThrow(yield* repo.find(older.quote_id)).response).toEqual(older)
      const late = Option.getOrThrow(yield* repo.find(`${older.quote_id}_late` as typeof older.quote_id)).response
      expect(late).toEqual(older)
    }))

  it.effect("a quote's response is stored as plain text; one the version before wrote as json, before or after the migration, reads the same", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* QuoteRepo
      // the version before stored json (as the test above leaves the table)
      yield* sql`ALTER TABLE quotes ALTER COLUMN response TYPE json USING response::json`
      yield* responsesUnparsed
      const [column] = yield* sql<{ type: string }>`SELECT data_type AS type FROM information_schema.columns WHERE table_name = 'quotes' AND column_name = 'response'`
      expect(column!.type).toBe("text")
      const quote = yield* quoteDouble("2027-01-04", "2027-01-07")
      const [asStored] = yield* sql<{ text: string }>`SELECT response AS text FROM quotes WHERE id = ${quote.quote_id}`
      expect(asStored!.text).toBe(JSON.stringify(quote))
      // written as json before the migration
      yield* sql`ALTER TABLE quotes ALTER COLUMN response TYPE json USING response::json`
      yield* sql`
        INSERT INTO quotes (id, expires_at, checkin, checkout, status, session_id, client, response)
        SELECT q.id || '_before', q.expires_at, q.checkin, q.checkout, q.status, q.session_id, q.client, q.response
        FROM quotes q WHERE q.id = ${quote.quote_id}`
      yield* responsesUnparsed
      // and after it, by an instance still running the version before
      yield* sql`
        INSERT INTO quotes (id, expires_at, checkin, checkout, status, session_id, client, response)
        SELECT q.id || '_after', q.expires_at, q.checkin, q.checkout, q.status, q.session_id, q.client, r.response
        FROM quotes q, json_to_recordset(json_build_array(json_build_object('response', q.response::json))) AS r(response json)
        WHERE q.id = ${quote.quote_id}`
      for (const suffix of ["", "_before", "_after"]) {
        expect(Option.getOrThrow(yield* repo.find(`${quote.quote_id}${suffix}` as typeof quote.quote_id)).response).toEqual(quote)
      }
    }))
})
