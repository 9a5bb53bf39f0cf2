// A service stand-in for the crash tests: starts the embedded PostgreSQL on the folder given, stores
// the value given, prints READY and holds the server until it is killed (SIGTERM: its scope closes,
// as the service's does).
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { pgClientLayer } from "../../src/Layers/Persistence/Database.js"
import { embeddedPostgres } from "../../src/Layers/EmbeddedDatabase/EmbeddedPostgres.js"
import { runEntry } from "../../src/Layers/Platform/Entry.js"

const [dataDir, value] = process.argv.slice(2)

Effect.gen(function*() {
  const url = yield* embeddedPostgres(dataDir!)
  return yield* Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS kept (value text)`
    yield* sql`INSERT INTO kept VALUES (${value!})`
    process.stdout.write("READY\n")
    return yield* Effect.never
  }).pipe(Effect.provide(pgClientLayer(url, { maxConnections: 2 })))
}).pipe(Effect.scoped, runEntry)
