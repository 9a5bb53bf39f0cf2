import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FiberRef, HashSet, Layer, Logger, Option, Redacted } from "effect"
import { DatabaseLive } from "../../../src/Layers/Persistence/Database.js"
import { AppConfig } from "../../../src/Layers/Platform/AppConfig.js"
import { poolOn, testDatabaseUrl } from "../../support/database.js"

/** Starts the pool on `url` as `DATABASE_URL`: the warnings logged meanwhile, and the role it connected as. */
const startOn = (url: Redacted.Redacted) =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => {
      if (logLevel._tag === "Warning") warnings.push(String(message))
    })
    const role = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ name: string }>`SELECT current_user AS name`).pipe(
      Effect.provide(DatabaseLive.pipe(Layer.provide(AppConfig.InMemory({ databaseUrl: Option.some(url) })))),
      Effect.locally(FiberRef.currentLoggers, HashSet.make<ReadonlyArray<Logger.Logger<unknown, any>>>(logger)),
      Effect.scoped
    )
    return { warnings, role: role[0]?.name }
  })

describe("DatabaseLive with DATABASE_URL", () => {
  it.scopedLive("connects as given, and warns at start when that role is a superuser", () =>
    Effect.gen(function*() {
      const url = yield* testDatabaseUrl // the test server's superuser, postgres
      const { role, warnings } = yield* startOn(url)
      expect(warnings).toEqual([
        `DATABASE_URL connects as ${role}, a superuser: connect as a role that owns the service's database and is not a superuser`
      ])
    }), 30_000)

  it.scopedLive("says nothing of a role that is not a superuser", () =>
    Effect.gen(function*() {
      const url = yield* testDatabaseUrl
      const name = new URL(Redacted.value(url)).pathname.slice(1)
      const roleName = `${name}_app`
      const admin = poolOn(url)
      const asAdmin = (statement: string) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(Effect.provide(admin))
      yield* Effect.acquireRelease(
        asAdmin(`CREATE ROLE ${roleName} LOGIN NOSUPERUSER`),
        () => asAdmin(`DROP ROLE IF EXISTS ${roleName}`).pipe(Effect.orDie)
      )
      const asRole = new URL(Redacted.value(url))
      asRole.username = roleName
      expect(yield* startOn(Redacted.make(asRole.toString()))).toEqual({ role: roleName, warnings: [] })
    }), 30_000)
})
