import { PgPool } from "@effect/sql-pg"
import { Context, Effect, Fiber, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../Platform/AppConfig.js"
import { DatabaseUnreachable, sqlErrorText } from "./DatabaseFaults.js"
import type { EmbeddedDatabaseError } from "../EmbeddedDatabase/EmbeddedDatabaseError.js"
import { embeddedDatabase } from "./ApplicationRole.js"
import { DatabaseReach, pgClientLayer } from "./PgClients.js"

export { DatabaseReach, pgClientLayer, type PoolOptions } from "./PgClients.js"

/**
 * The service needs no more than to own its tables; a superuser can also read the server's files
 * and run programs on it, so a flaw in a query would reach that far. Said at start, not refused:
 * `DATABASE_URL` is the operator's choice.
 */
const warnIfSuperuser = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [role] = yield* sql<{ name: string; superuser: boolean }>`
    SELECT rolname AS name, rolsuper AS superuser FROM pg_roles WHERE rolname = current_user`
  if (role?.superuser === true) {
    yield* Effect.logWarning(
      `DATABASE_URL connects as ${role.name}, a superuser: connect as a role that owns the service's database and is not a superuser`
    )
  }
})

/**
 * Fails when the database cannot be kept up: the embedded server died too often to be started
 * again. Never for `DATABASE_URL`, whose server its operator restarts. The entry point stops the
 * service on it, so that the service's own supervisor acts.
 */
export class DatabaseSupervision extends Context.Service<DatabaseSupervision, {
  readonly givenUp: Effect.Effect<never, EmbeddedDatabaseError>
}>()("DatabaseSupervision") {}

/**
 * The one SQL client: `DATABASE_URL` when set (as given, `LISTEN` on `DATABASE_LISTEN_URL` when
 * that is set), else the embedded database in `DATA_DIR` (as a role of the service's own that is
 * not a superuser).
 */
export const DatabaseLive = Layer.unwrap(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const given = Option.isSome(config.databaseUrl)
    const options = { timeoutMs: config.databaseTimeoutMs, listenUrl: given ? config.databaseListenUrl : Option.none() }
    const { givenUp, url } = given
      ? { givenUp: Effect.never, url: config.databaseUrl.value }
      : yield* embeddedDatabase(config.dataDir)
    const client = pgClientLayer(url, options)
    return Layer.merge(
      // the embedded database's role is never a superuser: only a given DATABASE_URL is checked
      given ? Layer.tap(client, (context) => Effect.provide(warnIfSuperuser, context)) : client,
      Layer.succeed(DatabaseSupervision, { givenUp })
    )
  })
)

/** How long a ping may take, connecting included: a load balancer's health check waits no longer. */
const PING_TIMEOUT_MS = 1000

/**
 * Answers whether the database takes queries, within a second. On connections of its own (at most
 * two, made when needed), never the pool's: with every pooled connection busy, the health check
 * still tells a busy instance (200) from one whose database is gone (503).
 */
export class DatabasePing extends Context.Service<DatabasePing, Effect.Effect<void, DatabaseUnreachable>>()("DatabasePing") {
  static readonly layer = Layer.effect(
    DatabasePing,
    Effect.gen(function*() {
      const reach = yield* DatabaseReach
      const pool = yield* PgPool.make(
        reach.connectionsOn({ maxConnections: 2, timeoutMs: PING_TIMEOUT_MS, applicationName: "hotel-booking-api health" })
      )
      const scope = yield* Effect.scope
      const select1 = pool.use((connection) => connection.query("SELECT 1")).pipe(
        Effect.mapError((error) => new DatabaseUnreachable({ message: sqlErrorText(error) }))
      )
      // the service is the ping itself, an Effect run on each health check; it runs in a fiber of
      // its own, not awaited past its second: cancelling a statement a frozen server never answers
      // takes the driver seconds
      // @effect-diagnostics-next-line returnEffectInGen:off
      return Effect.flatMap(Effect.forkIn(select1, scope), (fiber) =>
        Fiber.join(fiber).pipe(
          Effect.timeoutOrElse({
            duration: PING_TIMEOUT_MS,
            orElse: () =>
              Effect.andThen(
                Effect.forkIn(Fiber.interrupt(fiber), scope),
                Effect.fail(new DatabaseUnreachable({ message: "no answer within a second", timedOut: true }))
              )
          }),
          Effect.asVoid
        ))
    })
  )
  static readonly InMemory = Layer.succeed(DatabasePing, Effect.void)
}
