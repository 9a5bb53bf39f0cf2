import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // INTENT_LIMIT_PER_HOUR: intents per client address and clock hour, counted here so that every
  // instance sees them, in one row per address and hour that each intent adds 1 to: one statement,
  // no lock but that row's. Housekeeping deletes a row once its hour is over.
  yield* sql`
    CREATE TABLE intents_by_address (
      client_address text NOT NULL,
      hour_start timestamptz NOT NULL,
      intents integer NOT NULL,
      PRIMARY KEY (client_address, hour_start)
    )`
})
