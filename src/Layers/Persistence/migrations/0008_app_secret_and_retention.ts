import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // One row: the fingerprint of the secret every instance on this database must share (never the secret).
  yield* sql`
    CREATE TABLE app_secret (
      single_row boolean PRIMARY KEY DEFAULT true CHECK (single_row),
      fingerprint text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  // When the personal data of a reservation never completed was erased; the row stays for the statistics.
  yield* sql`ALTER TABLE reservations ADD COLUMN personal_data_erased_at timestamptz`
  yield* sql`
    CREATE INDEX reservations_expired_unerased ON reservations (guest_link_expires_at)
    WHERE status = 'EXPIRED' AND personal_data_erased_at IS NULL`
})
