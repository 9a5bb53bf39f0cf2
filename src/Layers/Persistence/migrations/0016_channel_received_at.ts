import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // When the channel last spoke, asked by every instance for its health and its metrics (docs/decisions.md#operators),
  // read from the newest end of the index; the housekeeping's sweep of old messages reads it too.
  yield* sql`CREATE INDEX channel_messages_received_at ON channel_messages (received_at)`
})
