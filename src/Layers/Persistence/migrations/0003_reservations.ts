import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE reservations (
      id text PRIMARY KEY,
      number text UNIQUE,
      status text NOT NULL CHECK (status IN ('PENDING_GUEST', 'GUEST_COMPLETED', 'CANCELLED', 'EXPIRED')),
      pms_status text CHECK (pms_status IN ('PENDING', 'SYNCED', 'FAILED')),
      language text NOT NULL,
      quote_id text NOT NULL,
      checkin date NOT NULL,
      checkout date NOT NULL,
      rooms jsonb NOT NULL,
      offer jsonb NOT NULL,
      line_totals jsonb NOT NULL,
      guest jsonb,
      terms_version text,
      client jsonb NOT NULL,
      guest_link_expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX reservations_stay ON reservations (checkin, checkout)`
  // Only a hash of each token is kept, with the nonce it is derived from (useless without the
  // server secret), so that an idempotent replay can give the same link again.
  yield* sql`
    CREATE TABLE reservation_tokens (
      token_hash text PRIMARY KEY,
      nonce text NOT NULL,
      reservation_id text NOT NULL REFERENCES reservations (id) ON DELETE CASCADE,
      purpose text NOT NULL CHECK (purpose IN ('guest', 'manage')),
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX reservation_tokens_reservation ON reservation_tokens (reservation_id, purpose)`
  yield* sql`
    CREATE TABLE idempotency_keys (
      scope text NOT NULL,
      key text NOT NULL,
      request_hash text NOT NULL,
      state text NOT NULL CHECK (state IN ('in_progress', 'done')),
      resource_id text,
      created_at timestamptz NOT NULL DEFAULT now(),
      locked_until timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (scope, key)
    )`
})
