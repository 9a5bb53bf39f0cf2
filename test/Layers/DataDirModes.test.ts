import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AppSecret } from "../../src/Layers/AppSecret.js"
import { AppConfig } from "../../src/Services/AppConfig.js"
import { temporaryDataDir } from "../support/database.js"

const modeOf = (file: string) => fs.statSync(file).mode & 0o777

const generatedSecret = (dataDir: string) =>
  AppSecret.pipe(Effect.provide(AppSecret.Live.pipe(Layer.provide(AppConfig.layerTest({ dataDir, appSecret: Option.none() })))))

describe("the secret generated in DATA_DIR", () => {
  it.scopedLive("is a file only the service's user can read", () =>
    Effect.gen(function*() {
      const dataDir = yield* temporaryDataDir
      const secret = yield* generatedSecret(dataDir)
      const file = path.join(dataDir, "app-secret")
      expect(fs.readFileSync(file, "utf8")).toBe(Redacted.value(secret))
      expect(modeOf(file)).toBe(0o600)
    }))

  it.scopedLive("left readable by others by an older start, it is made the user's alone, and kept", () =>
    Effect.gen(function*() {
      const dataDir = yield* temporaryDataDir
      const file = path.join(dataDir, "app-secret")
      fs.writeFileSync(file, "an-older-generated-secret-of-43-characters-x", { mode: 0o644 })
      fs.chmodSync(file, 0o644)
      expect(Redacted.value(yield* generatedSecret(dataDir))).toBe("an-older-generated-secret-of-43-characters-x")
      expect(modeOf(file)).toBe(0o600)
    }))
})
