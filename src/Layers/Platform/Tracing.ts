import { Effect, Layer, Option, References, type Tracer } from "effect"
import { Headers, HttpTraceContext } from "effect/http"
import { API_VERSION } from "../../Domain/Version.js"
import { AppConfig } from "./AppConfig.js"

/** How often the metrics go to the collector: the usual scrape interval, so both ways show the same resolution. */
const METRICS_EXPORT_EVERY_MS = 15_000

/**
 * Traces and metrics go to an OTLP/HTTP collector when `OTEL_EXPORTER_OTLP_ENDPOINT` is set; else
 * nowhere (`/internal/metrics` serves the same metrics to a scraper). The OpenTelemetry SDK is
 * loaded only then: its heap would be walked by every full GC for nothing. The metrics are Effect's
 * registry, read by the SDK at each export; closing the layer exports what is left.
 */
export const TracingLive = Layer.unwrap(
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (Option.isNone(config.otlpEndpoint)) return Layer.empty
    const endpoint = config.otlpEndpoint.value
    const [{ layer }, { OTLPTraceExporter }, { BatchSpanProcessor }, { OTLPMetricExporter }, { PeriodicExportingMetricReader }] =
      yield* Effect.promise(() =>
        Promise.all([
          import("@effect/opentelemetry/NodeSdk"),
          import("@opentelemetry/exporter-trace-otlp-http"),
          import("@opentelemetry/sdk-trace-base"),
          import("@opentelemetry/exporter-metrics-otlp-http"),
          import("@opentelemetry/sdk-metrics")
        ])
      )
    const base = endpoint.replace(/\/$/, "")
    return layer(() => ({
      resource: { serviceName: "hotel-booking-api", serviceVersion: API_VERSION, attributes: { "deployment.environment": config.environment } },
      spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url: `${base}/v1/traces` })),
      metricReader: new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: `${base}/v1/metrics` }),
        exportIntervalMillis: METRICS_EXPORT_EVERY_MS
      })
    }))
  })
)

/**
 * Without a trace collector, the layer and every fiber it forks (the HTTP server's requests, the
 * repositories' batches) make no span at all: nobody would read them.
 */
export const untracedWithoutCollector = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  Layer.unwrap(Effect.map(AppConfig, ({ otlpEndpoint }) =>
    Option.isSome(otlpEndpoint) ? layer : layer.pipe(Layer.provide(Layer.succeed(References.TracerEnabled, false)))))

/*
 * Spans only while a collector listens. Without one the API turns spans off
 * (`References.TracerEnabled`), yet `Effect.fn` and `Effect.withSpan` would still capture a
 * stack trace and open a no-op span on every call, several times a quote (docs/performance.md);
 * and `Effect.annotateCurrentSpan` would build an exception to find no span. These check first.
 */

/** `Effect.fn(name)`: a span named after the call while spans are on, the bare body otherwise. */
export const fn = (name: string, options?: Tracer.SpanOptionsNoTrace) =>
<Eff extends Effect.Effect<any, any, any>, A, Args extends Array<any>>(
  body: (...args: Args) => Generator<Eff, A, never>
) => {
  const traced = Effect.fn(name, options)(body)
  const untraced = Effect.fnUntraced(body)
  return (...args: Args): ReturnType<typeof traced> =>
    Effect.flatMap(References.TracerEnabled, (enabled) => enabled ? traced(...args) : untraced(...args))
}

/** `Effect.withSpan(name, options)` while spans are on. */
export const withSpan = (name: string, options?: Tracer.SpanOptions) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(References.TracerEnabled, (enabled) => enabled ? Effect.withSpan(self, name, options) : self)

/** `Effect.annotateCurrentSpan(attributes)` while spans are on. */
export const annotate = (attributes: Record<string, unknown>): Effect.Effect<void> =>
  Effect.flatMap(References.TracerEnabled, (enabled) => enabled ? Effect.annotateCurrentSpan(attributes) : Effect.void)

/** The W3C `traceparent` header of a span. */
export const traceparent = (span: Tracer.AnySpan): string => `00-${span.traceId}-${span.spanId}-${span.sampled ? "01" : "00"}`

/**
 * The `traceparent` of the current span while spans are on, to be stored with work done later
 * (an outbox job); null while they are off.
 */
export const currentTraceparent: Effect.Effect<string | null> = Effect.flatMap(
  References.TracerEnabled,
  (enabled) =>
    enabled
      ? Effect.map(Effect.option(Effect.currentSpan), Option.match({ onNone: () => null, onSome: traceparent }))
      : Effect.succeed(null)
)

/** A link to the span of a stored `traceparent` (none if there is none, or it is not one). */
export const linksTo = (stored: string | null): Array<Tracer.SpanLink> =>
  stored === null ? [] : Option.match(HttpTraceContext.fromHeaders(Headers.fromInput({ traceparent: stored })), {
    onNone: () => [],
    onSome: (span) => [{ span, attributes: {} }]
  })
