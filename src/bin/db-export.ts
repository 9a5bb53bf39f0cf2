// npm run db:export -- FILE: a consistent snapshot of every table of the database (DATABASE_URL, or
// the embedded one in DATA_DIR) into FILE, 0600, while the service keeps serving. Never the secret.
import { Effect, Layer, Option } from "effect"
import type { SqlClient } from "effect/sql"
import * as path from "node:path"
import { BackupFileError, exportTo } from "../Layers/Persistence/Backup.js"
import { pgClientLayer } from "../Layers/Persistence/Database.js"
import { servedEmbeddedDatabase } from "../Layers/EmbeddedDatabase/EmbeddedPostgres.js"
import { CommandDatabaseLive } from "../Layers/Persistence/Migrations.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"
import { runEntry } from "../Layers/Platform/Entry.js"

/**
 * The database to read: the embedded one of the service running on DATA_DIR, through its server
 * (that service migrated it); else DATABASE_URL or DATA_DIR's, as any command opens it.
 */
const ExportDatabaseLive = Layer.unwrap(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const served = Option.isNone(config.databaseUrl) ? servedEmbeddedDatabase(config.dataDir) : Option.none()
    if (Option.isNone(served)) return CommandDatabaseLive as Layer.Layer<SqlClient.SqlClient, unknown>
    yield* Effect.logInfo(`reading the embedded database of the service running on ${config.dataDir} (pid ${served.value.service})`)
    return pgClientLayer(served.value.url, { maxConnections: 1 })
  })
).pipe(Layer.provide(AppConfig.layer))

const program = (file: string) =>
  Effect.gen(function*() {
    const written = yield* exportTo(file)
    const rows = written.tables.reduce((n, t) => n + t.count, 0)
    yield* Effect.logInfo(`exported ${rows} rows of ${written.tables.length} tables (schema ${written.schema}, ${written.bytes} bytes) to ${file}`)
  })

const file = process.argv[2]
runEntry<void, unknown>(
  file === undefined
    ? Effect.fail(new BackupFileError({ message: "usage: npm run db:export -- FILE" }))
    : program(path.resolve(file)).pipe(Effect.provide(ExportDatabaseLive))
)
