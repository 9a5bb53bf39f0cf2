import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // BOOKING_LIMIT_PER_HOUR: completions per client address, counted here so that every instance
  // sees them. A table of its own, not a column of the reservation: the address is needed for an
  // hour, and housekeeping deletes it after that.
  yield* sql`
    CREATE TABLE completions_by_address (
      reservation_id text PRIMARY KEY REFERENCES reservations (id) ON DELETE CASCADE,
      client_address text NOT NULL,
      completed_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX completions_by_address_recent ON completions_by_address (client_address, completed_at)`
  // MAIL_LIMIT_PER_RECIPIENT_PER_DAY: an email job records its recipient when it is counted
  // against the recipient's day; one beyond the limit is held back (kept, never sent).
  yield* sql`
    ALTER TABLE outbox_jobs
      DROP CONSTRAINT outbox_jobs_state_check,
      ADD CONSTRAINT outbox_jobs_state_check CHECK (state IN ('pending', 'done', 'failed', 'held_back')),
      ADD COLUMN recipient text,
      ADD COLUMN recipient_counted_at timestamptz`
  yield* sql`
    CREATE INDEX outbox_jobs_recipient ON outbox_jobs (recipient, recipient_counted_at)
    WHERE recipient_counted_at IS NOT NULL`
  // quotes stored before a quote said whether it is reservable (an intent checks the rooms again)
  yield* sql`
    UPDATE quotes SET response = response || jsonb_build_object('reservable', status = 'available', 'not_reservable', null)
    WHERE NOT response ? 'reservable'`
})
