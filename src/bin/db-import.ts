// npm run db:import -- FILE: loads a db:export file into an empty database (DATABASE_URL, or the
// embedded one in DATA_DIR). Start the service on it with the APP_SECRET of the exporting one.
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Layer } from "effect"
import * as path from "node:path"
import { BackupFileError, importFrom } from "../Layers/Persistence/Backup.js"
import { DatabaseLive } from "../Layers/Persistence/Database.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"
import { runEntry } from "../Layers/Platform/Entry.js"

const program = (file: string) =>
  Effect.gen(function*() {
    const loaded = yield* importFrom(file)
    const rows = loaded.tables.reduce((n, t) => n + t.count, 0)
    yield* Effect.logInfo(`imported ${rows} rows of ${loaded.tables.length} tables (schema ${loaded.schema}, exported ${loaded.exportedAt}) from ${file}`)
  })

// not CommandDatabaseLive: its start-up step would import the hotel file into the empty database
const file = process.argv[2]
runEntry<void, unknown>(
  file === undefined
    ? Effect.fail(new BackupFileError({ message: "usage: npm run db:import -- FILE" }))
    : program(path.resolve(file)).pipe(
      Effect.provide(DatabaseLive.pipe(Layer.provideMerge(AppConfig.layer), Layer.provideMerge(NodeServices.layer)))
    )
)
