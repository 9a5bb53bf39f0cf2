import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Layer, Metric, Option, References } from "effect"
import { AppConfig } from "../../../src/Layers/Platform/AppConfig.js"
import * as Metrics from "../../../src/Layers/Platform/Metrics.js"
import * as Tracing from "../../../src/Layers/Platform/Tracing.js"
import { otlpCollector } from "../../support/otlp.js"

const spansOff = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provideService(self, References.TracerEnabled, false)

/** The name of the span the body runs in, if any. */
const spanInside = Tracing.fn("Test.method")(function*(n: number) {
  const span = yield* Effect.option(Effect.currentSpan)
  return { n, span: Option.map(span, (s) => s.name) }
})

describe("Tracing helpers", () => {
  it.effect("Tracing.fn runs its body in a span named after the method while spans are on", () =>
    Effect.gen(function*() {
      expect(yield* spanInside(1)).toEqual({ n: 1, span: Option.some("Test.method") })
    }))

  it.effect("Tracing.fn opens no span at all while spans are off", () =>
    Effect.gen(function*() {
      expect(yield* spansOff(spanInside(2))).toEqual({ n: 2, span: Option.none() })
    }))

  it.effect("Tracing.withSpan wraps in a span only while spans are on", () =>
    Effect.gen(function*() {
      const current = Effect.option(Effect.currentSpan).pipe(Effect.map(Option.map((s) => s.name)), Tracing.withSpan("Test.step"))
      expect(yield* current).toEqual(Option.some("Test.step"))
      expect(yield* spansOff(current)).toEqual(Option.none())
    }))

  it.effect("Tracing.annotate sets attributes on the current span, and is a no-op while spans are off", () =>
    Effect.gen(function*() {
      const attributes = Effect.gen(function*() {
        yield* Tracing.annotate({ "quote.id": "q_1" })
        return yield* Effect.map(Effect.option(Effect.currentSpan), Option.map((s) => s.attributes.get("quote.id")))
      })
      expect(yield* Tracing.withSpan("Test.annotated")(attributes)).toEqual(Option.some("q_1"))
      expect(yield* spansOff(attributes)).toEqual(Option.none())
    }))

  it.effect("currentTraceparent names the current span while spans are on; null while they are off", () =>
    Effect.gen(function*() {
      const inside = Tracing.currentTraceparent.pipe(Effect.zip(Effect.currentSpan), Tracing.withSpan("Test.enqueue"))
      const [traceparent, span] = yield* inside
      expect(traceparent).toBe(`00-${span.traceId}-${span.spanId}-01`)
      expect(yield* spansOff(Tracing.currentTraceparent)).toBeNull()
    }))

  it("linksTo: a link to a stored traceparent, none for none or a malformed one", () => {
    const [link] = Tracing.linksTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
    expect(link?.span).toMatchObject({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" })
    expect(Tracing.linksTo(null)).toEqual([])
    expect(Tracing.linksTo("not a traceparent")).toEqual([])
  })

  /** A layer that, like a repository's batcher, forks a fiber at start-up: whether that fiber makes spans. */
  class ForkedTracing extends Context.Service<ForkedTracing, Deferred.Deferred<boolean>>()("ForkedTracing") {}
  const forking = Layer.effect(
    ForkedTracing,
    Effect.gen(function*() {
      const seen = yield* Deferred.make<boolean>()
      yield* Effect.forkScoped(Effect.flatMap(References.TracerEnabled, (on) => Deferred.succeed(seen, on)))
      return seen
    })
  )
  const forkedTracing = (otlpEndpoint: Option.Option<string>) =>
    Effect.flatMap(ForkedTracing, Deferred.await).pipe(
      Effect.provide(Tracing.untracedWithoutCollector(forking).pipe(Layer.provide(AppConfig.InMemory({ otlpEndpoint }))))
    )

  it.effect("without a collector, fibers forked while a layer starts make no spans; with one they do", () =>
    Effect.gen(function*() {
      expect(yield* forkedTracing(Option.none())).toBe(false)
      expect(yield* forkedTracing(Option.some("http://collector:4318"))).toBe(true)
    }))
})

describe("TracingLive", () => {
  it.effect("with a collector, the SDK is loaded and a service method's span reaches it when the layer closes", () =>
    Effect.gen(function*() {
      const { bodies, url } = yield* otlpCollector
      yield* spanInside(1).pipe(
        Effect.provide(Tracing.TracingLive.pipe(Layer.provide(AppConfig.InMemory({ otlpEndpoint: Option.some(url) }))))
      )
      // closing the layer flushed the batch of spans
      expect(bodies.join("\n")).toContain("Test.method")
    }))

  it.effect("with a collector, the metrics go to it too, with the traces' resource, and closing the layer exports the last of them", () =>
    Effect.gen(function*() {
      const { metricBodies, url } = yield* otlpCollector
      yield* Effect.andThen(Metrics.registerSeries, Metric.update(Metrics.quotes({ outcome: "available" }), 3)).pipe(
        Effect.provide(Tracing.TracingLive.pipe(Layer.provide(AppConfig.InMemory({ otlpEndpoint: Option.some(url) }))))
      )
      const metrics = metricBodies.flatMap((body) => JSON.parse(body).resourceMetrics ?? [])
      const names = metrics.flatMap((r: any) => r.scopeMetrics.flatMap((s: any) => s.metrics.map((m: any) => m.name)))
      // every series registered at start goes out under its OpenTelemetry name, not only those that moved
      expect(names).toEqual(expect.arrayContaining([
        "hotel.quotes",
        "hotel.intents",
        "hotel.completions",
        "hotel.conflicts",
        "hotel.cancellations",
        "hotel.stay_changes",
        "hotel.room_nights.sold",
        "hotel.outbox.failures",
        "hotel.outbox.pending",
        "hotel.outbox.oldest_age",
        "hotel.channel.messages",
        "hotel.channel.last_message_age",
        "hotel.channel.oversold_nights",
        "hotel.requests.refused",
        "http.server.active_requests",
        "nodejs.eventloop.delay.p99"
      ]))
      expect(JSON.stringify(metrics[0].resource)).toContain("hotel-booking-api")
    }))
})
