import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // What the hotel's systems say of each room type's night (docs/decisions.md#channel), beside this service's own
  // bookings, in the row completions lock: every field with the instant it was computed (`as_of`),
  // so that an older message never overwrites a newer figure. `booked_since` counts the rooms taken
  // here after `rooms_to_sell_as_of`, which the hotel's figure cannot count yet.
  yield* sql`
    ALTER TABLE inventory_nights
      ADD COLUMN booked_since integer NOT NULL DEFAULT 0 CHECK (booked_since >= 0 AND booked_since <= booked),
      ADD COLUMN rooms_to_sell integer CHECK (rooms_to_sell >= 0),
      ADD COLUMN rooms_to_sell_as_of timestamptz,
      ADD COLUMN stop_sell boolean,
      ADD COLUMN stop_sell_as_of timestamptz,
      ADD COLUMN closed_to_arrival boolean,
      ADD COLUMN closed_to_arrival_as_of timestamptz,
      ADD COLUMN closed_to_departure boolean,
      ADD COLUMN closed_to_departure_as_of timestamptz,
      ADD COLUMN min_stay integer CHECK (min_stay BETWEEN 1 AND 30),
      ADD COLUMN min_stay_as_of timestamptz,
      ADD COLUMN max_stay integer CHECK (max_stay BETWEEN 1 AND 30),
      ADD COLUMN max_stay_as_of timestamptz,
      ADD COLUMN base_rate integer CHECK (base_rate > 0),
      ADD COLUMN base_rate_as_of timestamptz`
  // When a reservation took the nights it holds, as two bounds (a stay change takes only the nights
  // it adds): the latest, its completion or last stay change, from which a message counts its rooms
  // as taken since (counting a kept night too many only waits for the next message); the first, its
  // completion, by which a release tells whether its rooms were counted as taken since (giving back
  // too few, likewise). Either way no room is sold twice.
  yield* sql`ALTER TABLE reservations ADD COLUMN nights_taken_at timestamptz, ADD COLUMN nights_first_taken_at timestamptz`
  yield* sql`UPDATE reservations SET nights_taken_at = completed_at, nights_first_taken_at = completed_at WHERE completed_at IS NOT NULL`
  // A message's answer by its id: the same id again answers it and changes nothing.
  yield* sql`
    CREATE TABLE channel_messages (
      message_id text PRIMARY KEY,
      applied integer NOT NULL,
      stale integer NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now()
    )`
})
