import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { LocalDate } from "../../Domain/LocalDate.js"
import { UNNAMED, UsageRow } from "../../Domain/Usage.js"

/** The traffic of a period, read from the stored quotes and reservations. */
export class UsageRepo extends Context.Service<UsageRepo, {
  /**
   * Per day (the hotel's time zone) from `from` to `to` included, per `X-Hotel-Client` and per
   * `X-AI-Agent` value: quotes issued, intents made, guests' completions and their worth.
   */
  readonly report: (from: LocalDate, to: LocalDate) => Effect.Effect<ReadonlyArray<UsageRow>>
}>()("UsageRepo") {
  static readonly layer = Layer.effect(
    UsageRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const decode = Schema.decodeUnknownEffect(Schema.Array(UsageRow))
      return {
        report: (from, to) =>
          sql`
            WITH tz AS (
              SELECT COALESCE((SELECT definition->>'timezone' FROM hotel ORDER BY imported_at DESC LIMIT 1), 'UTC') AS name
            ),
            events AS (
              SELECT (q.created_at AT TIME ZONE tz.name)::date AS day, q.client, 1 AS quotes, 0 AS intents, 0 AS completions,
                0::bigint AS revenue
              FROM quotes q, tz
              UNION ALL
              SELECT (r.created_at AT TIME ZONE tz.name)::date, r.client, 0, 1, 0, 0
              FROM reservations r, tz
              UNION ALL
              SELECT (r.completed_at AT TIME ZONE tz.name)::date, r.client, 0, 0, 1,
                CASE WHEN r.status = 'CANCELLED' THEN 0 ELSE (r.offer->'price'->>'total')::bigint END
              FROM reservations r, tz
              WHERE r.completed_at IS NOT NULL
            )
            SELECT e.day::text AS day, d.dimension, COALESCE(d.value, ${UNNAMED}) AS value,
              sum(e.quotes)::int AS quotes, sum(e.intents)::int AS intents, sum(e.completions)::int AS completions,
              sum(e.revenue)::int AS revenue
            FROM events e
            CROSS JOIN LATERAL (VALUES ('client', e.client->>'client'), ('ai_agent', e.client->>'ai_agent')) AS d (dimension, value)
            WHERE e.day BETWEEN ${from}::date AND ${to}::date
            GROUP BY e.day, d.dimension, d.value
            ORDER BY e.day, d.dimension, d.value NULLS LAST`.pipe(
            Effect.flatMap(decode),
            Effect.orDie,
            Effect.withSpan("UsageRepo.report")
          )
      }
    })
  )
}
