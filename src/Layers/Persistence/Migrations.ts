import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Layer } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import { AppConfig } from "../Platform/AppConfig.js"
import { DatabaseLive } from "./Database.js"
import { HotelRepo } from "./HotelRepo.js"
import { readHotelFile } from "./HotelFile.js"
import { migrations } from "./migrations/index.js"
import { NoStatementDeadline } from "./PgClients.js"
import * as Tracing from "../Platform/Tracing.js"

/** Any number of instances may start at once: the first to take this lock migrates and imports. */
export const STARTUP_LOCK = 7_240_001

const runMigrations = Migrator.make({})

/**
 * Inside a transaction: the schema brought up to `loader`'s last migration, under the start-up lock.
 * It lifts the server's deadlines for the rest of the transaction; the caller lifts the service's
 * own bound on each statement with `NoStatementDeadline` around the transaction.
 * `db:import` loads a file into the schema it was exported from, then brings it up to date.
 */
export const migrateSchema = (loader: Migrator.Loader) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // no request deadline here: an instance starting beside one that migrates waits for it, and a
    // migration of a large table may take longer than any request should
    yield* sql`SET LOCAL statement_timeout = 0`
    yield* sql`SET LOCAL lock_timeout = 0`
    yield* sql`SELECT pg_advisory_xact_lock(${STARTUP_LOCK})`
    // the Migrator makes its table (effect_sql_migrations) when it is missing; its probe for it
    // (`to_regclass`) cannot fail, which would abort this transaction
    const applied = yield* runMigrations({ loader })
    if (applied.length > 0) yield* Effect.logInfo(`migrations applied: ${applied.map(([id, name]) => `${id}_${name}`).join(", ")}`)
  })

/** Brings the schema up to date and imports `HOTEL_FILE` into an empty database (or one whose hotel is in an older format). */
export const MigrationsLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* HotelRepo
    const { hotelFile } = yield* AppConfig
    yield* Effect.gen(function*() {
      yield* migrateSchema(migrations)
      if (yield* repo.needsImport) {
        yield* repo.replace(yield* readHotelFile(hotelFile))
        yield* Effect.logInfo(`hotel imported from ${hotelFile}`)
      }
    }).pipe(sql.withTransaction, Effect.provideService(NoStatementDeadline, true))
  }).pipe(Tracing.withSpan("Startup.migrate"))
).pipe(Layer.provide(HotelRepo.layer))

/** A command's database (`src/bin`): `DATABASE_URL`, or the embedded one in `DATA_DIR`, migrated. */
export const CommandDatabaseLive = MigrationsLive.pipe(
  Layer.provideMerge(DatabaseLive),
  Layer.provideMerge(AppConfig.layer),
  Layer.provideMerge(NodeServices.layer)
)
