import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // what the periodic sweep looks for, found without reading whole tables
  yield* sql`CREATE INDEX reservations_pending_link ON reservations (guest_link_expires_at) WHERE status = 'PENDING_GUEST'`
  yield* sql`CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at)`
})
