import { Data, Result, Schema } from "effect"

/**
 * A backup file (`npm run db:export` / `db:import`, docs/decisions.md#backup-and-move): every table of the service as
 * PostgreSQL renders its rows in JSON, with the version of this layout (`format`) and of the schema
 * the rows fit (`schema`, the id of the last migration applied when it was written).
 */
export const BACKUP_FORMAT = 1

/** What is read of a file before any row is: which layout, which schema, which tables. */
export const BackupHeader = Schema.Struct({
  format: Schema.Finite,
  schema: Schema.String,
  exported_at: Schema.String,
  tables: Schema.Record(Schema.String, Schema.Array(Schema.Unknown))
})
export type BackupHeader = typeof BackupHeader.Type

/** Why a file is not loaded; the message says what to do. */
export class BackupRefused extends Data.TaggedError("BackupRefused")<{ readonly message: string }> {}

/**
 * Whether this code can load a file: its format is this one (a newer one is refused, not guessed
 * at) and its schema is one of this code's migrations (`knownSchemas`, in order), the newest or an
 * older one, which the import brings up to date after loading the rows.
 */
export const checkBackupHeader = (
  header: Pick<BackupHeader, "format" | "schema">,
  knownSchemas: ReadonlyArray<string>
): Result.Result<void, BackupRefused> => {
  if (header.format > BACKUP_FORMAT) {
    return Result.fail(
      new BackupRefused({
        message: `the file is in backup format ${header.format}, newer than this version reads (format ${BACKUP_FORMAT}): ` +
          "import it with the version of the service that exported it, or a later one"
      })
    )
  }
  if (header.format !== BACKUP_FORMAT) {
    return Result.fail(new BackupRefused({ message: `the file is in backup format ${header.format}; this version reads format ${BACKUP_FORMAT}` }))
  }
  if (!knownSchemas.includes(header.schema)) {
    return Result.fail(
      new BackupRefused({
        message: `the file's schema ${header.schema} is not one this version knows (its last is ${knownSchemas.at(-1)}): ` +
          "import it with the version of the service that exported it, or a later one"
      })
    )
  }
  return Result.void
}

/** The migrations up to and including `schema`, the ones its rows fit. */
export const migrationsUpTo = (knownSchemas: ReadonlyArray<string>, schema: string): ReadonlyArray<string> =>
  knownSchemas.slice(0, knownSchemas.indexOf(schema) + 1)

/** Whether the file holds exactly the tables of the schema: no table of the service left out, none unknown. */
export const checkBackupTables = (inFile: ReadonlyArray<string>, inSchema: ReadonlyArray<string>): Result.Result<void, BackupRefused> => {
  const missing = inSchema.filter((t) => !inFile.includes(t))
  const unknown = inFile.filter((t) => !inSchema.includes(t))
  if (missing.length === 0 && unknown.length === 0) return Result.void
  return Result.fail(
    new BackupRefused({
      message: `the file's tables do not match its schema` +
        (missing.length > 0 ? `; missing: ${missing.join(", ")}` : "") +
        (unknown.length > 0 ? `; unknown: ${unknown.join(", ")}` : "")
    })
  )
}

/**
 * The tables in an order where each comes after those its foreign keys point to (a table pointing
 * to itself is fine: rows of one table go in with one statement, checked at its end).
 */
export const insertionOrder = (
  tables: ReadonlyArray<string>,
  references: ReadonlyArray<{ readonly child: string; readonly parent: string }>
): ReadonlyArray<string> => {
  const order: Array<string> = []
  const visiting = new Set<string>()
  const visit = (table: string) => {
    if (order.includes(table) || visiting.has(table)) return
    visiting.add(table)
    for (const r of references) if (r.child === table && r.parent !== table) visit(r.parent)
    visiting.delete(table)
    order.push(table)
  }
  for (const table of [...tables].sort()) visit(table)
  return order.filter((t) => tables.includes(t))
}
