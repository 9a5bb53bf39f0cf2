import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // The W3C traceparent of the request that wrote the job, while traces are collected: its
  // delivery's trace links back to it. Null when no collector listened.
  yield* sql`ALTER TABLE outbox_jobs ADD COLUMN trace_context text`
})
