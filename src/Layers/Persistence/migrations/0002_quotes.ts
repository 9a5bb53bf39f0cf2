import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // A quote as answered (the response document), with who asked, kept so that an intent can be
  // made from it until it expires.
  yield* sql`
    CREATE TABLE quotes (
      id text PRIMARY KEY,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      checkin date NOT NULL,
      checkout date NOT NULL,
      status text NOT NULL,
      session_id text,
      client jsonb NOT NULL,
      response jsonb NOT NULL
    )`
  yield* sql`CREATE INDEX quotes_expires_at ON quotes (expires_at)`
})
