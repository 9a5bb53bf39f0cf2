import { NodeSdk } from "@effect/opentelemetry"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Layer, Option } from "effect"
import { API_VERSION } from "../Domain/Discovery.js"
import { AppConfig } from "../Services/AppConfig.js"

/** Traces go to an OTLP/HTTP collector when `OTEL_EXPORTER_OTLP_ENDPOINT` is set; else nowhere. */
export const TracingLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Option.match(config.otlpEndpoint, {
      onNone: () => Layer.empty,
      onSome: (endpoint) =>
        NodeSdk.layer(() => ({
          resource: { serviceName: "hotel-booking-api", serviceVersion: API_VERSION, attributes: { "deployment.environment": config.environment } },
          spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, "")}/v1/traces` }))
        }))
    }))
)
