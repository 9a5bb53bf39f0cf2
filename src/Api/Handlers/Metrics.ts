import { Effect, Layer, Metric, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import { prometheusText } from "../../Layers/Platform/Metrics.js"
import { MetricGauges } from "../../Services/MetricGauges.js"
import { bearerRefusal } from "../Transport/BearerToken.js"

/** Where Prometheus scrapes, beside the channel interface: for the hotel's systems, not for guests. */
export const METRICS_PATH = "/internal/metrics"

/** Prometheus's text exposition format, the one every scraper reads. */
const PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8"

/**
 * `GET /internal/metrics` in Prometheus's text format, when `METRICS_TOKEN` is set; otherwise the
 * path is unknown like any other (404). The scraper's address and bearer token are checked as the
 * channel's are (`METRICS_ALLOWED_ADDRESSES`, constant-time comparison), a refusal answered with
 * the usual `Error` body (the transport's answer to a failure). The gauges are read afresh for each scrape.
 */
export const MetricsLive = Layer.unwrap(Effect.map(Effect.service(AppConfig), ({ metricsAllowedAddresses, metricsToken, trustedProxies }) =>
  Option.match(metricsToken, {
    onNone: () => Layer.empty,
    onSome: (token) =>
      HttpRouter.use((router) =>
        Effect.gen(function*() {
          const gauges = yield* MetricGauges
          const refusal = bearerRefusal({
            token,
            allowedAddresses: metricsAllowedAddresses,
            trustedProxies,
            forbidden: "this client address may not read the metrics (METRICS_ALLOWED_ADDRESSES)",
            missing: "the Authorization: Bearer header with the metrics token is required",
            invalid: "the bearer token is not the metrics token"
          })
          const scrape = Effect.gen(function*() {
            yield* gauges.refresh
            return HttpServerResponse.text(prometheusText(yield* Metric.snapshot), {
              contentType: PROMETHEUS_TEXT,
              headers: { "cache-control": "no-store" }
            })
          })
          yield* router.add(
            "GET",
            METRICS_PATH,
            Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
              const refused = refusal(request)
              return refused === undefined ? scrape : Effect.fail(refused)
            })
          )
        })
      )
  })
))
