import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Logger, Redacted, Schedule, Scope } from "effect"
import { SqlClient } from "effect/sql"
import * as path from "node:path"
import pg from "pg"
import { HttpLive } from "../../src/Api/Transport/Http.js"
import { Repositories, Services } from "../../src/Composition.js"
import type { MultiRoomQuoteResponse } from "../../src/Domain/Quote.js"
import { pgClientLayer } from "../../src/Layers/Persistence/Database.js"
import { embeddedPostgres } from "../../src/Layers/EmbeddedDatabase/EmbeddedPostgres.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { AppSecret } from "../../src/Layers/Platform/AppSecret.js"
import { daysFromToday } from "../support/clock.js"
import { temporaryDataDir, testDatabaseUrl } from "../support/database.js"
import { complete, completeWith, get, pendingBooking, post, quoteStay } from "../support/flow.js"
import { apiClient, TestServer } from "../support/TestApp.js"

/*
 * docs/decisions.md#database-failures: the database failing under requests. Each test owns the database it breaks: a
 * PostgreSQL server of its own that it stops and starts, or a database of its own whose tables it
 * locks and whose connections it kills. The bounds below are generous: they tell a deadline kept
 * (about a second here) from none (the lock held for ever), not a speed.
 */

/** The deadline of the app under test (`DATABASE_TIMEOUT_MS`). */
const TIMEOUT_MS = 1000
const hotelFile = path.resolve("data/hotel.json")

interface LogLine {
  readonly level: string
  readonly message: string
  readonly hasCause: boolean
}

/** The whole API on `url`, as production runs it but for its deadline, with every log line kept in `logs`. */
const appOn = (url: Redacted.Redacted, logs: Array<LogLine>) =>
  HttpLive.pipe(
    Layer.provideMerge(Services.pipe(Layer.provideMerge(Repositories), Layer.provideMerge(pgClientLayer(url, { maxConnections: 4, timeoutMs: TIMEOUT_MS })))),
    Layer.provideMerge(Layer.mergeAll(
      AppConfig.InMemory({ hotelFile, databaseTimeoutMs: TIMEOUT_MS, publicBaseUrl: "http://hotel.test" }),
      NodeServices.layer,
      AppSecret.InMemory
    )),
    Layer.provideMerge(TestServer),
    Layer.provide(Logger.layer([
      Logger.make(({ cause, logLevel, message }) => {
        logs.push({ level: logLevel.toUpperCase(), message: String(Array.isArray(message) ? message[0] : message), hasCause: cause.reasons.length > 0 })
      })
    ]))
  )

/** A stay a month ahead, and the quote request for it. */
const checkin = daysFromToday(30)
const checkout = daysFromToday(32)
const quoteBody = { checkin, checkout, rooms: [{ room_type_id: "double", adults: 2 }] }
/** An intent through the typed client, with its Idempotency-Key. */
const intentWith = (key: string, quote: MultiRoomQuoteResponse) =>
  Effect.flatMap(apiClient, (api) =>
    api.reservations.createIntent({
      headers: { "idempotency-key": key },
      payload: { quote_id: quote.quote_id, package_code: quote.package_offers[0]!.package_code, language: "en" }
    }))

/** Sends the request and measures how long its answer took. */
const timed = <A, E, R>(request: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const started = Date.now()
    const answer = yield* request
    return { ...answer, ms: Date.now() - started }
  })

const expectUnavailable = (answer: { status: number; headers: Record<string, string>; body: any }) => {
  expect(answer.status).toBe(503)
  expect(answer.body.error.code).toBe("unavailable")
  const retryAfter = Number(answer.headers["retry-after"])
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  expect(retryAfter).toBeLessThanOrEqual(30)
  expect(answer.body.error.details.retry_after_seconds).toBe(retryAfter)
}

/** A client of its own on the database, outside the service's pool: the operator's psql. */
const operator = (url: Redacted.Redacted) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: Redacted.value(url) })
      client.on("error", () => {}) // its server stopped under it
      await client.connect()
      return client
    }),
    (client) => Effect.promise(() => client.end().catch(() => undefined))
  )

/**
 * An embedded PostgreSQL with a database `faults` of its own, that the test stops (`pg_ctl stop -m
 * fast`) and starts again on the same data; stopped when the test ends, after the app on it.
 */
const restartableDatabase = Effect.gen(function*() {
  const dataDir = yield* temporaryDataDir
  // the server, in a scope of its own: closing it is the stop
  let serverScope = yield* Scope.make()
  const superuser = yield* embeddedPostgres(dataDir).pipe(Scope.provide(serverScope))
  yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE DATABASE faults`).pipe(
    Effect.provide(pgClientLayer(superuser, { maxConnections: 1 }))
  )
  yield* Effect.addFinalizer(() => Effect.suspend(() => Scope.close(serverScope, Exit.void)))
  const url = new URL(Redacted.value(superuser))
  url.pathname = "/faults"
  return {
    url: Redacted.make(url.toString()),
    stop: Effect.gen(function*() {
      yield* Scope.close(serverScope, Exit.void)
      serverScope = yield* Scope.make()
    }),
    // started again, until the test ends
    start: Effect.suspend(() => Effect.asVoid(embeddedPostgres(dataDir).pipe(Scope.provide(serverScope))))
  }
})

describe("a database restart", () => {
  it.live("answers 503 with Retry-After meanwhile, logs it once, serves what needs no database, and recovers by itself", () =>
    Effect.gen(function*() {
      const database = yield* restartableDatabase
      const logs: Array<LogLine> = []
      yield* Effect.provide(Effect.gen(function*() {
        expect((yield* post("/v1/quotes", quoteBody)).status).toBe(200)
        expect((yield* get("/v1/hotel")).status).toBe(200)

        yield* database.stop
        // through the hotel definition's 5 s in memory, as the 8 s restart did
        const during = []
        const outageEnds = Date.now() + 6000
        while (Date.now() < outageEnds) {
          during.push(yield* timed(post("/v1/quotes", quoteBody)))
          yield* Effect.sleep("200 millis")
        }
        for (const answer of during) {
          expectUnavailable(answer)
          expect(answer.ms).toBeLessThan(TIMEOUT_MS + 4000)
        }
        for (const page of ["/v1/hotel", "/v1/room-types", "/llms.txt", "/v1", "/openapi.json"]) {
          expect((yield* get(page)).status, page).toBe(200)
        }
        const health = yield* timed(get("/v1/health"))
        expect(health.status).toBe(503)
        expect(health.body).toEqual({ status: "degraded", database: "unavailable" })
        expect(health.ms).toBeLessThan(3000)

        const said = logs.filter((line) => line.message.startsWith("database unavailable"))
        expect(said).toHaveLength(1)
        expect(said[0]!.hasCause).toBe(false)
        expect(logs.filter((line) => line.level === "ERROR" && line !== said[0])).toEqual([])

        yield* database.start
        const back = yield* post("/v1/quotes", quoteBody)
        expect(back.status).toBe(200)
        // health answers from a result at most a second old (docs/decisions.md#health): the outage's 503 may last that much longer
        const healthBack = yield* get("/v1/health").pipe(
          Effect.repeat({ until: ({ status }) => status === 200, schedule: Schedule.spaced("100 millis"), times: 30 })
        )
        expect(healthBack.status).toBe(200)
      }), appOn(database.url, logs))
    }), 90_000)
})

describe("an Idempotency-Key whose attempt the database failed", () => {
  it.live("is free as soon as the database is back: the retry right after a restart is answered, not 409", () =>
    Effect.gen(function*() {
      const database = yield* restartableDatabase
      yield* Effect.provide(Effect.gen(function*() {
        const quoted = yield* quoteStay(checkin, checkout, quoteBody.rooms)
        const intent = { quote_id: quoted.quote_id, package_code: quoted.package_offers[0]!.package_code }
        const key = { "idempotency-key": "outage-intent-1" }
        // the intent has claimed its key and waits for the quote when the server stops under it
        const locker = yield* operator(database.url)
        yield* Effect.promise(() => locker.query("BEGIN; LOCK TABLE quotes IN ACCESS EXCLUSIVE MODE"))
        const attempt = yield* Effect.forkChild(post("/v1/reservation-intents", intent, key))
        yield* Effect.promise(async () => {
          for (;;) {
            const { rows } = await locker.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = 'faults'")
            if (rows.length > 0) return
            await new Promise((resolve) => setTimeout(resolve, 20))
          }
        })
        yield* database.stop
        expectUnavailable(yield* Fiber.join(attempt))

        yield* database.start
        // its key was left claimed when the database went: the retry finds it free, not in progress for 30 s
        const retried = yield* post("/v1/reservation-intents", intent, key)
        expect([retried.status, retried.body.error?.code]).toEqual([200, undefined])
        const replayed = yield* post("/v1/reservation-intents", intent, key)
        expect([replayed.status, replayed.headers["idempotent-replayed"], replayed.body.reservation_id]).toEqual([
          200,
          "true",
          retried.body.reservation_id
        ])
      }), appOn(database.url, []))
    }), 90_000)
})

describe("a lock held by someone else", () => {
  it.live("bounds every wait: 503 with Retry-After, health still 200, and a completion that timed out took nothing and succeeds when repeated", () =>
    Effect.gen(function*() {
      const url = yield* testDatabaseUrl
      const logs: Array<LogLine> = []
      yield* Effect.provide(Effect.gen(function*() {
        const pending = yield* pendingBooking(checkin, checkout, [{ room_type_id: "double", adults: 2 }])
        const inventory = yield* operator(url)
        const nights = () =>
          Effect.promise(() => inventory.query("SELECT sum(booked)::int AS booked FROM inventory_nights")).pipe(Effect.map((r) => r.rows[0].booked))
        const bookedBefore = yield* nights()

        const locker = yield* operator(url)
        yield* Effect.promise(() => locker.query("BEGIN; LOCK TABLE inventory_nights IN ACCESS EXCLUSIVE MODE"))
        // more requests than the pool has connections: the last ones wait for a connection, then for the lock
        const answers = yield* Effect.all(
          [
            ...Array.from({ length: 6 }, () => timed(post("/v1/quotes", quoteBody))),
            timed(completeWith(pending.token, pending.total / 100))
          ],
          { concurrency: "unbounded" }
        )
        const health = yield* timed(get("/v1/health"))
        yield* Effect.promise(() => locker.query("ROLLBACK"))

        for (const answer of answers) {
          expectUnavailable(answer)
          expect(answer.ms).toBeLessThan(2 * TIMEOUT_MS + 4000)
        }
        expect(health.status).toBe(200)
        expect(health.ms).toBeLessThan(3000)
        // the completion took no room and queued nothing
        expect(yield* nights()).toBe(bookedBefore)
        const jobs = yield* Effect.promise(() => inventory.query("SELECT count(*)::int AS n FROM outbox_jobs"))
        expect(jobs.rows[0].n).toBe(0)
        expect(logs.filter((line) => line.level === "ERROR")).toEqual([])

        yield* complete(pending.token, pending.total)
        expect(yield* nights()).toBe(bookedBefore + 2)
      }), appOn(url, logs))
    }), 60_000)
})

describe("a connection killed mid-transaction", () => {
  it.live("answers 503, leaves nothing half-done, and the retry (same Idempotency-Key) is right", () =>
    Effect.gen(function*() {
      const url = yield* testDatabaseUrl
      yield* Effect.provide(Effect.gen(function*() {
        const admin = yield* operator(url)
        const database = new URL(Redacted.value(url)).pathname.slice(1)
        /** Kills the service's connection waiting on a lock, as a failover or an operator would. */
        const killWaiter = Effect.promise(async () => {
          for (;;) {
            const { rows } = await admin.query(
              "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
              [database]
            )
            if (rows.length > 0) return admin.query("SELECT pg_terminate_backend($1)", [rows[0].pid])
            await new Promise((resolve) => setTimeout(resolve, 20))
          }
        })
        const underKill = <A, E, R>(request: Effect.Effect<A, E, R>, table: string) =>
          Effect.gen(function*() {
            const locker = yield* operator(url)
            yield* Effect.promise(() => locker.query(`BEGIN; LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`))
            const [answer] = yield* Effect.all([request, killWaiter], { concurrency: "unbounded" })
            yield* Effect.promise(() => locker.query("ROLLBACK"))
            return answer
          }).pipe(Effect.scoped)

        // a completion: killed while waiting for the nights
        const pending = yield* pendingBooking(checkin, checkout, [{ room_type_id: "double", adults: 2 }])
        expectUnavailable(yield* underKill(completeWith(pending.token, pending.total / 100), "inventory_nights"))
        const state = yield* Effect.promise(() =>
          admin.query(
            `SELECT r.status, (SELECT count(*)::int FROM outbox_jobs) AS jobs, (SELECT coalesce(sum(booked), 0)::int FROM inventory_nights) AS booked,
                    (SELECT count(*)::int FROM reservation_tokens WHERE purpose = 'manage') AS manage_tokens
             FROM reservations r`
          )
        )
        expect(state.rows).toEqual([{ status: "PENDING_GUEST", jobs: 0, booked: 0, manage_tokens: 0 }])
        yield* complete(pending.token, pending.total)

        // an intent with an Idempotency-Key: killed while it reads the quote; the retry makes it once
        const quoted = yield* quoteStay(checkin, checkout, quoteBody.rooms)
        const intent = { quote_id: quoted.quote_id, package_code: quoted.package_offers[0]!.package_code }
        const key = { "idempotency-key": "killed-intent-1" }
        expectUnavailable(yield* underKill(post("/v1/reservation-intents", intent, key), "quotes"))
        const retried = yield* intentWith(key["idempotency-key"], quoted)
        const replayed = yield* intentWith(key["idempotency-key"], quoted)
        expect(replayed.reservation_id).toBe(retried.reservation_id)
        const intentsOf = (quoteId: string) =>
          Effect.promise(() => admin.query("SELECT count(*)::int AS n FROM reservations WHERE quote_id = $1", [quoteId])).pipe(
            Effect.map((r) => r.rows[0].n)
          )
        expect(yield* intentsOf(intent.quote_id)).toBe(1)

        // killed as its key is marked done: that is in the intent's own transaction, so nothing was made
        // and the retry makes it (were it after the commit, the retry would find the key in progress,
        // and 30 s later make a second reservation)
        yield* Effect.promise(() =>
          admin.query(`
            CREATE FUNCTION die_when_done() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF NEW.state = 'done' THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF;
              RETURN NEW;
            END $$;
            CREATE TRIGGER die_when_done BEFORE UPDATE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION die_when_done()`)
        )
        const another = yield* quoteStay(checkin, checkout, quoteBody.rooms)
        const secondIntent = { quote_id: another.quote_id, package_code: another.package_offers[0]!.package_code }
        const secondKey = { "idempotency-key": "killed-intent-2" }
        expectUnavailable(yield* post("/v1/reservation-intents", secondIntent, secondKey))
        expect(yield* intentsOf(secondIntent.quote_id)).toBe(0)
        yield* Effect.promise(() => admin.query("DROP TRIGGER die_when_done ON idempotency_keys"))
        yield* intentWith(secondKey["idempotency-key"], another)
        expect(yield* intentsOf(secondIntent.quote_id)).toBe(1)
      }), appOn(url, []))
    }), 60_000)
})
