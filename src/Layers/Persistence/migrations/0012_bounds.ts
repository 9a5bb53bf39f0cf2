import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // ROOM_NIGHTS_PER_ADDRESS_PER_DAY: a completion's room-nights, counted with it under the
  // address's lock; the rows are now kept 24 hours. Completions recorded before count 0.
  yield* sql`ALTER TABLE completions_by_address ADD COLUMN room_nights integer NOT NULL DEFAULT 0`
  // housekeeping deletes a quote that never became an intent a day after it expired: "became one" is read here
  yield* sql`CREATE INDEX reservations_quote ON reservations (quote_id)`
})
