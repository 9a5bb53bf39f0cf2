import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Work that follows a state change (emails, PMS sync), written in the change's own transaction
  // and delivered by the workers: nothing is lost when the mail server or the PMS is down.
  yield* sql`
    CREATE TABLE outbox_jobs (
      id text PRIMARY KEY,
      seq bigserial NOT NULL,
      kind text NOT NULL,
      reservation_id text NOT NULL REFERENCES reservations (id),
      state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      run_at timestamptz NOT NULL DEFAULT now(),
      locked_until timestamptz,
      last_error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz
    )`
  yield* sql`CREATE INDEX outbox_jobs_due ON outbox_jobs (run_at) WHERE state = 'pending'`
  yield* sql`CREATE INDEX outbox_jobs_reservation ON outbox_jobs (reservation_id, kind, seq)`
  yield* sql`ALTER TABLE reservations ADD COLUMN pms_reference text, ADD COLUMN cancelled_at timestamptz`
})
