import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // A stay change counts the room-nights it adds against its client address, as a completion
  // counts its own: a reservation may now have several rows here, its completion's and its changes'.
  yield* sql`ALTER TABLE completions_by_address DROP CONSTRAINT completions_by_address_pkey`
  yield* sql`CREATE INDEX completions_by_address_reservation ON completions_by_address (reservation_id)`
})
