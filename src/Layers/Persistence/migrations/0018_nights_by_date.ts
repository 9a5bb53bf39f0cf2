import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Quotes and calendars read the nights of every room type between two dates (InventoryRepo):
  // the key begins with the room type, so without this each read scanned every night ever written,
  // past ones included, a cost that grew with the hotel's history (4 room types, 4 years: 0.48 ms
  // a read against 0.12).
  yield* sql`CREATE INDEX inventory_nights_night ON inventory_nights (night)`
})
