import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // A quote's response is stored as it is read back, whole (QuoteRepo): json keeps its text, where
  // jsonb took a parse into its binary form and, at 2 KB, a compression of every quote stored, the
  // larger part of the database's work for a quote (docs/performance.md). Nothing queries inside it.
  // The table is rewritten once (100,000 quotes: 2.6 s); an instance of the version before waits
  // meanwhile to store its quotes, then goes on storing jsonb, which PostgreSQL casts to json.
  yield* sql`ALTER TABLE quotes ALTER COLUMN response TYPE json USING response::json`
})
