import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { parse } from "yaml"
import { DatabasePing } from "../src/Layers/Persistence/Database.js"
import { DatabaseUnreachable } from "../src/Layers/Persistence/DatabaseFaults.js"
import { mailingTestApp } from "./support/MailingTestApp.js"
import { get, post } from "./support/flow.js"
import { parsePrometheus, type Sample } from "./support/prometheus.js"
import { TestApp } from "./support/TestApp.js"

/*
 * What operators get in ops/ (docs/decisions.md#operators): the alert rules and their promtool unit tests, the
 * Grafana dashboard, the compose stack. Every query of the rules and of the dashboard names only
 * metrics (and labels) that a real scrape of the service serves.
 */

const OPS = path.resolve("ops")
const ALERTS = path.join(OPS, "prometheus/alerts.yml")
const DASHBOARD = path.join(OPS, "grafana/dashboards/hotel-booking-api.json")

interface Rule {
  readonly alert: string
  readonly expr: string
  readonly for?: string
  readonly labels?: Record<string, string>
  readonly annotations?: Record<string, string>
}
const rules: ReadonlyArray<Rule> = (parse(fs.readFileSync(ALERTS, "utf8")) as { groups: Array<{ rules: Array<Rule> }> })
  .groups.flatMap((group) => group.rules)

interface Panel {
  readonly title: string
  readonly type: string
  readonly targets?: ReadonlyArray<{ readonly expr: string }>
}
const panels: ReadonlyArray<Panel> = (JSON.parse(fs.readFileSync(DASHBOARD, "utf8")) as { panels: Array<Panel> }).panels
const dashboardQueries = panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ where: `panel "${panel.title}"`, expr: target.expr })))
const alertQueries = rules.map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr }))

/** Grafana's variables, as a range Prometheus accepts. */
const asPromQL = (expr: string) => expr.replaceAll("$__rate_interval", "5m").replaceAll("$__interval", "1m")

const KEYWORDS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool", "offset", "inf", "nan"])

/** The metrics a PromQL expression reads, each with the label names its selector matches on. */
export const selectorsOf = (expr: string): Array<{ readonly metric: string; readonly labels: ReadonlyArray<string> }> => {
  const text = asPromQL(expr)
    // grouping clauses name labels, not metrics
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
  const found: Array<{ metric: string; labels: Array<string> }> = []
  const selector = /([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{([^}]*)\})?\s*(\()?/g
  // strings outside selectors are not names (none here but in matchers); numbers are skipped below
  for (const match of text.matchAll(selector)) {
    const [, name, , matchers, call] = match
    if (call !== undefined || KEYWORDS.has(name!.toLowerCase())) continue
    if (/^\d/.test(name!) || (match.index! > 0 && /[\d.]/.test(text[match.index! - 1]!))) continue
    // a name inside a matcher's quoted value is no metric
    const before = text.slice(0, match.index)
    if ((before.match(/"/g) ?? []).length % 2 === 1) continue
    const labels = [...(matchers ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)/g)].map((m) => m[1]!)
    found.push({ metric: name!, labels })
  }
  return found
}

describe("ops/ files", () => {
  it("every alert has for:, a severity and a summary and description", () => {
    expect(rules.map((rule) => rule.alert)).toEqual([
      "HotelHighErrorRatio",
      "HotelHighLatencyP99",
      "HotelDatabaseUnavailable",
      "HotelOutboxBehind",
      "HotelPmsFailing",
      "HotelChannelStale",
      "HotelChannelOversold",
      "HotelConnectionsRefused"
    ])
    for (const rule of rules) {
      expect(rule.for, rule.alert).toMatch(/^\d+[smh]$/)
      expect(["page", "warning"], rule.alert).toContain(rule.labels?.severity)
      expect(rule.annotations?.summary, rule.alert).toBeTruthy()
      expect(rule.annotations?.description, rule.alert).toBeTruthy()
    }
  })

  it("the selector reader finds metrics and their matchers, not functions, groupings, ranges or quoted values", () => {
    expect(selectorsOf(
      "histogram_quantile(0.99, sum by (le) (rate(a_bucket{http_route!~\"unmatched|/x\"}[5m]))) > 1 and on(job) b / c_total{kind=\"pms\"}"
    )).toEqual([
      { metric: "a_bucket", labels: ["http_route"] },
      { metric: "b", labels: [] },
      { metric: "c_total", labels: ["kind"] }
    ])
    expect(dashboardQueries.length).toBeGreaterThanOrEqual(20)
  })

  it("docker-compose.yml: every image pinned to a version, every mounted file of the repository present", () => {
    const compose = parse(fs.readFileSync("docker-compose.yml", "utf8")) as {
      services: Record<string, { image?: string; build?: unknown; volumes?: Array<string>; configs?: Array<{ source: string }> }>
      configs?: Record<string, unknown>
    }
    const services = compose.services
    for (const name of ["postgres", "otel-collector", "prometheus", "grafana", "jaeger", "api"]) expect(Object.keys(services)).toContain(name)
    for (const [name, service] of Object.entries(services)) {
      if (service.image === undefined) {
        expect(service.build, name).toBeDefined()
        continue
      }
      // a tag that names a version: digits, not latest, main or a bare major's moving tag for the tools
      expect(service.image, name).toMatch(/^[a-z0-9./-]+:v?\d+\.\d+(\.\d+)?$/)
    }
    expect(services["postgres"]!.image).toMatch(/^postgres:18\./)
    expect(services["jaeger"]!.image).toMatch(/^jaegertracing\/jaeger:2\./)
    const mounts = Object.values(services).flatMap((service) => service.volumes ?? []).filter((volume) => volume.startsWith("./"))
    expect(mounts.length).toBeGreaterThanOrEqual(5)
    for (const mount of mounts) expect(fs.existsSync(mount.split(":")[0]!), mount).toBe(true)
    for (const service of Object.values(services)) {
      for (const config of service.configs ?? []) expect(Object.keys(compose.configs ?? {})).toContain(config.source)
    }
    // the api pushes to the collector, and Prometheus scrapes the api with the api's token
    const api = services["api"] as unknown as { environment: Record<string, string> }
    expect(api.environment["OTEL_EXPORTER_OTLP_ENDPOINT"]).toBe("http://otel-collector:4318")
    expect(api.environment["METRICS_TOKEN"]).toBe((compose.configs as Record<string, { content: string }>)["metrics_token"]!.content)
    const prometheus = parse(fs.readFileSync(path.join(OPS, "prometheus/prometheus.yml"), "utf8")) as {
      scrape_configs: Array<{ metrics_path: string; authorization: { credentials_file: string }; static_configs: Array<{ targets: Array<string> }> }>
    }
    const job = prometheus.scrape_configs[0]!
    expect(job.metrics_path).toBe("/internal/metrics")
    expect(job.static_configs[0]!.targets).toEqual(["api:3000"])
    expect(services["prometheus"]!.configs!.map((c) => (c as unknown as { target: string }).target)).toContain(job.authorization.credentials_file)
    // Grafana's datasource is the uid the panels name
    const datasources = parse(fs.readFileSync(path.join(OPS, "grafana/provisioning/datasources/prometheus.yml"), "utf8")) as {
      datasources: Array<{ uid: string; url: string }>
    }
    expect(datasources.datasources[0]).toMatchObject({ uid: "prometheus", url: "http://prometheus:9090" })
    expect(fs.readFileSync(DASHBOARD, "utf8")).not.toMatch(/"uid": "(?!prometheus"|hotel-booking-api")/)
  })
})

const METRICS_TOKEN = "metrics-token-of-the-ops-test-0123456789"

describe("every query of ops/ against a real scrape of the service", () => {
  it.live("each metric an alert or a panel reads is served at /internal/metrics, with the labels it matches on", () =>
    Effect.gen(function*() {
      // a little traffic, so that the request histogram has series
      expect((yield* get("/v1/hotel")).status).toBe(200)
      expect((yield* get("/v1/health")).status).toBe(200)
      expect((yield* post("/v1/quotes", { checkin: "2027-03-10", checkout: "2027-03-12", rooms: [{ room_type_id: "double", adults: 2 }] })).status)
        .toBe(200)
      const response = yield* get("/internal/metrics", { authorization: `Bearer ${METRICS_TOKEN}` })
      expect(response.status).toBe(200)
      const scrape = parsePrometheus(response.text)
      const served = new Map<string, Set<string>>()
      for (const sample of scrape.samples) {
        const labels = served.get(sample.name) ?? new Set<string>()
        for (const label of Object.keys(sample.labels)) labels.add(label)
        served.set(sample.name, labels)
      }
      const read = new Set<string>()
      for (const { expr, where } of [...alertQueries, ...dashboardQueries]) {
        const selectors = selectorsOf(expr)
        expect(selectors.length, `${where}: ${expr}`).toBeGreaterThan(0)
        for (const { labels, metric } of selectors) {
          read.add(metric)
          expect(served.has(metric), `${where} reads ${metric}, which the service does not serve`).toBe(true)
          for (const label of labels) expect([...served.get(metric)!], `${where}: ${metric}{${label}}`).toContain(label)
        }
      }
      // the dashboard and the alerts together read every metric docs/observability.md documents, but the event loop's only on the dashboard
      expect([...read].sort()).toEqual(expect.arrayContaining([
        "http_server_request_duration_seconds_bucket",
        "http_server_request_duration_seconds_count",
        "http_server_active_requests",
        "hotel_quotes_total",
        "hotel_intents_total",
        "hotel_completions_total",
        "hotel_cancellations_total",
        "hotel_stay_changes_total",
        "hotel_room_nights_sold_total",
        "hotel_conflicts_total",
        "hotel_requests_refused_total",
        "hotel_outbox_pending",
        "hotel_outbox_oldest_age_seconds",
        "hotel_outbox_failures_total",
        "hotel_channel_messages_total",
        "hotel_channel_last_message_age_seconds",
        "hotel_channel_oversold_nights_total",
        "nodejs_eventloop_delay_p99_seconds"
      ]))
    }).pipe(Effect.provide(mailingTestApp({ metricsToken: Option.some(Redacted.make(METRICS_TOKEN)) }))), 60_000)
})

/** The samples a selector's matchers (`{a="x",b!~"y|z"}`) select, as Prometheus selects them (regexes anchored). */
const select = (samples: ReadonlyArray<Sample>, metric: string, matchers: string) => {
  const tests = [...matchers.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)].map(([, label, op, value]) => {
    const regex = new RegExp(`^(?:${value})$`)
    return (sample: Sample) => {
      const actual = sample.labels[label!] ?? ""
      return op === "=" ? actual === value : op === "!=" ? actual !== value : op === "=~" ? regex.test(actual) : !regex.test(actual)
    }
  })
  return samples.filter((sample) => sample.name === metric && tests.every((test) => test(sample)))
}

describe("HotelDatabaseUnavailable against the service with a database that does not answer", () => {
  it.live("health answers 503, and the alert's selector counts it in the scrape", () =>
    Effect.gen(function*() {
      const before = parsePrometheus((yield* get("/internal/metrics", { authorization: `Bearer ${METRICS_TOKEN}` })).text)
      expect((yield* get("/v1/health")).status).toBe(503)
      const after = parsePrometheus((yield* get("/internal/metrics", { authorization: `Bearer ${METRICS_TOKEN}` })).text)
      const rule = rules.find((r) => r.alert === "HotelDatabaseUnavailable")!
      const [, metric, matchers] = /([a-z_]+)\{([^}]*)\}/.exec(rule.expr)!
      const count = (exposition: typeof after) => select(exposition.samples, metric!, matchers!).reduce((sum, s) => sum + s.value, 0)
      expect(count(after) - count(before)).toBe(1)
      expect(select(after.samples, metric!, matchers!).map((s) => s.labels["http_route"])).toEqual(["/v1/health"])
      // the calendar's "busy" 503 is not selected
      expect(select([{ name: metric!, labels: { http_route: "/v1/calendar", http_response_status_code: "503" }, value: 1 }], metric!, matchers!))
        .toEqual([])
    }).pipe(Effect.provide(TestApp({
      ping: Layer.succeed(DatabasePing, Effect.fail(new DatabaseUnreachable({ message: "connection refused" }))),
      config: { metricsToken: Option.some(Redacted.make(METRICS_TOKEN)) }
    }))), 60_000)
})

/** promtool from Debian's `prometheus` package (or PROMTOOL); CI sets REQUIRE_PROMTOOL=1 so that a missing one fails there. */
const PROMTOOL = process.env["PROMTOOL"] ?? "promtool"
const promtool = (() => {
  try {
    execFileSync(PROMTOOL, ["--version"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()
const required = process.env["REQUIRE_PROMTOOL"] === "1"
if (!promtool && !required) console.warn("ops/prometheus promtool checks skipped: no promtool on PATH (apt-get install prometheus).")

const run = (args: ReadonlyArray<string>, cwd = OPS) => {
  try {
    return execFileSync(PROMTOOL, args, { cwd, encoding: "utf8", stdio: "pipe" })
  } catch (error) {
    const { stderr, stdout } = error as { stdout?: string; stderr?: string }
    throw new Error(`promtool ${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}`)
  }
}

describe.skipIf(!promtool && !required)("promtool", () => {
  it("is on PATH (REQUIRE_PROMTOOL=1)", () => {
    expect(promtool, "REQUIRE_PROMTOOL=1 but no promtool on PATH: apt-get install prometheus").toBe(true)
  })

  it("check rules: alerts.yml is valid", () => {
    expect(run(["check", "rules", "prometheus/alerts.yml"])).toContain("SUCCESS: 8 rules found")
  })

  it("test rules: every alert fires on its trouble and stays silent otherwise", () => {
    expect(run(["test", "rules", "alerts.test.yml"], path.join(OPS, "prometheus"))).toContain("SUCCESS")
    // a firing and a silent case for each alert
    const tests = parse(fs.readFileSync(path.join(OPS, "prometheus/alerts.test.yml"), "utf8")) as {
      tests: Array<{ alert_rule_test: Array<{ alertname: string; exp_alerts: Array<unknown> }> }>
    }
    const cases = tests.tests.flatMap((t) => t.alert_rule_test)
    for (const rule of rules) {
      const mine = cases.filter((c) => c.alertname === rule.alert)
      expect(mine.some((c) => c.exp_alerts.length > 0), `${rule.alert} fires`).toBe(true)
      expect(mine.some((c) => c.exp_alerts.length === 0), `${rule.alert} silent`).toBe(true)
    }
  })

  it("check config: the compose stack's prometheus.yml (with a token file where Compose puts it)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ops-prometheus-"))
    try {
      const token = path.join(dir, "metrics-token")
      fs.writeFileSync(token, METRICS_TOKEN)
      fs.copyFileSync(ALERTS, path.join(dir, "alerts.yml"))
      fs.writeFileSync(
        path.join(dir, "prometheus.yml"),
        fs.readFileSync(path.join(OPS, "prometheus/prometheus.yml"), "utf8").replaceAll("/etc/prometheus/metrics-token", token)
      )
      expect(run(["check", "config", "prometheus.yml"], dir)).toContain("SUCCESS")
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("every panel's query is valid PromQL (as rules, Grafana's $__rate_interval as 5m)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ops-dashboard-"))
    try {
      const file = path.join(dir, "dashboard-queries.yml")
      fs.writeFileSync(file, JSON.stringify({
        groups: [{ name: "dashboard", rules: dashboardQueries.map(({ expr }, i) => ({ record: `dashboard:query_${i}`, expr: asPromQL(expr) })) }]
      }))
      expect(run(["check", "rules", file])).toContain(`SUCCESS: ${dashboardQueries.length} rules found`)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
