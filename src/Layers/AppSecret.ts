import { Context, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { AppConfig } from "../Services/AppConfig.js"

/** The server secret tokens are derived with: `APP_SECRET`, or one generated once in `DATA_DIR`. */
export class AppSecret extends Context.Tag("AppSecret")<AppSecret, Redacted.Redacted<string>>() {
  static readonly Live = Layer.effect(
    AppSecret,
    Effect.gen(function*() {
      const config = yield* AppConfig
      if (Option.isSome(config.appSecret)) return config.appSecret.value
      const file = path.join(config.dataDir, "app-secret")
      return yield* Effect.sync(() => {
        fs.mkdirSync(config.dataDir, { recursive: true })
        try {
          // exclusive create: of several instances starting at once, one writes and all read it
          fs.writeFileSync(file, randomBytes(32).toString("base64url"), { flag: "wx", mode: 0o600 })
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
        }
        fs.chmodSync(file, 0o600) // an older start may have left it readable by others
        return Redacted.make(fs.readFileSync(file, "utf8").trim())
      })
    })
  )

  static readonly Test = Layer.succeed(AppSecret, Redacted.make("test-secret-test-secret-test-secret"))
}
