import { Config, ConfigProvider, Context, Effect, Layer, Option, Redacted, Schema, SchemaIssue } from "effect"
import { isIP } from "node:net"
import * as path from "node:path"
import { plainAddress } from "../../Domain/ClientAddress.js"
import { defaultOutboxWorkerOptions } from "../../Domain/Outbox.js"

/** The variable `name` refused with `message`, as Effect's own checks refuse one. */
export const invalidConfig = (name: string, message: string) =>
  new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.Pointer([name], new SchemaIssue.InvalidValue({ message }))))

/**
 * A secret that may be left out; set but empty (`DATABASE_URL=` in an env file) counts as left out,
 * never as an empty database URL or an empty server secret.
 */
const optionalSecret = (name: string) =>
  Config.option(Config.Redacted(name)).pipe(Config.map(Option.filter((value) => Redacted.value(value).trim() !== "")))

/** A secret that may be left out, but when set, at least `min` characters long: a short one could be guessed. */
const optionalLongSecret = (name: string, min: number) =>
  optionalSecret(name).pipe(
    Config.mapEffect((secret) =>
      Option.isSome(secret) && Redacted.value(secret.value).length < min
        ? Effect.fail(invalidConfig(name, `must be at least ${min} characters`))
        : Effect.succeed(secret)
    )
  )

/** A whole number of `unit` from `min` to `max`, refused otherwise with a message naming them. */
const wholeNumber = (name: string, unit: string, min: number, max: number) =>
  Config.Int(name).pipe(
    Config.mapEffect((n) =>
      n >= min && n <= max ? Effect.succeed(n) : Effect.fail(invalidConfig(name, `must be a whole number of ${unit} from ${min} to ${max}`))
    )
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

/** A comma-separated list, each entry made canonical by `parse` or refused with `why`; unset or empty: none. */
const listOf = (name: string, parse: (entry: string) => string | undefined, why: (entry: string) => string) =>
  Config.String(name).pipe(
    Config.mapEffect((list) =>
      Effect.forEach(list.split(",").map((entry) => entry.trim()).filter((entry) => entry !== ""), (entry) => {
        const canonical = parse(entry)
        return canonical === undefined ? Effect.fail(invalidConfig(name, why(entry))) : Effect.succeed(canonical)
      })
    ),
    Config.withDefault<ReadonlyArray<string>>([])
  )

const origins = (name: string) =>
  listOf(name, originOf, (entry) => `${entry} is not an origin: scheme, host and port only, e.g. https://agent.example`)

const ipAddresses = (name: string) =>
  listOf(name, (entry) => (isIP(entry) === 0 ? undefined : plainAddress(entry)), (entry) => `${entry} is not an IP address`)

/** `DATABASE_TIMEOUT_MS`'s default: the longest a request waits for the database. */
export const DEFAULT_DATABASE_TIMEOUT_MS = 5000

/**
 * The connections the server holds at once: in all, well under the process's file limit, and per
 * client address, enough busy ones for the guests behind one address to load pages at once; idle
 * keep-alive connections make room for new ones (docs/decisions.md#connections, `limitConnections`).
 */
export const defaultConnectionLimits = { maxConnections: 2_000, maxConnectionsPerAddress: 64 } as const

/** Every setting of the service, read from the environment once, at start. */
export class AppConfig extends Context.Service<AppConfig, {
  readonly port: number
  readonly host: string
  readonly publicBaseUrl: string
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  /** A direct connection (no pooler) to `databaseUrl`'s database, for the outbox's `LISTEN`; unset behind a pooler: the outbox polls. */
  readonly databaseListenUrl: Option.Option<Redacted.Redacted>
  /** The longest wait for the database: a connection, a statement, a lock (docs/decisions.md#database-failures). */
  readonly databaseTimeoutMs: number
  readonly dataDir: string
  readonly smtpUrl: Option.Option<Redacted.Redacted>
  /** The sender of guest emails; unset, the hotel's name and email (`Mailer.layer`). */
  readonly mailFrom: Option.Option<string>
  readonly pmsUrl: Option.Option<string>
  /** Sent to the PMS as `Authorization: Bearer …`. */
  readonly pmsToken: Option.Option<Redacted.Redacted>
  readonly quoteTtlSeconds: number
  readonly environment: string
  readonly hotelFile: string
  readonly appSecret: Option.Option<Redacted.Redacted>
  readonly otlpEndpoint: Option.Option<string>
  /** Cost units per client address (and per token) and minute; 0: no limit (docs/limits.md). */
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
  /** Reservation intents per client address and clock hour, counted in the database (0: no limit). */
  readonly intentLimitPerHour: number
  /** Emails to one recipient within 24 hours; more are held back (0: no limit). */
  readonly mailLimitPerRecipientPerDay: number
  /** `json` (one object per line) or `pretty` (for a developer's terminal). */
  readonly logFormat: "json" | "pretty"
  /** Origins besides `publicBaseUrl`'s whose pages may call `/mcp` (browsers send `Origin`). */
  readonly mcpAllowedOrigins: ReadonlyArray<string>
  /**
   * The hotel's websites: they may load the booking widget (`/assets/booking-widget.js`, CORS) and
   * frame `/book`; `*` is any site. Empty: none.
   */
  readonly bookingWidgetOrigins: ReadonlyArray<string>
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
  /** Minutes without a channel message (a heartbeat counts) after which the channel counts as silent. */
  readonly channelStaleAfterMinutes: number
  /** While the channel is silent: go on selling on its last figures, or sell nothing more. */
  readonly channelStaleAction: "keep_selling" | "stop_selling"
  /** The scraper's bearer token for `GET /internal/metrics`; none: the path is not served. */
  readonly metricsToken: Option.Option<Redacted.Redacted>
  /** The only client addresses that may scrape the metrics; empty: any. */
  readonly metricsAllowedAddresses: ReadonlyArray<string>
}>()("AppConfig") {
  static readonly fromEnv = Effect.gen(function*() {
    const port = yield* Config.Port("PORT").pipe(Config.withDefault(3000))
    const host = yield* Config.String("HOST").pipe(Config.withDefault("127.0.0.1"))
    const publicBaseUrl = yield* Config.URL("PUBLIC_BASE_URL").pipe(
      Config.map((url) => url.toString().replace(/\/$/, "")),
      Config.withDefault(`http://${host}:${port}`)
    )
    const dataDir = path.resolve(yield* Config.String("DATA_DIR").pipe(Config.withDefault("./var")))
    return {
      port,
      host,
      publicBaseUrl,
      databaseUrl: yield* optionalSecret("DATABASE_URL"),
      databaseListenUrl: yield* optionalSecret("DATABASE_LISTEN_URL"),
      databaseTimeoutMs: yield* wholeNumber("DATABASE_TIMEOUT_MS", "milliseconds", 100, 60_000).pipe(Config.withDefault(DEFAULT_DATABASE_TIMEOUT_MS)),
      dataDir,
      smtpUrl: yield* optionalSecret("SMTP_URL"),
      mailFrom: yield* Config.option(Config.String("MAIL_FROM")),
      pmsUrl: yield* Config.option(Config.URL("PMS_URL").pipe(Config.map((url) => url.toString()))),
      pmsToken: yield* optionalSecret("PMS_TOKEN"),
      quoteTtlSeconds: yield* wholeNumber("QUOTE_TTL_SECONDS", "seconds", 10, 86_400).pipe(Config.withDefault(900)),
      environment: yield* Config.String("ENVIRONMENT").pipe(Config.withDefault("development")),
      hotelFile: path.resolve(yield* Config.String("HOTEL_FILE").pipe(Config.withDefault("data/hotel.json"))),
      appSecret: yield* optionalLongSecret("APP_SECRET", 32),
      otlpEndpoint: yield* Config.option(Config.URL("OTEL_EXPORTER_OTLP_ENDPOINT").pipe(Config.map((url) => url.toString()))),
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
      intentLimitPerHour: yield* wholeNumber("INTENT_LIMIT_PER_HOUR", "intents", 0, 1_000_000).pipe(Config.withDefault(60)),
      mailLimitPerRecipientPerDay: yield* wholeNumber("MAIL_LIMIT_PER_RECIPIENT_PER_DAY", "emails", 0, 1_000_000).pipe(
        Config.withDefault(20)
      ),
      logFormat: yield* Config.Literals(["json", "pretty"], "LOG_FORMAT").pipe(
        Config.withDefault(process.stdout.isTTY ? "pretty" as const : "json" as const)
      ),
      mcpAllowedOrigins: yield* origins("MCP_ALLOWED_ORIGINS"),
      bookingWidgetOrigins: yield* listOf("BOOKING_WIDGET_ORIGINS", (entry) => (entry === "*" ? entry : originOf(entry)), (entry) =>
        `${entry} is not an origin (scheme, host and port only, e.g. https://hotel.example) nor *`),
      trustedProxies: yield* ipAddresses("TRUSTED_PROXIES"),
      maxConnections: yield* wholeNumber("MAX_CONNECTIONS", "connections", 1, 1_000_000).pipe(
        Config.withDefault(defaultConnectionLimits.maxConnections)
      ),
      maxConnectionsPerAddress: yield* wholeNumber("MAX_CONNECTIONS_PER_ADDRESS", "connections", 1, 1_000_000).pipe(
        Config.withDefault(defaultConnectionLimits.maxConnectionsPerAddress)
      ),
      channelToken: yield* optionalLongSecret("CHANNEL_TOKEN", 32),
      channelAllowedAddresses: yield* ipAddresses("CHANNEL_ALLOWED_ADDRESSES"),
      channelStaleAfterMinutes: yield* wholeNumber("CHANNEL_STALE_AFTER_MINUTES", "minutes", 1, 10_080).pipe(Config.withDefault(60)),
      channelStaleAction: yield* Config.Literals(["keep_selling", "stop_selling"], "CHANNEL_STALE_ACTION").pipe(
        Config.withDefault("keep_selling" as const)
      ),
      metricsToken: yield* optionalLongSecret("METRICS_TOKEN", 32),
      metricsAllowedAddresses: yield* ipAddresses("METRICS_ALLOWED_ADDRESSES")
    }
  })

  static readonly layer = Layer.effect(AppConfig, AppConfig.fromEnv)

  /** Settings for tests: the defaults, overridden field by field. */
  static readonly InMemory = (overrides: Partial<typeof AppConfig.Service> = {}) =>
    Layer.effect(
      AppConfig,
      AppConfig.fromEnv.pipe(
        Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown({})),
        Effect.map((defaults) => ({ ...defaults, ...overrides })),
        Effect.orDie
      )
    )
}
