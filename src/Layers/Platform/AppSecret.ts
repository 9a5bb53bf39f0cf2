import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { createHmac, randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { AppConfig, invalidConfig } from "./AppConfig.js"
import { PRIVATE_FILE } from "./PrivateFiles.js"
import * as Tracing from "./Tracing.js"

/**
 * What the database keeps of its secret: an HMAC of a fixed label keyed with it, which tells two
 * secrets apart without storing either (the label is unlike any token's `purpose:nonce`).
 */
export const secretFingerprint = (secret: Redacted.Redacted<string>) =>
  createHmac("sha256", Redacted.value(secret)).update("app-secret-fingerprint").digest("hex")

/**
 * The database's fingerprint, after claiming it for `fingerprint` when it has none yet: the first
 * instance writes it, and of several starting at once one insert wins and all compare with it.
 */
const claimFingerprint = (fingerprint: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const claim = SqlSchema.void({
      Request: Schema.String,
      execute: (claimed) => sql`INSERT INTO app_secret (fingerprint) VALUES (${claimed}) ON CONFLICT DO NOTHING`
    })
    const stored = SqlSchema.findOne({
      Request: Schema.Void,
      Result: Schema.Struct({ fingerprint: Schema.String }),
      execute: () => sql`SELECT fingerprint FROM app_secret`
    })
    yield* claim(fingerprint)
    return (yield* stored(undefined)).fingerprint
  }).pipe(Effect.orDie, Tracing.withSpan("AppSecret.claimFingerprint"))

/**
 * The server secret tokens are derived with: `APP_SECRET` (required with `DATABASE_URL`, where
 * several instances share the database), or one generated once in `DATA_DIR`. Either way it must
 * be the secret the database was set up with, else the start is refused: tokens issued by one
 * instance would not verify, nor links given again match, on another.
 */
export class AppSecret extends Context.Service<AppSecret, Redacted.Redacted<string>>()("AppSecret") {
  static readonly layer = Layer.effect(
    AppSecret,
    Effect.gen(function*() {
      const config = yield* AppConfig
      const file = path.join(config.dataDir, "app-secret")
      if (Option.isSome(config.databaseUrl) && Option.isNone(config.appSecret)) {
        // before APP_SECRET was required, an instance on DATABASE_URL signed with the file's secret
        const upgrade = fs.existsSync(file) ? `; to keep the links already sent working, set it to the contents of ${file}` : ""
        return yield* Effect.fail(invalidConfig(
          "APP_SECRET",
          "APP_SECRET is required when DATABASE_URL is set: every instance on that database must use the same secret " +
            `(at least 32 characters, e.g. from \`openssl rand -base64 32\`)${upgrade}`
        ))
      }
      const secret = Option.isSome(config.appSecret) ? config.appSecret.value : yield* Effect.sync(() => {
        fs.mkdirSync(config.dataDir, { recursive: true })
        try {
          // exclusive create: of several instances starting at once, one writes and all read it
          fs.writeFileSync(file, randomBytes(32).toString("base64url"), { flag: "wx", mode: PRIVATE_FILE })
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
        }
        fs.chmodSync(file, PRIVATE_FILE) // an older start may have left it readable by others
        return Redacted.make(fs.readFileSync(file, "utf8").trim())
      })
      const fingerprint = secretFingerprint(secret)
      if ((yield* claimFingerprint(fingerprint)) !== fingerprint) {
        const source = Option.isSome(config.appSecret) ? "APP_SECRET" : `the generated APP_SECRET in ${file}`
        return yield* Effect.fail(invalidConfig(
          "APP_SECRET",
          `${source} is not the secret this database was set up with, so the tokens and links of this instance ` +
            "would not match the others': start it with the database's APP_SECRET"
        ))
      }
      return secret
    })
  )

  static readonly InMemory = Layer.succeed(AppSecret, Redacted.make("test-secret-test-secret-test-secret"))
}
