import { Effect, Metric } from "effect"

/*
 * The service's metrics (docs/decisions.md#operators), named as OpenTelemetry's semantic conventions name them
 * where they exist, in Effect's `Metric` registry: the Prometheus endpoint reads the registry,
 * and so does OpenTelemetry's exporter. Every label takes its values from a closed set (route
 * templates, codes, kinds), so no request can add a series; the domain's series are registered
 * at start with every value of their labels, so a dashboard shows zero rather than nothing.
 */

type Attributes = Readonly<Record<string, string>>

/** What Prometheus needs beyond Effect's metric: the unit (a suffix of its name) and whether it counts up. */
interface Instrument {
  readonly name: string
  readonly description: string
  /** Seconds, the only unit here; none for a count. */
  readonly seconds?: boolean
}

const instruments = new Map<string, Instrument>()
const declare = (instrument: Instrument) => {
  instruments.set(instrument.name, instrument)
  return instrument
}

/** A family of series of one metric, one per set of label values, each made once (Effect keys a series by its attributes). */
const family = <M>(make: (attributes: Attributes) => M) => {
  const made = new Map<string, M>()
  return (attributes: Attributes): M => {
    const key = JSON.stringify(attributes)
    let series = made.get(key)
    if (series === undefined) {
      series = make(attributes)
      made.set(key, series)
    }
    return series
  }
}

const counterFamily = (instrument: Instrument) => {
  const { description, name } = declare(instrument)
  return family((attributes) => Metric.counter(name, { description, attributes, incremental: true }))
}

const gaugeFamily = (instrument: Instrument) => {
  const { description, name } = declare(instrument)
  return family((attributes) => Metric.gauge(name, { description, attributes }))
}

const histogramFamily = (instrument: Instrument, boundaries: ReadonlyArray<number>) => {
  const { description, name } = declare(instrument)
  return family((attributes) => Metric.histogram(name, { description, attributes, boundaries }))
}

const gauge = (instrument: Instrument) => {
  const { description, name } = declare(instrument)
  return Metric.gauge(name, { description })
}

/**
 * Latency buckets in seconds, OpenTelemetry's advice for `http.server.request.duration`: a read
 * takes well under 5 ms here, a calendar tens, a completion with its locks more.
 */
const DURATION_BUCKETS = Metric.boundariesFromIterable([0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10])

const requestDuration = declare({
  name: "http.server.request.duration",
  description: "Duration of HTTP server requests, until the answer is written",
  seconds: true
})
const durationSeries = new Map<string, Metric.Histogram<number>>()
/**
 * The series of `http.server.request.duration` of a method, route template and status, looked up
 * for every request: by the three values, which hold no space, not by the attributes' JSON as a
 * family's series are (`JSON.stringify` was 3.5 % of GET /v1/hotel's CPU).
 */
export const httpRequestDuration = (method: string, route: string, status: number): Metric.Histogram<number> => {
  const key = `${method} ${route} ${status}`
  let series = durationSeries.get(key)
  if (series === undefined) {
    const attributes = { "http.request.method": method, "http.route": route, "http.response.status_code": String(status) }
    series = Metric.histogram(requestDuration.name, { description: requestDuration.description, attributes, boundaries: DURATION_BUCKETS })
    durationSeries.set(key, series)
  }
  return series
}
export const httpActiveRequests = gauge({ name: "http.server.active_requests", description: "HTTP server requests in flight" })

export const QUOTE_OUTCOMES = ["available", "unavailable"] as const
export const quotes = counterFamily({ name: "hotel.quotes", description: "Quotes issued, by whether any room was available" })
export const intents = counterFamily({ name: "hotel.intents", description: "Reservation intents created" })
export const completions = counterFamily({ name: "hotel.completions", description: "Reservations completed" })
/** Every error code the API answers with 409 (`Api/Contract/Errors.ts`): any other is no reason here. */
export const CONFLICT_REASONS = [
  "availability_changed",
  "price_changed",
  "quote_expired",
  "quote_not_reservable",
  "reservation_not_pending",
  "idempotency_in_progress",
  "cancellation_not_allowed",
  "change_not_allowed",
  "already_cancelled"
] as const
export const conflicts = counterFamily({ name: "hotel.conflicts", description: "Requests answered 409, by the error code" })
export const cancellations = counterFamily({ name: "hotel.cancellations", description: "Reservations cancelled" })
export const stayChanges = counterFamily({ name: "hotel.stay_changes", description: "Stay changes made" })
export const roomNightsSold = counterFamily({ name: "hotel.room_nights.sold", description: "Room-nights of the reservations completed" })
export const OUTBOX_KINDS = ["email", "pms"] as const
export const outboxFailures = counterFamily({
  name: "hotel.outbox.failures",
  description: "Outbox deliveries that failed (retried or given up), by kind"
})
export const CHANNEL_OUTCOMES = ["applied", "stale", "refused"] as const
export const channelMessages = counterFamily({
  name: "hotel.channel.messages",
  description: "Channel messages: applied (cells written), stale (cells older than stored), refused (400 or 422)"
})
export const channelOversoldNights = counterFamily({
  name: "hotel.channel.oversold_nights",
  description: "Room type nights a channel message left with fewer rooms to sell than were booked here since"
})
export const REFUSAL_REASONS = ["rate_limited", "connections", "booking_limit", "room_nights"] as const
export const requestsRefused = counterFamily({
  name: "hotel.requests.refused",
  description: "Requests or connections refused by a limit, by reason (and route where there is one)"
})
export const outboxPending = gauge({ name: "hotel.outbox.pending", description: "Outbox jobs waiting to be delivered" })
export const outboxOldestAge = gauge({ name: "hotel.outbox.oldest_age", description: "Age of the oldest outbox job waiting", seconds: true })
export const channelLastMessageAge = gauge({
  name: "hotel.channel.last_message_age",
  description: "Time since the last channel message (a heartbeat counts) arrived, on any instance",
  seconds: true
})

/*
 * The service's PostgreSQL pool, as OpenTelemetry's database conventions name it
 * (`db.client.connection.*`, by `db.client.connection.pool.name`), measured where the service asks
 * the pool for a connection (`Persistence/PoolMetrics.ts`): `@effect/sql-pg` keeps its pool's
 * own counts private, so the connections opened and not in use (`state` "idle") are not known and
 * not exported; `max` minus `used` is what the pool may still hand out.
 */
export const dbConnectionCount = gaugeFamily({
  name: "db.client.connection.count",
  description: "Connections of the pool by state: used (handed out, not yet given back)"
})
export const dbConnectionMax = gaugeFamily({ name: "db.client.connection.max", description: "Connections the pool may open at most" })
export const dbConnectionPendingRequests = gaugeFamily({
  name: "db.client.connection.pending_requests",
  description: "Requests waiting for a connection of the pool"
})
export const dbConnectionTimeouts = counterFamily({
  name: "db.client.connection.timeouts",
  description: "Requests for a connection that got none within DATABASE_TIMEOUT_MS"
})
/**
 * Waits and uses in seconds: a free connection is handed out in well under a millisecond, a new
 * one takes a few, a saturated pool up to DATABASE_TIMEOUT_MS (5 s by default, 60 s at most).
 */
const POOL_BUCKETS = Metric.boundariesFromIterable([0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60])
export const dbConnectionWaitTime = histogramFamily({
  name: "db.client.connection.wait_time",
  description: "Time a request waited for a connection of the pool, until it got one",
  seconds: true
}, POOL_BUCKETS)
export const dbConnectionUseTime = histogramFamily({
  name: "db.client.connection.use_time",
  description: "Time a connection was held, from its handing out to its return to the pool",
  seconds: true
}, POOL_BUCKETS)

export const eventLoopDelay = gauge({
  name: "nodejs.eventloop.delay.p99",
  description: "99th percentile of the event loop's delay since the last reading",
  seconds: true
})

/**
 * Every series of the domain and of the server that has a closed set of labels, registered at
 * zero: a series appears on a dashboard from the start, not at its first event.
 */
export const registerSeries: Effect.Effect<void> = Effect.forEach([
  ...QUOTE_OUTCOMES.map((outcome) => quotes({ outcome })),
  intents({}),
  completions({}),
  ...CONFLICT_REASONS.map((reason) => conflicts({ reason })),
  cancellations({}),
  stayChanges({}),
  roomNightsSold({}),
  ...OUTBOX_KINDS.map((kind) => outboxFailures({ kind })),
  ...CHANNEL_OUTCOMES.map((outcome) => channelMessages({ outcome })),
  channelOversoldNights({}),
  ...REFUSAL_REASONS.map((reason) => requestsRefused({ reason })),
  httpActiveRequests,
  outboxPending,
  outboxOldestAge,
  channelLastMessageAge,
  eventLoopDelay
], (metric: Metric.Metric<never, unknown>) => Metric.value(metric), { discard: true })

/** OpenTelemetry's name as Prometheus spells it: `.` is `_`, the unit a suffix, a counter's total `_total`. */
const prometheusName = (id: string, type: Metric.Metric.Type) => {
  const base = id.replaceAll(".", "_") + (instruments.get(id)?.seconds === true ? "_seconds" : "")
  return type === "Counter" ? `${base}_total` : base
}

const escape = (value: string) => value.replaceAll("\\", "\\\\").replaceAll("\"", "\\\"").replaceAll("\n", "\\n")

const labelsText = (attributes: Attributes | undefined, extra: Attributes = {}) => {
  const all = Object.entries({ ...attributes, ...extra })
  return all.length === 0 ? "" : `{${all.map(([name, value]) => `${name.replaceAll(".", "_")}="${escape(value)}"`).join(",")}}`
}

const TYPES: Partial<Record<Metric.Metric.Type, string>> = { Counter: "counter", Gauge: "gauge", Histogram: "histogram" }

const sampleLines = (name: string, snapshot: Metric.Metric.Snapshot): Array<string> => {
  switch (snapshot.type) {
    case "Counter":
      return [`${name}${labelsText(snapshot.attributes)} ${snapshot.state.count}`]
    case "Gauge":
      return [`${name}${labelsText(snapshot.attributes)} ${snapshot.state.value}`]
    case "Histogram": {
      const { buckets, count, sum } = snapshot.state
      return [
        ...buckets.filter(([bound]) => Number.isFinite(bound)).map(([bound, cumulated]) =>
          `${name}_bucket${labelsText(snapshot.attributes, { le: String(bound) })} ${cumulated}`
        ),
        `${name}_bucket${labelsText(snapshot.attributes, { le: "+Inf" })} ${count}`,
        `${name}_sum${labelsText(snapshot.attributes)} ${sum}`,
        `${name}_count${labelsText(snapshot.attributes)} ${count}`
      ]
    }
    default:
      return []
  }
}

/** The registry's metrics in Prometheus's text exposition format (version 0.0.4), each metric's series together. */
export const prometheusText = (snapshots: ReadonlyArray<Metric.Metric.Snapshot>): string => {
  const byName = new Map<string, Array<Metric.Metric.Snapshot>>()
  for (const snapshot of snapshots) {
    if (TYPES[snapshot.type] === undefined) continue
    const name = prometheusName(snapshot.id, snapshot.type)
    byName.set(name, [...(byName.get(name) ?? []), snapshot])
  }
  const lines: Array<string> = []
  for (const [name, series] of [...byName].sort(([a], [b]) => a.localeCompare(b))) {
    const first = series[0]!
    lines.push(`# HELP ${name} ${escape(first.description ?? "")}`, `# TYPE ${name} ${TYPES[first.type]}`)
    for (const snapshot of series) lines.push(...sampleLines(name, snapshot))
  }
  return `${lines.join("\n")}\n`
}
