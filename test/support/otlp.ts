import { Effect } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"

/** A span as an OTLP/HTTP JSON body carries it. */
export interface ReceivedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer */
  readonly kind: number
  readonly attributes: Record<string, unknown>
  readonly links: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>
}

interface OtlpValue {
  readonly stringValue?: string
  readonly intValue?: number | string
  readonly boolValue?: boolean
  readonly doubleValue?: number
  readonly arrayValue?: { readonly values?: ReadonlyArray<OtlpValue> }
}
const valueOf = (value: OtlpValue): unknown =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.boolValue ??
    value.doubleValue ?? value.arrayValue?.values?.map(valueOf)

/** The spans of OTLP/HTTP JSON bodies (the exporter's default protocol). */
export const spansOf = (bodies: ReadonlyArray<string>): Array<ReceivedSpan> =>
  bodies.flatMap((body) =>
    (JSON.parse(body).resourceSpans ?? []).flatMap((resource: any) =>
      (resource.scopeSpans ?? []).flatMap((scope: any) =>
        (scope.spans ?? []).map((span: any): ReceivedSpan => ({
          traceId: span.traceId,
          spanId: span.spanId,
          ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
          name: span.name,
          kind: span.kind,
          attributes: Object.fromEntries((span.attributes ?? []).map((a: any) => [a.key, valueOf(a.value)])),
          links: (span.links ?? []).map((l: any) => ({ traceId: l.traceId, spanId: l.spanId }))
        }))
      )
    )
  )

/** An OTLP/HTTP collector on a free port that keeps the bodies posted to /v1/traces and /v1/metrics, for the scope. */
export const otlpCollector = Effect.acquireRelease(
  Effect.callback<{
    readonly server: Server
    readonly url: string
    readonly bodies: Array<string>
    readonly metricBodies: Array<string>
  }>((resume) => {
    const bodies: Array<string> = []
    const metricBodies: Array<string> = []
    const server = createServer((request, response) => {
      let body = ""
      request.on("data", (chunk) => (body += chunk)).on("end", () => {
        if (request.url === "/v1/traces") bodies.push(body)
        if (request.url === "/v1/metrics") metricBodies.push(body)
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, metricBodies })))
  }),
  ({ server }) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
)
