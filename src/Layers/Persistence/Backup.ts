import { Data, Effect, Option, Schema } from "effect"
import { Migrator, SqlClient, type SqlError } from "effect/sql"
import * as fs from "node:fs"
import {
  BACKUP_FORMAT,
  BackupHeader,
  BackupRefused,
  checkBackupHeader,
  checkBackupTables,
  insertionOrder,
  migrationsUpTo
} from "../../Domain/Backup.js"
import { PRIVATE_FILE } from "../Platform/PrivateFiles.js"
import * as Tracing from "../Platform/Tracing.js"
import { sqlErrorText } from "./DatabaseFaults.js"
import { migrateSchema } from "./Migrations.js"
import { NoStatementDeadline } from "./PgClients.js"
import { migrationFiles } from "./migrations/index.js"

/** A backup file that could not be read or written. */
export class BackupFileError extends Data.TaggedError("BackupFileError")<{ readonly message: string }> {}

const knownSchemas = Object.keys(migrationFiles)

/** The migration table is the migrator's: an import makes it again by running the migrations. */
const MIGRATIONS_TABLE = "effect_sql_migrations"

/** Every table of the service, as the schema has them (a migration's new table is in without a line here). */
const serviceTables = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ name: string }>`
    SELECT tablename AS name FROM pg_tables
    WHERE schemaname = current_schema() AND tablename <> ${MIGRATIONS_TABLE} ORDER BY tablename`).pipe(
    Effect.map((rows) => rows.map((r) => r.name))
  )

/** The columns a sequence numbers (`bigserial`), with the sequence. */
const serialColumns = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ table: string; column: string; sequence: string }>`
    SELECT table_name AS table, column_name AS column,
      pg_get_serial_sequence(quote_ident(table_name), column_name) AS sequence
    FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name <> ${MIGRATIONS_TABLE}
      AND pg_get_serial_sequence(quote_ident(table_name), column_name) IS NOT NULL
    ORDER BY table_name, column_name`)

/** The id of the last migration applied, e.g. `0011_reservation_feed`. */
const currentSchema = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [last] = yield* sql<{ id: number }>`SELECT max(migration_id) AS id FROM effect_sql_migrations`
  const schema = knownSchemas.find((key) => Number.parseInt(key, 10) === last?.id)
  if (schema === undefined) {
    return yield* new BackupRefused({ message: `the database's last migration (${last?.id}) is not one this version knows` })
  }
  return schema
})

/**
 * `npm run db:export -- FILE`: every table in one `REPEATABLE READ` snapshot, so a completion in
 * flight is in the file whole or not at all while the service keeps serving. The rows are written
 * as PostgreSQL renders them in JSON (instants to the microsecond, dates as dates, bigints exact),
 * never parsed here. The file holds personal data and token hashes: created 0600 beside the target
 * and renamed over it, so no reader ever sees it wider or half written.
 */
export const exportTo = (file: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const snapshot = yield* Effect.gen(function*() {
      yield* sql`SET LOCAL statement_timeout = 0` // a large table is read in one statement
      const [at] = yield* sql<{ now: string }>`SELECT to_json(now())#>>'{}' AS now`
      const schema = yield* currentSchema
      const rows = yield* Effect.forEach(yield* serviceTables, (table) =>
        sql<{ rows: string; count: number }>`
          SELECT coalesce(json_agg(backup_row), '[]')::text AS rows, count(*)::int AS count
          FROM ${sql(table)} AS backup_row`.pipe(Effect.map(([r]) => ({ table, rows: r!.rows, count: r!.count }))))
      // a sequence may be past the largest value left in its table (rows deleted): kept as it is
      const sequences = yield* Effect.forEach(yield* serialColumns, (c) =>
        sql<{ value: string | null }>`SELECT pg_sequence_last_value(${c.sequence}::regclass)::text AS value`.pipe(
          Effect.map(([r]) => [`${c.table}.${c.column}`, r?.value ?? "0"] as const)
        ))
      return { exportedAt: at!.now, schema, rows, sequences }
    }).pipe(
      sql.withTransaction,
      // the isolation in the BEGIN itself: behind a pooler the transaction's first statement sets its deadlines
      Effect.provideService(SqlClient.BeginTransaction, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"),
      Effect.provideService(NoStatementDeadline, true)
    )
    const text = "{\n" +
      `"format": ${BACKUP_FORMAT},\n` +
      `"schema": ${JSON.stringify(snapshot.schema)},\n` +
      `"exported_at": ${JSON.stringify(snapshot.exportedAt)},\n` +
      `"sequences": ${JSON.stringify(Object.fromEntries(snapshot.sequences))},\n` +
      `"tables": {\n${snapshot.rows.map((t) => `${JSON.stringify(t.table)}: ${t.rows}`).join(",\n")}\n}\n}\n`
    yield* writePrivateFile(file, text)
    return { schema: snapshot.schema, tables: snapshot.rows.map((t) => ({ table: t.table, count: t.count })), bytes: Buffer.byteLength(text) }
  }).pipe(Effect.catchTag("SqlError", Effect.die), Tracing.withSpan("Backup.export"))

const writePrivateFile = (file: string, text: string) =>
  Effect.try({
    try: () => {
      const temporary = `${file}.${process.pid}.partial`
      const fd = fs.openSync(temporary, "wx", PRIVATE_FILE)
      try {
        fs.writeFileSync(fd, text)
        fs.fsyncSync(fd)
      } finally {
        fs.closeSync(fd)
      }
      try {
        fs.renameSync(temporary, file)
      } catch (error) {
        fs.rmSync(temporary, { force: true })
        throw error
      }
    },
    catch: (error) => new BackupFileError({ message: `cannot write ${file}: ${(error as Error).message}` })
  })

const FileHeader = BackupHeader.pipe(
  Schema.fieldsAssign({ sequences: Schema.Record(Schema.String, Schema.String).pipe(Schema.withDecodingDefaultType(Effect.succeed({}))) })
)

const readHeader = (file: string) =>
  Effect.gen(function*() {
    const text = yield* Effect.try({
      try: () => fs.readFileSync(file, "utf8"),
      catch: (error) => new BackupFileError({ message: `cannot read ${file}: ${(error as Error).message}` })
    })
    const header = yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => undefined }).pipe(
      Effect.flatMap(Schema.decodeUnknownEffect(FileHeader)),
      Effect.mapError(() => new BackupRefused({ message: `${file} is not a backup file written by db:export` }))
    )
    return { text, header }
  })

/** PostgreSQL's classes of a value that does not fit its column (22) or a row that breaks a constraint (23). */
const ROW_REFUSED = /^2[23]/

/** The longest the row's own words (PostgreSQL's `detail`: its key, or its values) are quoted: one line, not a whole row. */
const MAX_ROW_DETAIL = 200

/**
 * A row of the file that the table refuses (a duplicate key, a missing parent, a null, a value of
 * the wrong type), as one line naming the table and the row as PostgreSQL names it (its key, or
 * its values): the file's fault, not ours, so no stack. None for any other failure.
 */
const rowRefused = (file: string, table: string, error: SqlError.SqlError): Option.Option<BackupRefused> => {
  const said = error.reason.cause
  if (typeof said !== "object" || said === null || !("code" in said) || !ROW_REFUSED.test(String(said.code))) return Option.none()
  const detail = "detail" in said && typeof said.detail === "string" ? said.detail.replace(/\s+/g, " ").replace(/\.$/, "") : ""
  const row = detail === "" ? "" : ` (${detail.length > MAX_ROW_DETAIL ? `${detail.slice(0, MAX_ROW_DETAIL)}…` : detail})`
  return Option.some(
    new BackupRefused({ message: `${file}: a row of table ${table} is refused${row}: ${sqlErrorText(error)}; nothing was imported` })
  )
}

/**
 * `npm run db:import -- FILE`: into an empty database only, in one transaction under the start-up
 * lock (an instance starting meanwhile waits, then finds the hotel there). The schema is first
 * brought to the file's, the rows go in as PostgreSQL reads them back from the file's JSON (with
 * each table's row type, so every column gets its own type), parents before children, each
 * sequence is set past what the file holds, then the remaining migrations run over the rows as
 * they would have over the exporting database.
 */
export const importFrom = (file: string) =>
  Effect.gen(function*() {
    const { header, text } = yield* readHeader(file)
    yield* Effect.fromResult(checkBackupHeader(header, knownSchemas))
    const fileSchema = migrationsUpTo(knownSchemas, header.schema)
    const sql = yield* SqlClient.SqlClient
    return yield* Effect.gen(function*() {
      yield* migrateSchema(Migrator.fromRecord(Object.fromEntries(fileSchema.map((id) => [id, migrationFiles[id as keyof typeof migrationFiles]]))))
      const tables = yield* serviceTables
      yield* Effect.fromResult(checkBackupTables(Object.keys(header.tables), tables))
      const filled = yield* Effect.filter(tables, (table) =>
        sql<{ filled: boolean }>`SELECT EXISTS (SELECT 1 FROM ${sql(table)}) AS filled`.pipe(Effect.map(([r]) => r!.filled)))
      if (filled.length > 0) {
        return yield* new BackupRefused({
          message: `the database is not empty (${filled.join(", ")} ${filled.length === 1 ? "has" : "have"} rows): ` +
            "import only into an empty database, a new DATA_DIR or a new database on the server"
        })
      }
      const references = yield* sql<{ child: string; parent: string }>`
        SELECT child.relname AS child, parent.relname AS parent
        FROM pg_constraint k
        JOIN pg_class child ON child.oid = k.conrelid
        JOIN pg_class parent ON parent.oid = k.confrelid
        WHERE k.contype = 'f' AND k.connamespace = current_schema()::regnamespace`
      yield* sql`CREATE TEMPORARY TABLE backup_file (doc json NOT NULL) ON COMMIT DROP`
      yield* sql`INSERT INTO backup_file (doc) VALUES (${text}::json)`
      const counts = yield* Effect.forEach(insertionOrder(tables, references), (table) =>
        sql<{ count: number }>`
          WITH inserted AS (
            INSERT INTO ${sql(table)}
            SELECT * FROM json_populate_recordset(NULL::${sql(table)}, (SELECT doc -> 'tables' -> ${table} FROM backup_file))
            RETURNING 1
          )
          SELECT count(*)::int AS count FROM inserted`.pipe(
          Effect.map(([r]) => ({ table, count: r!.count })),
          Effect.catchTag("SqlError", (error) => Effect.fail(Option.getOrElse(rowRefused(file, table, error), () => error)))
        ))
      for (const c of yield* serialColumns) {
        const last = header.sequences[`${c.table}.${c.column}`] ?? "0"
        yield* sql`
          SELECT setval(${c.sequence}::regclass, greatest(max(${sql(c.column)}), ${last}::bigint, 1), greatest(max(${sql(c.column)}), ${last}::bigint) > 0)
          FROM ${sql(c.table)}`
      }
      yield* sql`DROP TABLE backup_file`
      yield* migrateSchema(Migrator.fromRecord(migrationFiles))
      return { schema: header.schema, exportedAt: header.exported_at, tables: counts }
    }).pipe(sql.withTransaction, Effect.provideService(NoStatementDeadline, true))
  }).pipe(Effect.catchTag("SqlError", Effect.die), Tracing.withSpan("Backup.import"))
