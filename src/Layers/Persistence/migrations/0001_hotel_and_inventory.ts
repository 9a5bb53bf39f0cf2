import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE hotel (
      id text PRIMARY KEY,
      definition jsonb NOT NULL,
      imported_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE room_types (
      id text PRIMARY KEY,
      hotel_id text NOT NULL REFERENCES hotel (id) ON DELETE CASCADE,
      position integer NOT NULL,
      inventory integer NOT NULL CHECK (inventory >= 0)
    )`
  // One row per room type and night that has bookings: rows are created on first use and
  // locked in (room type, night) order when rooms are taken.
  yield* sql`
    CREATE TABLE inventory_nights (
      room_type_id text NOT NULL REFERENCES room_types (id) ON DELETE CASCADE,
      night date NOT NULL,
      booked integer NOT NULL DEFAULT 0 CHECK (booked >= 0),
      PRIMARY KEY (room_type_id, night)
    )`
})
