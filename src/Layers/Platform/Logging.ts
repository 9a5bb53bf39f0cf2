import { Cause, Context, Effect, type Fiber, Layer, Logger, Option, References, Tracer } from "effect"
import { maskSecrets } from "../../Domain/Redaction.js"
import { AppConfig } from "./AppConfig.js"

/** A log message as text: strings as they are, anything else as JSON (an array of several, one by one). */
const messageText = (message: unknown): string => {
  const parts = Array.isArray(message) ? message : [message]
  return parts.map((part) => typeof part === "string" ? part : part instanceof Error ? String(part) : safeJson(part)).join(" ")
}
const safeJson = (value: unknown) => {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

const masked = (value: unknown): unknown =>
  typeof value === "string"
    ? maskSecrets(value)
    : typeof value === "object" && value !== null
    ? maskSecrets(safeJson(value))
    : value

/**
 * The span the log was written in, if spans are being collected: while they are off, a span is a
 * no-op one, marked as not propagated, whose ids are "noop".
 */
const currentSpan = (fiber: Fiber.Fiber<unknown, unknown>): Option.Option<Tracer.Span> =>
  Option.filter(
    Context.getOption(fiber.context, Tracer.ParentSpan),
    (span): span is Tracer.Span => span._tag === "Span" && !Context.get(span.annotations, Tracer.DisablePropagation)
  )

/**
 * Lines written to stdout together, at most every `FLUSH_MS` or once `FLUSH_BYTES` are waiting,
 * and at exit: one write per request would be a system call per request. A crash (SIGKILL) loses
 * at most the last `FLUSH_MS` of lines.
 */
const FLUSH_MS = 100
const FLUSH_BYTES = 64 * 1024

export const bufferedStdout = (write: (chunk: string) => void = (chunk) => void process.stdout.write(chunk)) => {
  let pending = ""
  let timer: ReturnType<typeof setTimeout> | undefined
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    if (pending === "") return
    const chunk = pending
    pending = ""
    write(chunk)
  }
  process.once("exit", flush)
  return {
    line: (text: string) => {
      pending += text + "\n"
      if (pending.length >= FLUSH_BYTES) flush()
      else if (timer === undefined) timer = setTimeout(flush, FLUSH_MS).unref()
    },
    flush
  }
}

/**
 * One JSON object per line: `time`, `level`, `msg`, the annotations as fields of their own
 * (a request's `method`, `route`, `status`, `duration_ms`), `trace_id` and `span_id` while traces
 * are collected, and `cause` for a failure. Tokens, email addresses and phone numbers are masked.
 */
export const jsonLogger = (line: (text: string) => void) =>
  Logger.make<unknown, void>(({ cause, date, fiber, logLevel, message }) => {
    const entry: Record<string, unknown> = { time: date.toISOString(), level: logLevel.toUpperCase(), msg: maskSecrets(messageText(message)) }
    for (const [key, value] of Object.entries(fiber.getRef(References.CurrentLogAnnotations))) entry[key] = masked(value)
    const span = currentSpan(fiber)
    if (Option.isSome(span)) {
      entry.trace_id = span.value.traceId
      entry.span_id = span.value.spanId
    }
    if (cause.reasons.length > 0) entry.cause = maskSecrets(Cause.pretty(cause))
    line(JSON.stringify(entry))
  })

/** A request line's trace ids, 32 and 16 hex digits: unmasked, they would pass for a token or a phone number. */
const TRACE_ID_KEYS: ReadonlySet<string> = new Set(["trace_id", "span_id"])

/** The fiber as a logger sees it, its log annotations masked: Effect's pretty logger reads them from the fiber. */
const withMaskedAnnotations = (fiber: Fiber.Fiber<unknown, unknown>): Fiber.Fiber<unknown, unknown> => {
  const annotations = Object.fromEntries(
    Object.entries(fiber.getRef(References.CurrentLogAnnotations)).map(([key, value]) => [key, TRACE_ID_KEYS.has(key) ? value : masked(value)])
  )
  const getRef = <A>(ref: Context.Reference<A>): A =>
    ref === References.CurrentLogAnnotations ? annotations as A : fiber.getRef(ref)
  return new Proxy(fiber, { get: (target, key) => key === "getRef" ? getRef : Reflect.get(target, key) })
}

const consolePretty = Logger.consolePretty()

/** Effect's pretty logger, for a developer's terminal, with the same masking. */
const prettyLogger = Logger.make<unknown, void>((options) =>
  consolePretty.log({ ...options, message: maskSecrets(messageText(options.message)), fiber: withMaskedAnnotations(options.fiber) })
)

/** What the log line of a request says. */
export interface RequestEntry {
  readonly method: string
  /** The route template, or `unmatched`. */
  readonly route: string
  readonly status: number
  readonly durationMs: number
  /** The response's `traceparent`, naming the request's server span, while traces are collected. */
  readonly traceparent: string | undefined
}

/** Writes a request's log line. */
export type RequestLogLine = (entry: RequestEntry) => void

/** The trace and span ids of a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`). */
const traceIds = (traceparent: string | undefined) =>
  traceparent !== undefined && traceparent.length === 55
    ? { traceId: traceparent.slice(3, 35), spanId: traceparent.slice(36, 52) }
    : undefined

/** Through the current logger, as any log: annotations `method`, `route`, `status`, `duration_ms`. */
const requestViaLogger = (entry: RequestEntry): Effect.Effect<void> => {
  const ids = traceIds(entry.traceparent)
  return (entry.status >= 500 ? Effect.logError("request") : Effect.logInfo("request")).pipe(
    Effect.annotateLogs({
      method: entry.method,
      route: entry.route,
      status: entry.status,
      duration_ms: entry.durationMs,
      ...(ids === undefined ? {} : { trace_id: ids.traceId, span_id: ids.spanId })
    })
  )
}

/**
 * How a request's line is written; none until `LoggingLive` says (the tests' thousands of
 * requests stay quiet). In JSON, straight to the buffered output: through the logger it cost much
 * more CPU per small request (the annotations, the masking of fields that cannot hold a secret, a
 * serialisation of a whole object; docs/observability.md#logs); written here it is one template string.
 */
export const RequestLog = Context.Reference<RequestLogLine | undefined>("RequestLog", { defaultValue: () => undefined })

/**
 * `time.toISOString()` of the last millisecond asked: a busy server logs several requests a
 * millisecond, and the formatting was two thirds of a line's cost.
 */
const isoTimeCache = () => {
  let lastMs = Number.NaN
  let lastText = ""
  return (ms: number) => {
    if (ms !== lastMs) {
      lastMs = ms
      lastText = new Date(ms).toISOString()
    }
    return lastText
  }
}

/** The JSON line of a request, the fields the JSON logger would write, in this order. */
export const requestJsonLine = (entry: RequestEntry, isoTime: string): string => {
  const ids = traceIds(entry.traceparent)
  const trace = ids === undefined ? "" : `,"trace_id":"${ids.traceId}","span_id":"${ids.spanId}"`
  return `{"time":"${isoTime}","level":"${entry.status >= 500 ? "ERROR" : "INFO"}","msg":"request",` +
    `"method":${JSON.stringify(entry.method)},"route":${JSON.stringify(entry.route)},"status":${entry.status},` +
    `"duration_ms":${entry.durationMs}${trace}}`
}

/** The only logger of what it is provided to, in place of Effect's default ones or the pretty one `runEntry` sets. */
const onlyLogger = (logger: Logger.Logger<unknown, void>) => Logger.layer([logger])

/**
 * The one place the log format is chosen: `LOG_FORMAT` (JSON unless stdout is a terminal). It
 * provides the logger (`References.CurrentLoggers`) and `RequestLog`.
 */
export const LoggingLive = Layer.unwrap(Effect.map(AppConfig, ({ logFormat }) => {
  if (logFormat === "pretty") {
    // the request lines through the pretty logger, with the services (the logger, the console) it is built with
    const viaLogger = Layer.effect(
      RequestLog,
      Effect.map(Effect.context<never>(), (context): RequestLogLine => {
        const run = Effect.runSyncWith(context)
        return (entry) => run(requestViaLogger(entry))
      })
    )
    return viaLogger.pipe(Layer.provideMerge(onlyLogger(prettyLogger)))
  }
  const output = bufferedStdout()
  const isoTime = isoTimeCache()
  return Layer.merge(
    onlyLogger(jsonLogger(output.line)),
    Layer.succeed(RequestLog, (entry) => output.line(requestJsonLine(entry, isoTime(Date.now()))))
  )
}))
