import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"

/**
 * Runs a unit of work atomically: a database transaction in production; in memory, one unit
 * at a time, so the same rules (e.g. never overbook) hold in the in-memory tests.
 */
export class Transactions extends Context.Tag("Transactions")<Transactions, {
  readonly atomically: <A, E, R>(work: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>() {
  static readonly Default = Layer.effect(
    Transactions,
    Effect.map(SqlClient.SqlClient, (sql) => ({
      atomically: <A, E, R>(work: Effect.Effect<A, E, R>) =>
        sql.withTransaction(work).pipe(Effect.catchTag("SqlError", Effect.die)) as Effect.Effect<A, E, R>
    }))
  )

  static readonly InMemory = Layer.effect(
    Transactions,
    Effect.map(Effect.makeSemaphore(1), (lock) => ({
      atomically: <A, E, R>(work: Effect.Effect<A, E, R>) => lock.withPermits(1)(work)
    }))
  )
}
