import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { AppSecret, secretFingerprint } from "../../../src/Layers/Platform/AppSecret.js"
import { Repositories } from "../../../src/Composition.js"
import { AppConfig } from "../../../src/Layers/Platform/AppConfig.js"
import { poolOn, temporaryDataDir, testDatabaseUrl } from "../../support/database.js"

const secretA = Redacted.make("a".repeat(16) + "-first-secret-of-32+")
const secretB = Redacted.make("b".repeat(16) + "-other-secret-of-32+")

/** An instance starting on the database at `url` (its own pool) with these settings: the secret it runs with, or why it was refused. */
const start = (url: Redacted.Redacted, config: Partial<typeof AppConfig.Service>) =>
  Layer.build(
    AppSecret.layer.pipe(
      Layer.provide(Repositories),
      Layer.provide(poolOn(url)),
      Layer.provide(Layer.merge(AppConfig.InMemory({ hotelFile: path.resolve("data/hotel.json"), ...config }), NodeServices.layer))
    )
  ).pipe(Effect.map(Context.get(AppSecret)), Effect.scoped)

const modeOf = (file: string) => fs.statSync(file).mode & 0o777

const storedFingerprints = (url: Redacted.Redacted) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ fingerprint: string }>`SELECT fingerprint FROM app_secret`).pipe(
    Effect.map((rows) => rows.map((row) => row.fingerprint)),
    Effect.provide(poolOn(url))
  )

describe("one secret per database", () => {
  it.live("instances on one database share its secret; one started with another APP_SECRET is refused, naming it", () =>
    Effect.gen(function*() {
      const url = yield* testDatabaseUrl
      const withSecret = (secret: Redacted.Redacted<string>) => ({ databaseUrl: Option.some(url), appSecret: Option.some(secret) })
      // two first instances at once: one writes the fingerprint, both agree with it
      const [first, second] = yield* Effect.all([start(url, withSecret(secretA)), start(url, withSecret(secretA))], { concurrency: 2 })
      expect([Redacted.value(first), Redacted.value(second)]).toEqual([Redacted.value(secretA), Redacted.value(secretA)])

      const refused = yield* start(url, withSecret(secretB)).pipe(Effect.flip)
      expect(String(refused)).toContain("APP_SECRET")
      expect(String(refused)).toContain("not the secret this database was set up with")
      expect(String(refused)).not.toContain(Redacted.value(secretB))

      // the database keeps a keyed fingerprint: neither the secret nor its plain hash
      const stored = yield* storedFingerprints(url)
      expect(stored).toEqual([secretFingerprint(secretA)])
      expect(stored[0]).not.toContain(Redacted.value(secretA))
      expect(stored[0]).not.toBe(createHash("sha256").update(Redacted.value(secretA)).digest("hex"))
      expect(Redacted.value(yield* start(url, withSecret(secretA)))).toBe(Redacted.value(secretA))
    }), { timeout: 60_000 })

  it.live("APP_SECRET is required with DATABASE_URL", () =>
    Effect.gen(function*() {
      const url = yield* testDatabaseUrl
      const refused = yield* start(url, { databaseUrl: Option.some(url), appSecret: Option.none() }).pipe(Effect.flip)
      expect(String(refused)).toContain("APP_SECRET is required when DATABASE_URL is set")
      expect(yield* storedFingerprints(url)).toEqual([])
    }), { timeout: 60_000 })

  it.live("an instance upgraded from a generated secret is told which secret keeps its links working", () =>
    Effect.gen(function*() {
      const url = yield* testDatabaseUrl
      const dataDir = yield* temporaryDataDir
      const file = path.join(dataDir, "app-secret")
      fs.writeFileSync(file, "the-secret-an-older-version-generated-here")
      const refused = yield* start(url, { databaseUrl: Option.some(url), appSecret: Option.none(), dataDir }).pipe(Effect.flip)
      expect(String(refused)).toContain(`to keep the links already sent working, set it to the contents of ${file}`)
      expect(String(refused)).not.toContain("the-secret-an-older-version-generated-here")
    }), { timeout: 60_000 })

  it.live("without DATABASE_URL the secret is generated once in DATA_DIR, and checked against the database too", () =>
    Effect.gen(function*() {
      const url = yield* testDatabaseUrl // standing for the embedded database of DATA_DIR
      const dataDir = yield* temporaryDataDir
      const embedded = { databaseUrl: Option.none(), appSecret: Option.none(), dataDir }
      const generated = Redacted.value(yield* start(url, embedded))
      expect(generated).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(Redacted.value(yield* start(url, embedded))).toBe(generated)

      fs.rmSync(path.join(dataDir, "app-secret")) // a new secret would be generated: its links would not match the stored ones
      const refused = yield* start(url, embedded).pipe(Effect.flip)
      expect(String(refused)).toContain(`the generated APP_SECRET in ${path.join(dataDir, "app-secret")} is not the secret`)
    }), { timeout: 60_000 })

  it.live("the generated secret is a file only the service's user can read", () =>
    Effect.gen(function*() {
      const url = yield* testDatabaseUrl
      const dataDir = yield* temporaryDataDir
      const secret = yield* start(url, { databaseUrl: Option.none(), appSecret: Option.none(), dataDir })
      const file = path.join(dataDir, "app-secret")
      expect(fs.readFileSync(file, "utf8")).toBe(Redacted.value(secret))
      expect(modeOf(file)).toBe(0o600)
    }), { timeout: 60_000 })

  it.live("a generated secret left readable by others by an older start is made the user's alone, and kept", () =>
    Effect.gen(function*() {
      const url = yield* testDatabaseUrl
      const dataDir = yield* temporaryDataDir
      const file = path.join(dataDir, "app-secret")
      fs.writeFileSync(file, "an-older-generated-secret-of-43-characters-x", { mode: 0o644 })
      fs.chmodSync(file, 0o644)
      const secret = yield* start(url, { databaseUrl: Option.none(), appSecret: Option.none(), dataDir })
      expect(Redacted.value(secret)).toBe("an-older-generated-secret-of-43-characters-x")
      expect(modeOf(file)).toBe(0o600)
    }), { timeout: 60_000 })
})
