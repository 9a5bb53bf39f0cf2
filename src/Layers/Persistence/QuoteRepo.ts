import { Context, Effect, HashMap, Layer, type Option, Ref, Schema, SchemaTransformation } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { QuoteId } from "../../Domain/Ids.js"
import { ClientInfo, MultiRoomQuoteResponse } from "../../Domain/Quote.js"
import { makeBatcher } from "./Batcher.js"
import * as Tracing from "../Platform/Tracing.js"

/** A quote as answered (stored as the service holds it: money in cents), and who asked for it. */
export const StoredQuote = Schema.Struct({
  response: Schema.toType(MultiRoomQuoteResponse),
  client: ClientInfo
})
export type StoredQuote = typeof StoredQuote.Type

/**
 * A stored response as this version reads it. Quotes stored by an earlier version (before a deploy,
 * or by an instance still running it) lack the fields added since, and read as that version meant
 * them: no promo code sent, reservable when available (an intent checks the rooms again anyway).
 */
const StoredResponse = Schema.fromJsonString(
  Schema.StructWithRest(Schema.Struct({ status: Schema.Unknown }), [Schema.Record(Schema.String, Schema.Unknown)])
).pipe(Schema.decodeTo(
  StoredQuote.fields.response,
  SchemaTransformation.transform({
    // a response as stored, of any version: the response schema checks what this makes of it
    decode: (stored) =>
      ({ reservable: stored.status === "available", not_reservable: null, promo_code: null, ...stored }) as typeof StoredQuote.fields.response.Encoded,
    encode: (response) => response
  })
))

/** Issued quotes, kept so that a reservation intent can be made from one until it expires. */
export class QuoteRepo extends Context.Service<QuoteRepo, {
  readonly insert: (quote: StoredQuote) => Effect.Effect<void>
  readonly find: (id: QuoteId) => Effect.Effect<Option.Option<StoredQuote>>
}>()("QuoteRepo") {
  static readonly layer = Layer.effect(
    QuoteRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // Under load many quotes are issued at once: they are stored together, one statement for
      // all the quotes waiting, so a busy server makes far fewer round trips than quotes.
      // Quotes do not wait for the disk (synchronous_commit off for this statement alone): a
      // database crash may lose the last fraction of a second of them, and their clients quote
      // again; the flush it saves was the slowest step of a quote under load. The batch travels
      // as parameters so that the statement can be a SELECT carrying that setting: the quotes'
      // columns as JSON, and their responses as lines of JSON (which never holds a raw line
      // break), which the database splits but never parses (inside the batch's JSON, each was
      // parsed twice: a third of the database's work for a quote). One batch is in flight at a
      // time: two at once served fewer quotes for more CPU each on a quiet machine, as each batch
      // has its round trip and its JSON to make (docs/performance.md).
      const store = yield* makeBatcher(
        (quotes: ReadonlyArray<StoredQuote>) =>
          sql`
            INSERT INTO quotes (id, expires_at, checkin, checkout, status, session_id, client, response)
            SELECT q.id, q.expires_at, q.checkin, q.checkout, q.status, q.session_id, q.client, r.response
            FROM ROWS FROM (json_to_recordset(${
            JSON.stringify(quotes.map(({ client, response }) => ({
              id: response.quote_id,
              expires_at: response.expires_at,
              checkin: response.stay.checkin,
              checkout: response.stay.checkout,
              status: response.status,
              session_id: response.session_id,
              client
            })))
          }::json) AS (
              id text, expires_at timestamptz, checkin date, checkout date, status text, session_id text, client jsonb
            )) WITH ORDINALITY AS q(id, expires_at, checkin, checkout, status, session_id, client, n)
            JOIN unnest(string_to_array(${quotes.map(({ response }) => JSON.stringify(response)).join("\n")}, chr(10)))
              WITH ORDINALITY AS r(response, n) USING (n)
            WHERE set_config('synchronous_commit', 'off', true) IS NOT NULL`.pipe(
            Effect.as(quotes.map(() => undefined)),
            Effect.orDie,
            Tracing.withSpan("QuoteRepo.storeBatch", { attributes: { quotes: quotes.length } })
          ),
        { maxBatch: 200, concurrency: 1 }
      )
      const find = SqlSchema.findOneOption({
        Request: QuoteId,
        Result: Schema.Struct({ response: StoredResponse, client: Schema.fromJsonString(ClientInfo) }),
        execute: (id) => sql`SELECT response::text AS response, client::text AS client FROM quotes WHERE id = ${id}`
      })
      return {
        insert: Tracing.fn("QuoteRepo.insert")(function*(quote: StoredQuote) {
          yield* store(quote)
        }),
        find: (id) => find(id).pipe(Effect.orDie, Tracing.withSpan("QuoteRepo.find", { attributes: { quote_id: id } }))
      }
    })
  )

  static readonly InMemory = Layer.effect(
    QuoteRepo,
    Effect.map(Ref.make(HashMap.empty<QuoteId, StoredQuote>()), (store) => ({
      insert: (quote) => Ref.update(store, HashMap.set(quote.response.quote_id, quote)),
      find: (id) => Effect.map(Ref.get(store), HashMap.get(id))
    }))
  )
}
