import { Config, ConfigError, ConfigProvider, Context, Effect, Either, Layer, Option, Redacted } from "effect"
import { isIP } from "node:net"
import * as path from "node:path"
import { plainAddress } from "../../Domain/ClientAddress.js"
import { defaultOutboxWorkerOptions } from "../../Domain/Outbox.js"

/**
 * A secret that may be left out; set but empty (`DATABASE_URL=` in an env file) counts as left out,
 * never as an empty database URL or an empty server secret.
 */
const optionalSecret = (name: string) =>
  Config.option(Config.redacted(name)).pipe(Config.map(Option.filter((value) => Redacted.value(value).trim() !== "")))

/** A secret that may be left out, but when set, at least `min` characters long: a short one could be guessed. */
const optionalLongSecret = (name: string, min: number) =>
  optionalSecret(name).pipe(
    Config.mapOrFail((secret) =>
      Option.isSome(secret) && Redacted.value(secret.value).length < min
        ? Either.left(ConfigError.InvalidData([name], `must be at least ${min} characters`))
        : Either.right(secret)
    )
  )

/** A whole number of `unit` from `min` to `max`, refused otherwise with a message naming them. */
const wholeNumber = (name: string, unit: string, min: number, max: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `must be a whole number of ${unit} from ${min} to ${max}`, validation: (n) => n >= min && n <= max })
  )

/** The origin of an http(s) URL that is nothing but one (`https://agent.example`), as a browser sends it in `Origin`. */
const originOf = (text: string): string | undefined => {
  try {
    const url = new URL(text)
    const bare = url.username === "" && url.password === "" && url.pathname === "/" && url.search === "" && url.hash === ""
    return bare && (url.protocol === "https:" || url.protocol === "http:") ? url.origin : undefined
  } catch {
    return undefined
  }
}

/** Comma-separated origins; none when unset or empty. */
/** A comma-separated list, each entry made canonical by `parse` or refused with `why`; unset or empty: none. */
const listOf = (name: string, parse: (entry: string) => string | undefined, why: (entry: string) => string) =>
  Config.string(name).pipe(
    Config.mapOrFail((list) =>
      Either.all(
        list.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "").map((entry) =>
          Either.fromNullable(parse(entry), () => ConfigError.InvalidData([], why(entry)))
        )
      )
    ),
    Config.withDefault([])
  )

const origins = (name: string) =>
  listOf(name, originOf, (entry) => `${entry} is not an origin: scheme, host and port only, e.g. https://agent.example`)

const ipAddresses = (name: string) =>
  listOf(name, (entry) => (isIP(entry) === 0 ? undefined : plainAddress(entry)), (entry) => `${entry} is not an IP address`)

/** `DATABASE_TIMEOUT_MS`'s default: the longest a request waits for the database. */
export const DEFAULT_DATABASE_TIMEOUT_MS = 5000

/**
 * The connections the server holds at once: in all, well under the process's file limit, and per
 * client address, enough for a household or an office behind one address (DESIGN §13).
 */
export const defaultConnectionLimits = { maxConnections: 2_000, maxConnectionsPerAddress: 64 } as const

/** Every setting of the service, read from the environment once, at start. */
export class AppConfig extends Context.Tag("AppConfig")<AppConfig, {
  readonly port: number
  readonly host: string
  readonly publicBaseUrl: string
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  /** The longest wait for the database: a connection, a statement, a lock (DESIGN §11). */
  readonly databaseTimeoutMs: number
  readonly dataDir: string
  readonly smtpUrl: Option.Option<Redacted.Redacted>
  /** The sender of guest emails; unset, the hotel's name and email (`Mailer.Default`). */
  readonly mailFrom: Option.Option<string>
  readonly pmsUrl: Option.Option<string>
  /** Sent to the PMS as `Authorization: Bearer …`. */
  readonly pmsToken: Option.Option<Redacted.Redacted>
  readonly quoteTtlSeconds: number
  readonly environment: string
  readonly hotelFile: string
  readonly appSecret: Option.Option<Redacted.Redacted>
  readonly otlpEndpoint: Option.Option<string>
  /** Cost units per client address (and per token) and minute; 0: no limit (README, "Limits"). */
  readonly rateLimitPerMinute: number
  readonly quoteRetentionDays: number
  /** Days after its guest link lapsed that a reservation never completed keeps the personal data. */
  readonly pendingRetentionDays: number
  readonly outboxMaxAttempts: number
  readonly outboxConcurrency: number
  /** Completed reservations per client address and hour, counted in the database (0: no limit). */
  readonly bookingLimitPerHour: number
  /** Room-nights one client address completes within 24 hours, counted with the completions (0: no limit). */
  readonly roomNightsPerAddressPerDay: number
  /** Emails to one recipient within 24 hours; more are held back (0: no limit). */
  readonly mailLimitPerRecipientPerDay: number
  /** `json` (one object per line) or `pretty` (for a developer's terminal). */
  readonly logFormat: "json" | "pretty"
  /** Origins besides `publicBaseUrl`'s whose pages may call `/mcp` (browsers send `Origin`). */
  readonly mcpAllowedOrigins: ReadonlyArray<string>
  /** Addresses of the reverse proxies in front, whose `X-Forwarded-For` names the client. */
  readonly trustedProxies: ReadonlyArray<string>
  /** Connections held at once; one more is closed at once. */
  readonly maxConnections: number
  /** Connections held at once from one client address (the `trustedProxies` are exempt). */
  readonly maxConnectionsPerAddress: number
  /** The hotel's systems' bearer token for the channel interface (`/internal/...`); none: the interface is not served. */
  readonly channelToken: Option.Option<Redacted.Redacted>
  /** The only client addresses that may call the channel interface; empty: any. */
  readonly channelAllowedAddresses: ReadonlyArray<string>
}>() {
  static readonly fromEnv = Effect.gen(function*() {
    const port = yield* Config.port("PORT").pipe(Config.withDefault(3000))
    const host = yield* Config.string("HOST").pipe(Config.withDefault("127.0.0.1"))
    const publicBaseUrl = yield* Config.url("PUBLIC_BASE_URL").pipe(
      Config.map((url) => url.toString().replace(/\/$/, "")),
      Config.withDefault(`http://${host}:${port}`)
    )
    const dataDir = path.resolve(yield* Config.string("DATA_DIR").pipe(Config.withDefault("./var")))
    return {
      port,
      host,
      publicBaseUrl,
      databaseUrl: yield* optionalSecret("DATABASE_URL"),
      databaseTimeoutMs: yield* wholeNumber("DATABASE_TIMEOUT_MS", "milliseconds", 100, 60_000).pipe(Config.withDefault(DEFAULT_DATABASE_TIMEOUT_MS)),
      dataDir,
      smtpUrl: yield* optionalSecret("SMTP_URL"),
      mailFrom: yield* Config.option(Config.string("MAIL_FROM")),
      pmsUrl: yield* Config.option(Config.url("PMS_URL").pipe(Config.map((url) => url.toString()))),
      pmsToken: yield* optionalSecret("PMS_TOKEN"),
      quoteTtlSeconds: yield* wholeNumber("QUOTE_TTL_SECONDS", "seconds", 10, 86_400).pipe(Config.withDefault(900)),
      environment: yield* Config.string("ENVIRONMENT").pipe(Config.withDefault("development")),
      hotelFile: path.resolve(yield* Config.string("HOTEL_FILE").pipe(Config.withDefault("data/hotel.json"))),
      appSecret: yield* optionalLongSecret("APP_SECRET", 32),
      otlpEndpoint: yield* Config.option(Config.url("OTEL_EXPORTER_OTLP_ENDPOINT").pipe(Config.map((url) => url.toString()))),
      quoteRetentionDays: yield* wholeNumber("QUOTE_RETENTION_DAYS", "days", 1, 3650).pipe(Config.withDefault(30)),
      pendingRetentionDays: yield* wholeNumber("PENDING_RETENTION_DAYS", "days", 1, 3650).pipe(Config.withDefault(30)),
      rateLimitPerMinute: yield* wholeNumber("RATE_LIMIT_PER_MINUTE", "cost units", 0, 1_000_000).pipe(Config.withDefault(600)),
      outboxMaxAttempts: yield* wholeNumber("OUTBOX_MAX_ATTEMPTS", "attempts", 1, 100).pipe(
        Config.withDefault(defaultOutboxWorkerOptions.maxAttempts)
      ),
      outboxConcurrency: yield* wholeNumber("OUTBOX_CONCURRENCY", "jobs", 1, 64).pipe(
        Config.withDefault(defaultOutboxWorkerOptions.concurrency)
      ),
      bookingLimitPerHour: yield* wholeNumber("BOOKING_LIMIT_PER_HOUR", "completions", 0, 1_000_000).pipe(Config.withDefault(10)),
      roomNightsPerAddressPerDay: yield* wholeNumber("ROOM_NIGHTS_PER_ADDRESS_PER_DAY", "room-nights", 0, 1_000_000).pipe(
        Config.withDefault(60)
      ),
      mailLimitPerRecipientPerDay: yield* wholeNumber("MAIL_LIMIT_PER_RECIPIENT_PER_DAY", "emails", 0, 1_000_000).pipe(
        Config.withDefault(20)
      ),
      logFormat: yield* Config.literal("json", "pretty")("LOG_FORMAT").pipe(
        Config.withDefault(process.stdout.isTTY ? "pretty" as const : "json" as const)
      ),
      mcpAllowedOrigins: yield* origins("MCP_ALLOWED_ORIGINS"),
      trustedProxies: yield* ipAddresses("TRUSTED_PROXIES"),
      maxConnections: yield* wholeNumber("MAX_CONNECTIONS", "connections", 1, 1_000_000).pipe(
        Config.withDefault(defaultConnectionLimits.maxConnections)
      ),
      maxConnectionsPerAddress: yield* wholeNumber("MAX_CONNECTIONS_PER_ADDRESS", "connections", 1, 1_000_000).pipe(
        Config.withDefault(defaultConnectionLimits.maxConnectionsPerAddress)
      ),
      channelToken: yield* optionalLongSecret("CHANNEL_TOKEN", 32),
      channelAllowedAddresses: yield* ipAddresses("CHANNEL_ALLOWED_ADDRESSES")
    }
  })

  static readonly Default = Layer.effect(AppConfig, AppConfig.fromEnv)

  /** Settings for tests: the defaults, overridden field by field. */
  static readonly InMemory = (overrides: Partial<Context.Tag.Service<AppConfig>> = {}) =>
    Layer.effect(
      AppConfig,
      AppConfig.fromEnv.pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map())),
        Effect.map((defaults) => ({ ...defaults, ...overrides })),
        Effect.orDie
      )
    )
}
