import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // The promo code a reservation's offer applies; its uses are the completed reservations that name it.
  yield* sql`ALTER TABLE reservations ADD COLUMN promo_code text`
  yield* sql`CREATE INDEX reservations_promo_code ON reservations (promo_code) WHERE promo_code IS NOT NULL`
})
