import { Cause, Context, Effect, FiberRef, FiberRefs, HashMap, HashSet, Layer, Logger, Option, Runtime, Tracer } from "effect"
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

/** The span the log was written in, if spans are being collected. */
const currentSpan = (context: FiberRefs.FiberRefs): Option.Option<Tracer.Span> =>
  Option.filter(
    Context.getOption(FiberRefs.getOrDefault(context, FiberRef.currentContext), Tracer.ParentSpan),
    (span): span is Tracer.Span => span._tag === "Span" && span.traceId !== ""
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
  Logger.make<unknown, void>(({ annotations, cause, context, date, logLevel, message }) => {
    const entry: Record<string, unknown> = { time: date.toISOString(), level: logLevel.label, msg: maskSecrets(messageText(message)) }
    for (const [key, value] of annotations) entry[key] = masked(value)
    const span = currentSpan(context)
    if (Option.isSome(span)) {
      entry.trace_id = span.value.traceId
      entry.span_id = span.value.spanId
    }
    if (!Cause.isEmpty(cause)) entry.cause = maskSecrets(Cause.pretty(cause, { renderErrorCause: true }))
    line(JSON.stringify(entry))
  })

/** A request line's trace ids, 32 and 16 hex digits: unmasked, they would pass for a token or a phone number. */
const TRACE_ID_KEYS: ReadonlySet<string> = new Set(["trace_id", "span_id"])

/** Effect's pretty logger, for a developer's terminal, with the same masking. */
const prettyLogger = Logger.prettyLogger().pipe(
  Logger.mapInputOptions((options: Logger.Logger.Options<unknown>) => ({
    ...options,
    message: maskSecrets(messageText(options.message)),
    annotations: HashMap.map(options.annotations, (value, key) => TRACE_ID_KEYS.has(key) ? value : masked(value))
  }))
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
 * serialisation of a whole object; README, "Logs"); written here it is one template string.
 */
export class RequestLog extends Context.Reference<RequestLog>()("RequestLog", {
  defaultValue: (): RequestLogLine | undefined => undefined
}) {}

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

/** The only logger from then on, in place of the default one or the pretty one `runMain` adds. */
const onlyLogger = (logger: Logger.Logger<unknown, any>) =>
  Layer.scopedDiscard(Effect.locallyScopedWith(FiberRef.currentLoggers, () => HashSet.make<ReadonlyArray<Logger.Logger<unknown, any>>>(logger)))

/** The one place the log format is chosen: `LOG_FORMAT` (JSON unless stdout is a terminal). */
export const LoggingLive = Layer.unwrapEffect(Effect.map(AppConfig, ({ logFormat }) => {
  if (logFormat === "pretty") {
    // the request lines through the pretty logger, in a runtime that has it
    const viaLogger = Layer.effect(
      RequestLog,
      Effect.map(Effect.runtime<never>(), (runtime): RequestLogLine => {
        const run = Runtime.runSync(runtime)
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
