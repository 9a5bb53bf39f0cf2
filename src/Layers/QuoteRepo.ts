import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Option, Ref, Schema } from "effect"
import { QuoteId } from "../Domain/Ids.js"
import { ClientInfo, MultiRoomQuoteResponse } from "../Domain/Quote.js"

/** A quote as answered, and who asked for it. */
export const StoredQuote = Schema.Struct({
  response: MultiRoomQuoteResponse,
  client: ClientInfo
})
export type StoredQuote = typeof StoredQuote.Type

/** Issued quotes, kept so that a reservation intent can be made from one until it expires. */
export class QuoteRepo extends Context.Tag("QuoteRepo")<QuoteRepo, {
  readonly insert: (quote: StoredQuote) => Effect.Effect<void>
  readonly find: (id: QuoteId) => Effect.Effect<Option.Option<StoredQuote>>
}>() {
  static readonly Live = Layer.effect(
    QuoteRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const insert = SqlSchema.void({
        Request: StoredQuote,
        execute: ({ client, response }) => sql`
          INSERT INTO quotes (id, expires_at, checkin, checkout, status, session_id, client, response)
          VALUES (${response.quote_id}, ${response.expires_at}::timestamptz, ${response.stay.checkin}::date,
            ${response.stay.checkout}::date, ${response.status}, ${response.session_id},
            ${JSON.stringify(client)}::jsonb, ${JSON.stringify(response)}::jsonb)`
      })
      const find = SqlSchema.findOne({
        Request: QuoteId,
        Result: Schema.Struct({ response: Schema.parseJson(MultiRoomQuoteResponse), client: Schema.parseJson(ClientInfo) }),
        execute: (id) => sql`SELECT response::text AS response, client::text AS client FROM quotes WHERE id = ${id}`
      })
      return {
        insert: (quote) => insert(quote).pipe(Effect.orDie, Effect.withSpan("QuoteRepo.insert")),
        find: (id) => find(id).pipe(Effect.orDie, Effect.withSpan("QuoteRepo.find", { attributes: { quote_id: id } }))
      }
    })
  )

  static readonly InMemory = Layer.effect(
    QuoteRepo,
    Effect.map(Ref.make(new Map<string, StoredQuote>()), (store) => ({
      insert: (quote) => Ref.update(store, (m) => new Map(m).set(quote.response.quote_id, quote)),
      find: (id) => Effect.map(Ref.get(store), (m) => Option.fromNullable(m.get(id)))
    }))
  )
}
