// npm run db:export -- FILE: a consistent snapshot of every table of the database (DATABASE_URL, or
// the embedded one in DATA_DIR) into FILE, 0600, while the service keeps serving. Never the secret.
import { Effect } from "effect"
import * as path from "node:path"
import { BackupFileError, exportTo } from "../Layers/Persistence/Backup.js"
import { CommandDatabaseLive } from "../Layers/Persistence/Migrations.js"
import { runEntry } from "../Layers/Platform/Entry.js"

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
    : program(path.resolve(file)).pipe(Effect.provide(CommandDatabaseLive))
)
