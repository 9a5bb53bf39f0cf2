import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Redacted } from "effect"
import { AppConfig } from "../../../src/Layers/Platform/AppConfig.js"

const withEnv = (env: Record<string, string>) =>
  AppConfig.fromEnv.pipe(Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env })))

describe("AppConfig", () => {
  it.effect("has working defaults: embedded database, files for mail, no PMS", () =>
    Effect.gen(function*() {
      const config = yield* withEnv({})
      expect(config).toMatchObject({ port: 3000, host: "127.0.0.1", publicBaseUrl: "http://127.0.0.1:3000", quoteTtlSeconds: 900, environment: "development" })
      expect(Option.isNone(config.databaseUrl)).toBe(true)
      expect(Option.isNone(config.smtpUrl)).toBe(true)
      expect(Option.isNone(config.pmsUrl)).toBe(true)
      expect(config.dataDir).toMatch(/\/var$/)
      expect(config).toMatchObject({ outboxMaxAttempts: 20, outboxConcurrency: 4, quoteRetentionDays: 30, pendingRetentionDays: 30, bookingLimitPerHour: 10, mailLimitPerRecipientPerDay: 20 })
      expect(config.intentLimitPerHour).toBe(60)
    }))

  it.effect("an empty DATABASE_URL, SMTP_URL or APP_SECRET counts as unset, never as an empty value", () =>
    Effect.gen(function*() {
      const config = yield* withEnv({ DATABASE_URL: "", SMTP_URL: " ", APP_SECRET: "" })
      expect([config.databaseUrl, config.smtpUrl, config.appSecret].every(Option.isNone)).toBe(true)
    }))

  it.effect("any empty variable counts as unset: PORT= and HOST= take their defaults", () =>
    Effect.gen(function*() {
      expect(yield* withEnv({ PORT: "", HOST: "", PUBLIC_BASE_URL: "" })).toMatchObject({
        port: 3000,
        host: "127.0.0.1",
        publicBaseUrl: "http://127.0.0.1:3000"
      })
    }))

  it.effect("reads every variable, secrets redacted", () =>
    Effect.gen(function*() {
      const config = yield* withEnv({
        PORT: "8080",
        HOST: "0.0.0.0",
        PUBLIC_BASE_URL: "https://book.belle-rive.example/",
        DATABASE_URL: "postgres://u:secret@db/hotel",
        APP_SECRET: "s".repeat(32),
        QUOTE_TTL_SECONDS: "600",
        ENVIRONMENT: "production",
        OUTBOX_MAX_ATTEMPTS: "12",
        OUTBOX_CONCURRENCY: "2",
        BOOKING_LIMIT_PER_HOUR: "0",
        INTENT_LIMIT_PER_HOUR: "5",
        MAIL_LIMIT_PER_RECIPIENT_PER_DAY: "5"
      })
      expect(config.publicBaseUrl).toBe("https://book.belle-rive.example")
      expect(Redacted.value(Option.getOrThrow(config.databaseUrl))).toBe("postgres://u:secret@db/hotel")
      expect(String(config.databaseUrl)).not.toContain("secret")
      expect(Redacted.value(Option.getOrThrow(config.appSecret))).toHaveLength(32)
      expect(config).toMatchObject({ port: 8080, host: "0.0.0.0", quoteTtlSeconds: 600, environment: "production", outboxMaxAttempts: 12, outboxConcurrency: 2 })
      expect(config).toMatchObject({ bookingLimitPerHour: 0, intentLimitPerHour: 5, mailLimitPerRecipientPerDay: 5 })
      expect((yield* withEnv({ INTENT_LIMIT_PER_HOUR: "0" })).intentLimitPerHour).toBe(0)
    }))

  it.effect("PMS_TOKEN is a redacted secret; MCP_ALLOWED_ORIGINS a list of origins as browsers send them", () =>
    Effect.gen(function*() {
      const config = yield* withEnv({ PMS_TOKEN: "pms-secret", MCP_ALLOWED_ORIGINS: "https://Agent.example, http://127.0.0.1:6274/ ,," })
      expect(Redacted.value(Option.getOrThrow(config.pmsToken))).toBe("pms-secret")
      expect(String(config.pmsToken)).not.toContain("pms-secret")
      expect(config.mcpAllowedOrigins).toEqual(["https://agent.example", "http://127.0.0.1:6274"])
      expect((yield* withEnv({})).mcpAllowedOrigins).toEqual([])
      expect((yield* withEnv({ MCP_ALLOWED_ORIGINS: "" })).mcpAllowedOrigins).toEqual([])
      expect((yield* withEnv({ TRUSTED_PROXIES: " 10.0.0.1, ::FFFF:10.0.0.2,2001:DB8::1 " })).trustedProxies).toEqual(["10.0.0.1", "10.0.0.2", "2001:db8::1"])
    }))

  it.effect("the metrics are served only with METRICS_TOKEN; a silent channel is kept selling unless CHANNEL_STALE_ACTION says stop", () =>
    Effect.gen(function*() {
      const defaults = yield* withEnv({})
      expect(Option.isNone(defaults.metricsToken)).toBe(true)
      expect(defaults).toMatchObject({ metricsAllowedAddresses: [], channelStaleAfterMinutes: 60, channelStaleAction: "keep_selling" })
      const set = yield* withEnv({
        METRICS_TOKEN: "metrics-token-of-the-scraper-0123456789",
        METRICS_ALLOWED_ADDRESSES: "10.0.0.9, ::ffff:10.0.0.8",
        CHANNEL_STALE_AFTER_MINUTES: "15",
        CHANNEL_STALE_ACTION: "stop_selling"
      })
      expect(Redacted.value(Option.getOrThrow(set.metricsToken))).toBe("metrics-token-of-the-scraper-0123456789")
      expect(String(set.metricsToken)).not.toContain("metrics-token")
      expect(set).toMatchObject({ metricsAllowedAddresses: ["10.0.0.9", "10.0.0.8"], channelStaleAfterMinutes: 15, channelStaleAction: "stop_selling" })
    }))

  for (const [name, value] of [["METRICS_TOKEN", "x".repeat(31)], ["METRICS_ALLOWED_ADDRESSES", "scraper.internal"], ["CHANNEL_STALE_AFTER_MINUTES", "0"], ["CHANNEL_STALE_ACTION", "stop"], ["PORT", "abc"], ["PORT", "70000"], ["QUOTE_TTL_SECONDS", "5"], ["PUBLIC_BASE_URL", "not a url"], ["PMS_URL", "::"], ["OUTBOX_MAX_ATTEMPTS", "0"], ["OUTBOX_CONCURRENCY", "0"], ["APP_SECRET", "x".repeat(31)], ["PENDING_RETENTION_DAYS", "0"], ["BOOKING_LIMIT_PER_HOUR", "-1"], ["INTENT_LIMIT_PER_HOUR", "-1"], ["INTENT_LIMIT_PER_HOUR", "ten"], ["MAIL_LIMIT_PER_RECIPIENT_PER_DAY", "1.5"], ["MCP_ALLOWED_ORIGINS", "https://agent.example/mcp"], ["MCP_ALLOWED_ORIGINS", "https://ok.example,*"], ["MCP_ALLOWED_ORIGINS", "null"], ["MCP_ALLOWED_ORIGINS", "file:///tmp"], ["TRUSTED_PROXIES", "proxy.internal"], ["TRUSTED_PROXIES", "10.0.0.0/8"]]) {
    it.effect(`a wrong ${name} (${value}) stops the start with a message naming it`, () =>
      Effect.gen(function*() {
        const error = yield* withEnv({ [name!]: value! }).pipe(Effect.flip)
        expect(String(error)).toContain(name)
      }))
  }
})
