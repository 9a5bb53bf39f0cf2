import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // The feed a PMS pulls (docs/decisions.md#channel-interface): each change of a reservation with its content at that
  // moment, written in the change's own transaction. `seq` is the cursor; ReservationFeedRepo makes
  // it follow the commit order. Reservations are never deleted (housekeeping erases expired ones,
  // which have no change), so a change never loses its reservation.
  yield* sql`
    CREATE TABLE reservation_changes (
      seq bigserial PRIMARY KEY,
      reservation_id text NOT NULL REFERENCES reservations (id),
      change text NOT NULL CHECK (change IN ('completed', 'guest_updated', 'stay_changed', 'cancelled')),
      changed_at timestamptz NOT NULL,
      content jsonb NOT NULL
    )`
})
