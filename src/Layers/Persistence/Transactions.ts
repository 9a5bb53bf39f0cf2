import { Context, Effect, Layer, Semaphore } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Runs a unit of work atomically: a database transaction in production; in memory, one unit
 * at a time, so the same rules (e.g. never overbook) hold in the in-memory tests.
 */
export class Transactions extends Context.Service<Transactions, {
  readonly atomically: <A, E, R>(work: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("Transactions") {
  static readonly layer = Layer.effect(
    Transactions,
    Effect.map(SqlClient.SqlClient, (sql) => ({
      atomically: <A, E, R>(work: Effect.Effect<A, E, R>) =>
        sql.withTransaction(work).pipe(Effect.catchTag("SqlError", Effect.die))
    }))
  )

  static readonly InMemory = Layer.effect(
    Transactions,
    Effect.map(Semaphore.make(1), (lock) => ({
      atomically: <A, E, R>(work: Effect.Effect<A, E, R>) => lock.withPermits(1)(work)
    }))
  )
}
