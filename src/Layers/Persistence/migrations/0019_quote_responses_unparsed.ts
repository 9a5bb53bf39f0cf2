import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // A quote's response is plain text, which the database stores without reading it: as json, each
  // was parsed twice, in the batch's JSON and again to check it, about a third of the database's
  // work for a quote (QuoteRepo, docs/performance.md). The service wrote it and reads it back whole;
  // nothing queries inside it. The table is rewritten once; an instance of the version before goes
  // on storing json, which PostgreSQL writes into text as it is.
  yield* sql`ALTER TABLE quotes ALTER COLUMN response TYPE text`
})
