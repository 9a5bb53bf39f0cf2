import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, FiberRef, Layer, Option } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { AppConfig } from "../../src/Services/AppConfig.js"
import * as Tracing from "../../src/Layers/Tracing.js"

const spansOff = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.locally(self, FiberRef.currentTracerEnabled, false)

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

  /** A layer that, like a repository's batcher, forks a fiber at start-up: whether that fiber makes spans. */
  class ForkedTracing extends Context.Tag("ForkedTracing")<ForkedTracing, Deferred.Deferred<boolean>>() {}
  const forking = Layer.scoped(
    ForkedTracing,
    Effect.gen(function*() {
      const seen = yield* Deferred.make<boolean>()
      yield* Effect.forkScoped(Effect.flatMap(FiberRef.get(FiberRef.currentTracerEnabled), (on) => Deferred.succeed(seen, on)))
      return seen
    })
  )
  const forkedTracing = (otlpEndpoint: Option.Option<string>) =>
    Effect.flatMap(ForkedTracing, Deferred.await).pipe(
      Effect.provide(Tracing.untracedWithoutCollector(forking).pipe(Layer.provide(AppConfig.layerTest({ otlpEndpoint }))))
    )

  it.effect("without a collector, fibers forked while a layer starts make no spans; with one they do", () =>
    Effect.gen(function*() {
      expect(yield* forkedTracing(Option.none())).toBe(false)
      expect(yield* forkedTracing(Option.some("http://collector:4318"))).toBe(true)
    }))
})

describe("TracingLive", () => {
  /** An OTLP/HTTP collector on a free port that keeps the bodies posted to /v1/traces. */
  const collector = Effect.acquireRelease(
    Effect.async<{ readonly server: Server; readonly url: string; readonly bodies: Array<string> }>((resume) => {
      const bodies: Array<string> = []
      const server = createServer((request, response) => {
        let body = ""
        request.on("data", (chunk) => (body += chunk)).on("end", () => {
          if (request.url === "/v1/traces") bodies.push(body)
          response.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies })))
    }),
    ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  )

  it.scoped("with a collector, the SDK is loaded and a service method's span reaches it when the layer closes", () =>
    Effect.gen(function*() {
      const { bodies, url } = yield* collector
      yield* spanInside(1).pipe(
        Effect.provide(Tracing.TracingLive.pipe(Layer.provide(AppConfig.layerTest({ otlpEndpoint: Option.some(url) }))))
      )
      // closing the layer flushed the batch of spans
      expect(bodies.join("\n")).toContain("Test.method")
    }))
})
