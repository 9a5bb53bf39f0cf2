import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // What the hotel's figure counts of this service's reservation changes (docs/decisions.md#what-may-be-sold
  // 2026-11-28): the changes up to a feed cursor, and those whose PMS push was acknowledged at or
  // before an instant. Kept with the figure in the row completions lock.
  yield* sql`
    ALTER TABLE inventory_nights
      ADD COLUMN rooms_to_sell_through bigint,
      ADD COLUMN rooms_to_sell_acked_by timestamptz`
  // A figure written before: it counted the changes committed before its as_of, as the rule then said
  yield* sql`
    UPDATE inventory_nights n SET rooms_to_sell_through = (
      SELECT max(seq) FROM reservation_changes c WHERE c.changed_at < n.rooms_to_sell_as_of)
    WHERE n.rooms_to_sell_as_of IS NOT NULL`
  // When the hotel's PMS acknowledged the push of a change (a later push of the same reservation
  // acknowledges every change before it); a reservation's changes are read newest first.
  yield* sql`ALTER TABLE reservation_changes ADD COLUMN acked_at timestamptz`
  yield* sql`CREATE INDEX reservation_changes_reservation ON reservation_changes (reservation_id, seq)`
  // A message's id names one body; its cursor is what later messages without one still count.
  yield* sql`
    ALTER TABLE channel_messages
      ADD COLUMN body_hash text,
      ADD COLUMN as_of timestamptz,
      ADD COLUMN reservations_through bigint`
  yield* sql`
    CREATE INDEX channel_messages_through ON channel_messages (reservations_through DESC)
    WHERE reservations_through IS NOT NULL`
  // the instant a reservation took its nights no longer decides what the hotel knows
  yield* sql`ALTER TABLE reservations DROP COLUMN nights_taken_at, DROP COLUMN nights_first_taken_at`
})
