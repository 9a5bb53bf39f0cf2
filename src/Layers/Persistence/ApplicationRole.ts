import { Deferred, Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import type { EmbeddedDatabaseError } from "../EmbeddedDatabase/EmbeddedDatabaseError.js"
import { APPLICATION_ROLE, embeddedPostgres } from "../EmbeddedDatabase/EmbeddedPostgres.js"
import * as Tracing from "../Platform/Tracing.js"
import { pgClientLayer } from "./PgClients.js"

/**
 * Makes (once) the login role the service connects as, without superuser rights, so a flaw in a
 * query reaches the application's data and never the server's files or programs (`COPY … PROGRAM`,
 * `pg_read_file`). It owns the database the service keeps its tables in (`postgres`, the cluster's
 * first), so migrations may create tables; tables an older version made as the superuser become
 * its own. Answers the URL of that role.
 */
export const asApplicationRole = (superuserUrl: Redacted.Redacted) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const existing = yield* sql`SELECT 1 FROM pg_roles WHERE rolname = ${APPLICATION_ROLE}`
    if (existing.length === 0) yield* sql`CREATE ROLE ${sql(APPLICATION_ROLE)} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE`
    yield* sql`ALTER DATABASE postgres OWNER TO ${sql(APPLICATION_ROLE)}`
    const older = yield* sql<{ name: string }>`
      SELECT relname AS name FROM pg_class
      WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') AND relowner <> ${APPLICATION_ROLE}::regrole`
    for (const { name } of older) yield* sql`ALTER TABLE ${sql(name)} OWNER TO ${sql(APPLICATION_ROLE)}`
    const url = new URL(Redacted.value(superuserUrl))
    url.username = APPLICATION_ROLE
    return Redacted.make(url.toString())
  }).pipe(Effect.provide(pgClientLayer(superuserUrl, { maxConnections: 1 })), Tracing.withSpan("Database.applicationRole"))

/**
 * The embedded PostgreSQL for the scope (`embeddedPostgres`), reached as the service's own role:
 * the URL of its database, and `givenUp`, which fails when its server is left down.
 */
export const embeddedDatabase = (dataDir: string) =>
  Effect.gen(function*() {
    const givenUp = yield* Deferred.make<never, EmbeddedDatabaseError>()
    const url = yield* asApplicationRole(yield* embeddedPostgres(dataDir, givenUp))
    return { url, givenUp: Deferred.await(givenUp) }
  })
