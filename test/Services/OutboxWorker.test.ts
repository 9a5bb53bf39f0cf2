import { SqlClient } from "effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Option, PubSub, Redacted, Scope } from "effect"
import { simpleParser } from "mailparser"
import { formatDate } from "../../src/Domain/GuestFormats.js"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import type { Language } from "../../src/Domain/Language.js"
import type { ReservationId } from "../../src/Domain/Ids.js"
import { Repositories, Services } from "../../src/Composition.js"
import { OutboxRepo } from "../../src/Layers/Persistence/OutboxRepo.js"
import { ReservationRepo } from "../../src/Layers/Persistence/ReservationRepo.js"
import { Transactions } from "../../src/Layers/Persistence/Transactions.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { Deliveries } from "../../src/Services/Deliveries.js"
import { Documents } from "../../src/Services/Documents.js"
import type { MailMessage } from "../../src/Domain/Mail.js"
import { Mailer } from "../../src/Services/Mailer.js"
import type { OutboxWorkerOptions } from "../../src/Domain/Outbox.js"
import { OutboxWorker, type OutboxWorkerHooks } from "../../src/Services/OutboxWorker.js"
import { Pms } from "../../src/Services/Pms.js"
import { Quotes } from "../../src/Services/Quotes.js"
import { ReservationManagement } from "../../src/Services/ReservationManagement.js"
import { Reservations } from "../../src/Services/Reservations.js"
import { Tokens } from "../../src/Services/Tokens.js"
import { daysFromToday } from "../support/clock.js"
import { eventually } from "../support/eventually.js"
import { poolOn, testDatabaseUrl } from "../support/database.js"
import { tokenOf } from "../support/flow.js"
import { mailFrom, mailingConfig } from "../support/MailingTestApp.js"
import { inMemoryMailer } from "../support/outsideSystems.js"
import { pdfText } from "../support/pdfText.js"
import { pmsStub } from "../support/pms.js"
import { closedPort, smtpServer } from "../support/smtp.js"

/** Settings of the instances: these tests complete many reservations from one client address. */
const configOf = (config: Partial<typeof AppConfig.Service> = {}) =>
  mailingConfig({ bookingLimitPerHour: 0, roomNightsPerAddressPerDay: 0, ...config })
const clientAddress = "192.0.2.1"

/** Small numbers, so that retries, leases and polls take milliseconds. */
const fast: OutboxWorkerOptions = {
  maxAttempts: 50,
  baseDelayMs: 50,
  maxDelayMs: 200,
  // long enough that a loaded machine's stalls never outlast it (two tests shorten it on purpose)
  leaseMs: 5_000,
  pollMs: 500,
  concurrency: 4,
  drainMs: 1_000
}

/** One service instance on a pool of its own, as a process would be; with a worker when given options. */
const instance = (
  url: Redacted.Redacted,
  delivery: Layer.Layer<Mailer | Pms>,
  worker: Option.Option<OutboxWorkerOptions>,
  config: Partial<typeof AppConfig.Service> = {},
  hooks?: OutboxWorkerHooks
) =>
  Option.match(worker, {
    onNone: () => Services,
    onSome: (options) => OutboxWorker.layerWith(options, hooks).pipe(Layer.provideMerge(Services), Layer.provide(Layer.mergeAll(Documents.layer, delivery)))
  }).pipe(Layer.provideMerge(Repositories), Layer.provideMerge(poolOn(url)), Layer.provide(configOf(config)))

/**
 * A worker's reports that it is idle (`OutboxWorkerHooks`). `quiet` waits for two in a row: the second
 * comes from a claim begun after the wait began, so once it is over, whatever that worker was going to
 * send has been sent, and it sends nothing more until a job is due. The moment "nothing more arrives"
 * is true, not a guess at it.
 */
const idleReports = Effect.gen(function*() {
  const reports = yield* PubSub.unbounded<void>()
  const quiet = Effect.scoped(Effect.gen(function*() {
    const next = yield* PubSub.subscribe(reports)
    yield* PubSub.take(next)
    yield* PubSub.take(next)
  }))
  return { hooks: { idle: Effect.asVoid(PubSub.publish(reports, undefined)) }, quiet }
})

const smtpMailer = (url: string) => Mailer.smtp({ url: Redacted.make(url), from: mailFrom })
const noPms = Pms.disabled
const noMail = inMemoryMailer

type Instance = Context.Context<
  Quotes | Reservations | ReservationManagement | Tokens | OutboxRepo | ReservationRepo | Transactions | SqlClient.SqlClient
>

const client = { client: "outbox-test", ai_agent: null, session: null }
const guest = { first_name: "Jeanne", last_name: "Dupont", email: "jeanne@example.org", phone: "+33 6 12 34 56 78", accept_terms: true, terms_version: "2026-11" }

/** A completed reservation of one double room for the night `daysAhead` from today. */
const completeOne = (on: Instance, daysAhead: number, language: Language = "en", expectedTotal?: number, email = guest.email) =>
  Effect.gen(function*() {
    const quotes = yield* Quotes
    const reservations = yield* Reservations
    const quote = yield* quotes.quoteRooms({
      checkin: daysFromToday(daysAhead),
      checkout: daysFromToday(daysAhead + 1),
      rooms: [{ room_type_id: "double" as RoomTypeId, quantity: 1, adults: 2, children_ages: [] }]
    }, client)
    const offer = quote.package_offers.find((o) => o.rate_code === "FLEX")!
    const { response } = yield* reservations.createIntent({ quote_id: quote.quote_id, package_code: offer.package_code, language }, client, undefined, "192.0.2.1")
    const token = tokenOf(response.continue_url)
    return yield* reservations.complete(token, { ...guest, email, expected_total: (expectedTotal ?? offer.price.total) as typeof offer.price.total }, clientAddress)
  }).pipe(Effect.provide(on))

interface JobRow {
  readonly id: string
  readonly kind: string
  readonly state: string
  readonly attempts: number
  readonly last_error: string | null
}
const jobsOf = (on: Instance, reservationId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<JobRow>`SELECT id, kind, state, attempts, last_error FROM outbox_jobs WHERE reservation_id = ${reservationId} ORDER BY seq`)
    .pipe(Effect.provide(on), Effect.orDie)
/** The reservation's changes in the feed: their cursors, and whether the PMS acknowledged each (docs/decisions.md#what-may-be-sold). */
const feedOf = (on: Instance, reservationId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ cursor: string; acked: boolean }>`
      SELECT seq::text AS cursor, acked_at IS NOT NULL AS acked FROM reservation_changes WHERE reservation_id = ${reservationId} ORDER BY seq`)
    .pipe(Effect.provide(on), Effect.orDie)
const pmsOf = (on: Instance, reservationId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ pms_status: string; pms_reference: string | null }>`SELECT pms_status, pms_reference FROM reservations WHERE id = ${reservationId}`)
    .pipe(Effect.map((rows) => rows[0]!), Effect.provide(on), Effect.orDie)

const build = <A, E>(layer: Layer.Layer<A, E>) => Layer.build(layer).pipe(Effect.orDie)

describe("the outbox, on PostgreSQL", () => {
  it.live("a completion writes its confirmation and PMS jobs in its own transaction; a 409 writes none", () =>
    Effect.gen(function*() {
      const url = yield* testDatabaseUrl
      const on = yield* build(instance(url, Layer.merge(noMail, noPms), Option.none()))
      const done = yield* completeOne(on, 30)
      expect((yield* jobsOf(on, done.reservation_id)).map((j) => [j.kind, j.state, j.attempts])).toEqual([
        ["confirmation_email", "pending", 0],
        ["pms_push", "pending", 0]
      ])
      const refused = yield* completeOne(on, 31, "en", 1).pipe(Effect.flip)
      expect(refused._tag).toBe("PriceChanged")
      const sql = yield* Effect.provide(SqlClient.SqlClient, on)
      const [{ n }] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM outbox_jobs`.pipe(Effect.orDie)
      expect(n).toBe(2)
    }), 60_000)

  it.live("update_guest while the PMS push waits replaces it; one held by a worker is not; the 11th update of the hour is 429", () =>
    Effect.gen(function*() {
      const url = yield* testDatabaseUrl
      const on = yield* build(instance(url, Layer.merge(noMail, noPms), Option.none()))
      const done = yield* completeOne(on, 33)
      const id = done.reservation_id as ReservationId
      const token = Option.getOrThrow(yield* Context.get(on, Tokens).reveal(id, "manage"))
      const management = Context.get(on, ReservationManagement)
      const update = (n: number) => management.act(token, { action: "update_guest", arrival_time: `1${n % 10}:00` }, "192.0.2.1")
      const pending = Effect.map(jobsOf(on, id), (jobs) => jobs.filter((j) => j.state === "pending").map((j) => j.kind))
      yield* update(0)
      yield* update(1)
      expect(yield* pending).toEqual(["confirmation_email", "pms_push", "guest_update_email", "guest_update_email"])

      // a worker holds the push (it may have read the reservation already): the next update queues one
      const claimed = yield* Context.get(on, OutboxRepo).claim(10, 30_000)
      expect(claimed.map((j) => j.kind)).toEqual(["confirmation_email", "pms_push"])
      yield* update(2)
      expect((yield* pending).filter((kind) => kind === "pms_push")).toHaveLength(2)

      for (let n = 3; n < 10; n++) yield* update(n)
      const refused = yield* update(10).pipe(Effect.flip)
      expect(refused._tag).toBe("RateLimited")
      expect(refused._tag === "RateLimited" && refused.retry_after_seconds).toBeGreaterThan(3_000)
      const jobs = yield* jobsOf(on, id)
      expect(jobs.filter((j) => j.kind === "guest_update_email")).toHaveLength(10)
      expect(jobs.filter((j) => j.kind === "pms_push")).toHaveLength(2)
    }), 60_000)

  it.live("jobs of one reservation and channel run in order; a stale attempt cannot finish a job taken again", () =>
    Effect.gen(function*() {
      const url = yield* testDatabaseUrl
      const on = yield* build(instance(url, Layer.merge(noMail, noPms), Option.none()))
      const done = yield* completeOne(on, 30)
      const id = done.reservation_id as ReservationId
      const outbox = Context.get(on, OutboxRepo)
      yield* outbox.enqueue([{ kind: "pms_cancel", reservation_id: id }, { kind: "cancellation_email", reservation_id: id }])
      const first = yield* outbox.claim(10, 100)
      expect(first.map((j) => j.kind)).toEqual(["confirmation_email", "pms_push"])
      expect(first.map((j) => [j.attempt, j.reservation_number])).toEqual([[1, done.reservation_number], [1, done.reservation_number]])
      expect(yield* outbox.claim(10, 100)).toEqual([])
      yield* Effect.sleep("150 millis") // the lease lapses: taken again, by another attempt
      const again = yield* outbox.claim(10, 30_000)
      expect(again.map((j) => [j.kind, j.attempt])).toEqual([["confirmation_email", 2], ["pms_push", 2]])
      expect(yield* outbox.finish(first[1]!)).toBe(false)
      expect(yield* outbox.hasLaterPending(again[1]!)).toBe(true)
      expect(yield* outbox.finish(again[1]!)).toBe(true)
      expect((yield* outbox.claim(10, 30_000)).map((j) => j.kind)).toEqual(["pms_cancel"])
      expect(yield* outbox.nextDueInMs).toSatisfy(Option.isSome)
    }), 60_000)

  it.live("the confirmation reaches a real SMTP server: recipient, subject in the guest's language, a working manage link, the PDF", () =>
    Effect.gen(function*() {
      const smtp = yield* smtpServer()
      const url = yield* testDatabaseUrl
      const on = yield* build(instance(url, Layer.merge(smtpMailer(smtp.url), noPms), Option.some(fast)))
      const done = yield* completeOne(on, 30, "fr")
      yield* eventually(Effect.sync(() => smtp.received.length >= 1))
      yield* eventually(Effect.map(jobsOf(on, done.reservation_id), (jobs) => jobs.every((j) => j.state === "done")))
      const [confirmation] = yield* jobsOf(on, done.reservation_id)
      expect(smtp.received).toHaveLength(1)
      expect(smtp.received[0]!.envelopeTo).toEqual(["jeanne@example.org"])
      const mail = yield* Effect.promise(() => simpleParser(smtp.received[0]!.raw))
      expect(mail.subject).toBe(`Votre réservation ${done.reservation_number} est confirmée – Hôtel Belle Rive`)
      expect(mail.from?.value).toEqual([{ name: "Hôtel Belle Rive", address: "reservations@belle-rive-nice.example" }])
      expect(mail.messageId).toBe(`<${confirmation!.id}@belle-rive-nice.example>`)
      expect(mail.text).toContain(`Numéro de réservation : ${done.reservation_number}`)
      const token = /http:\/\/hotel\.test\/manage#token=([A-Za-z0-9_-]+)/.exec(mail.text ?? "")?.[1]
      expect(mail.html || "").toContain(`href="http://hotel.test/manage#token=${token}"`)
      const verified = yield* Context.get(on, Tokens).verify(token!, "manage")
      expect(verified).toEqual({ reservationId: done.reservation_id, expired: false })
      expect(mail.attachments.map((a) => [a.filename, a.contentType])).toEqual([[`${done.reservation_number}.pdf`, "application/pdf"]])
      expect(mail.attachments[0]!.content.subarray(0, 4).toString()).toBe("%PDF")
      // no PMS configured: the push is done and the reservation stays PENDING
      expect(yield* pmsOf(on, done.reservation_id)).toEqual({ pms_status: "PENDING", pms_reference: null })
    }), 60_000)

  it.live("beyond MAIL_LIMIT_PER_RECIPIENT_PER_DAY an email is held back: kept with its recipient and reason, never sent", () =>
    Effect.gen(function*() {
      const smtp = yield* smtpServer()
      const url = yield* testDatabaseUrl
      const on = yield* build(instance(url, Layer.merge(smtpMailer(smtp.url), noPms), Option.some(fast), { mailLimitPerRecipientPerDay: 2 }))
      // three confirmations to one mailbox, however its address is written, and one to another
      const done = yield* Effect.forEach(["jeanne@example.org", "Jeanne@Example.org", "jeanne@example.org", "paul@example.org"], (email, i) =>
        completeOne(on, 30 + i, "en", undefined, email))
      const sql = yield* Effect.provide(SqlClient.SqlClient, on)
      const emailJobs = sql<{ state: string; recipient: string | null; last_error: string | null }>`
        SELECT state, recipient, last_error FROM outbox_jobs WHERE kind = 'confirmation_email' ORDER BY seq`.pipe(Effect.orDie)
      const pendingJobs = sql<{ n: number }>`SELECT count(*)::int AS n FROM outbox_jobs WHERE state = 'pending'`.pipe(Effect.orDie)
      yield* eventually(Effect.map(pendingJobs, ([row]) => row!.n === 0))
      const jobs = yield* emailJobs
      expect(jobs.filter((j) => j.state === "done").map((j) => j.recipient).sort()).toEqual(["jeanne@example.org", "jeanne@example.org", "paul@example.org"])
      const held = jobs.filter((j) => j.state === "held_back")
      expect(held).toHaveLength(1)
      expect(held[0]).toMatchObject({ recipient: "jeanne@example.org", last_error: expect.stringContaining("MAIL_LIMIT_PER_RECIPIENT_PER_DAY 2") })
      expect(smtp.received.map((m) => m.envelopeTo[0]!.toLowerCase()).sort()).toEqual(["jeanne@example.org", "jeanne@example.org", "paul@example.org"])
      // the held-back email's reservation is completed all the same; its PMS push went
      const [{ n }] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM outbox_jobs WHERE kind = 'pms_push' AND state = 'done'`.pipe(Effect.orDie)
      expect([n, done.length]).toEqual([4, 4])
    }), 60_000)

  it.live("guest update and cancellation jobs: their own emails, the PMS DELETE after the push, SYNCED again", () =>
    Effect.gen(function*() {
      const smtp = yield* smtpServer()
      const pms = yield* pmsStub((n) => n === 0 ? { status: 200, body: "{\"reference\":\"PMS-7\"}" } : { status: 204 })
      const url = yield* testDatabaseUrl
      const on = yield* build(instance(url, Layer.merge(smtpMailer(smtp.url), Pms.http(pms.url)), Option.some(fast)))
      const done = yield* completeOne(on, 30)
      const id = done.reservation_id as ReservationId
      yield* eventually(Effect.map(pmsOf(on, id), (r) => r.pms_status === "SYNCED"))
      // what the manage endpoints write: a guest update, then a cancellation, each in its transaction
      const outbox = Context.get(on, OutboxRepo)
      yield* outbox.enqueue([{ kind: "guest_update_email", reservation_id: id }])
      yield* Context.get(on, Transactions).atomically(Effect.gen(function*() {
        yield* Context.get(on, ReservationRepo).setPmsStatus(id, "PENDING", Option.none())
        yield* outbox.enqueue([{ kind: "cancellation_email", reservation_id: id }, { kind: "pms_cancel", reservation_id: id }])
      }))
      yield* eventually(Effect.map(jobsOf(on, id), (jobs) => jobs.length === 5 && jobs.every((j) => j.state === "done")))
      expect(yield* pmsOf(on, id)).toEqual({ pms_status: "SYNCED", pms_reference: "PMS-7" })
      expect(pms.requests.map((r) => r.method)).toEqual(["PUT", "DELETE"])
      // both calls carry the cursor of the reservation's last change (its jobs were written here by hand, with no change
      // of their own: the completion's) and acknowledge it
      const changes = yield* feedOf(on, id)
      expect(pms.requests.map((r) => r.headers["feed-cursor"])).toEqual([changes.at(-1)!.cursor, changes.at(-1)!.cursor])
      expect(changes.every((c) => c.acked)).toBe(true)
      const subjects = yield* Effect.forEach(smtp.received, (m) => Effect.promise(() => simpleParser(m.raw)).pipe(Effect.map((p) => p.subject)))
      expect(subjects).toEqual([
        `Your reservation ${done.reservation_number} at Hôtel Belle Rive is confirmed`,
        `Your reservation ${done.reservation_number} at Hôtel Belle Rive: details updated`,
        `Your reservation ${done.reservation_number} at Hôtel Belle Rive is cancelled`
      ])
    }), 60_000)

  it.live("a stay change: 'reservation changed' in the guest's language with the new PDF, and a PUT of the new content", () =>
    Effect.gen(function*() {
      const smtp = yield* smtpServer()
      const pms = yield* pmsStub((n) => ({ status: 200, body: `{"reference":"PMS-${n}"}` }))
      const url = yield* testDatabaseUrl
      const on = yield* build(instance(url, Layer.merge(smtpMailer(smtp.url), Pms.http(pms.url)), Option.some(fast)))
      const subjects = {
        en: (n: string) => `Your reservation ${n} at Hôtel Belle Rive is changed`,
        fr: (n: string) => `Votre réservation ${n} est modifiée – Hôtel Belle Rive`,
        ru: (n: string) => `Ваше бронирование ${n} изменено – Hôtel Belle Rive`
      }
      for (const [i, language] of (["en", "fr", "ru"] as const).entries()) {
        const daysAhead = 40 + 5 * i
        const done = yield* completeOne(on, daysAhead, language)
        const id = done.reservation_id as ReservationId
        yield* eventually(Effect.map(pmsOf(on, id), (r) => r.pms_status === "SYNCED"))
        const token = Option.getOrThrow(yield* Context.get(on, Tokens).reveal(id, "manage"))
        const management = Context.get(on, ReservationManagement)
        // one day later and one night longer, with a second room
        const checkin = daysFromToday(daysAhead + 1)
        const checkout = daysFromToday(daysAhead + 3)
        const rooms = [
          { room_type_id: "double" as RoomTypeId, quantity: 1, adults: 2, children_ages: [] },
          { room_type_id: "twin" as RoomTypeId, quantity: 1, adults: 1, children_ages: [] }
        ]
        const quoted = yield* management.quoteChange(token, { action: "quote_change", checkin, checkout, rooms })
        const changed = yield* management.act(token, { action: "change_stay", checkin, checkout, rooms, expected_total: quoted.new_total }, "192.0.2.1")
        // the push of the change makes it PENDING again until the PMS confirms it
        expect(changed.pms_status).toBe("PENDING")
        yield* eventually(Effect.map(jobsOf(on, id), (jobs) => jobs.length === 4 && jobs.every((j) => j.state === "done")))
        expect((yield* jobsOf(on, id)).map((j) => j.kind)).toEqual(["confirmation_email", "pms_push", "stay_change_email", "pms_push"])
        expect(yield* pmsOf(on, id)).toEqual({ pms_status: "SYNCED", pms_reference: `PMS-${2 * i + 1}` })

        const mails = yield* Effect.forEach(smtp.received.slice(2 * i), (m) => Effect.promise(() => simpleParser(m.raw)))
        expect(mails.map((m) => m.subject)).toEqual([
          expect.stringContaining(done.reservation_number),
          subjects[language](done.reservation_number)
        ])
        const [confirmation, change] = mails as [typeof mails[0], typeof mails[0]]
        // the same manage link as the confirmation's
        const linkOf = (text: string | undefined) => /http:\/\/hotel\.test\/manage#token=[A-Za-z0-9_-]+/.exec(text ?? "")?.[0]
        expect(linkOf(change.text)).toBe(`http://hotel.test/manage#token=${token}`)
        expect(linkOf(confirmation.text)).toBe(linkOf(change.text))
        expect(change.attachments.map((a) => [a.filename, a.contentType])).toEqual([[`${done.reservation_number}.pdf`, "application/pdf"]])
        const pdf = yield* Effect.promise(() => pdfText(new Uint8Array(change.attachments[0]!.content)))
        expect(pdf).toContain(formatDate(checkin, language))
        expect(pdf).toContain(formatDate(checkout, language))
        expect(pdf).not.toContain(formatDate(daysFromToday(daysAhead), language))

        const [created, update] = pms.requests.slice(2 * i).map((r) => ({ ...r, body: JSON.parse(r.body) }))
        expect(update).toMatchObject({ method: "PUT", url: `/pms/reservations/${done.reservation_number}` })
        expect(update!.headers["idempotency-key"]).not.toBe(created!.headers["idempotency-key"])
        // each room request's price line, as the new stay priced it
        const [double, twin] = Option.getOrThrow(yield* Context.get(on, ReservationRepo).find(id)).line_totals
        expect(update!.body).toMatchObject({
          reservation_number: done.reservation_number,
          reservation_id: id,
          status: "GUEST_COMPLETED",
          language,
          stay: { checkin, checkout, nights: 2 },
          rooms: [
            { room_index: 0, room_type_id: "double", quantity: 1, adults: 2, children_ages: [], total: double / 100 },
            { room_index: 1, room_type_id: "twin", quantity: 1, adults: 1, children_ages: [], total: twin / 100 }
          ],
          promo_code: null,
          price: { total: quoted.new_total / 100 },
          created_at: created!.body.created_at
        })
        expect(update!.body.updated_at >= created!.body.updated_at).toBe(true)
      }
    }), 90_000)

  it.live("a push finishing while a change is being written leaves the reservation PENDING: the change's own push is still to come", () =>
    Effect.gen(function*() {
      const pms = yield* pmsStub({ status: 200, body: "{\"reference\":\"PMS-1\"}" })
      const url = yield* testDatabaseUrl
      const delivery = Layer.merge(noMail, Pms.http(pms.url))
      const on = yield* build(instance(url, delivery, Option.none()))
      // the deliveries of a worker, driven by hand
      const deliveries = Context.get(
        yield* build(Deliveries.layer.pipe(Layer.provide(Layer.mergeAll(Documents.layer, delivery, Layer.succeedContext(on), configOf())))),
        Deliveries
      )
      const done = yield* completeOne(on, 30)
      const id = done.reservation_id as ReservationId
      const push = (yield* Context.get(on, OutboxRepo).claim(10, 30_000)).find((j) => j.kind === "pms_push")!
      // a change's transaction (as change_stay or cancel writes it): the reservation row locked until it
      // commits with its own PMS job
      const locked = yield* Deferred.make<void>()
      const commit = yield* Deferred.make<void>()
      const change = yield* Context.get(on, Transactions).atomically(Effect.gen(function*() {
        yield* Context.get(on, ReservationRepo).findForUpdate(id)
        yield* Deferred.succeed(locked, undefined)
        yield* Deferred.await(commit)
        yield* Context.get(on, OutboxRepo).enqueue([{ kind: "pms_push", reservation_id: id }])
      })).pipe(Effect.forkChild)
      yield* Deferred.await(locked)
      // the first push is delivered meanwhile, and its finish waits for the reservation row
      const delivered = yield* Effect.forkChild(deliveries.deliver(push))
      const sql = yield* Effect.provide(SqlClient.SqlClient, on)
      yield* eventually(Effect.map(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`
          .pipe(Effect.orDie),
        ([row]) => row!.n > 0
      ))
      yield* Deferred.succeed(commit, undefined)
      yield* Fiber.join(change)
      yield* Fiber.join(delivered)
      expect(pms.requests).toHaveLength(1)
      expect((yield* pmsOf(on, id)).pms_status).toBe("PENDING")
    }), 60_000)

  it.live("SMTP down, then up: the email arrives once it is up, exactly once", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const url = yield* testDatabaseUrl
      const worker = yield* idleReports
      const on = yield* build(instance(url, Layer.merge(smtpMailer(`smtp://127.0.0.1:${port}`), noPms), Option.some(fast), {}, worker.hooks))
      const done = yield* completeOne(on, 30)
      yield* eventually(Effect.map(jobsOf(on, done.reservation_id), ([confirmation]) => confirmation!.attempts >= 3))
      const [failing] = yield* jobsOf(on, done.reservation_id)
      expect(failing).toMatchObject({ state: "pending", last_error: expect.stringContaining("mail not delivered") })
      const smtp = yield* smtpServer({ port })
      yield* eventually(Effect.map(jobsOf(on, done.reservation_id), ([confirmation]) => confirmation!.state === "done"))
      yield* worker.quiet
      expect(smtp.received).toHaveLength(1)
    }), 60_000)

  it.live("a PMS answering 500, then 200: SYNCED with its reference, one Idempotency-Key throughout", () =>
    Effect.gen(function*() {
      const pms = yield* pmsStub((n) => n < 2 ? { status: 500 } : { status: 200, body: "{\"reference\":\"PMS-42\"}" })
      const url = yield* testDatabaseUrl
      const on = yield* build(instance(url, Layer.merge(noMail, Pms.http(pms.url)), Option.some(fast)))
      const done = yield* completeOne(on, 30)
      yield* eventually(Effect.map(pmsOf(on, done.reservation_id), (r) => r.pms_status === "SYNCED"))
      expect(yield* pmsOf(on, done.reservation_id)).toEqual({ pms_status: "SYNCED", pms_reference: "PMS-42" })
      expect(pms.requests).toHaveLength(3)
      expect(new Set(pms.requests.map((r) => r.headers["idempotency-key"])).size).toBe(1)
      const push = (yield* jobsOf(on, done.reservation_id)).find((j) => j.kind === "pms_push")
      expect(push).toMatchObject({ state: "done", attempts: 3 })
      // every attempt carried the change's cursor; only the 200 acknowledged it, so a figure may count it from then
      const [change] = yield* feedOf(on, done.reservation_id)
      expect(pms.requests.map((r) => r.headers["feed-cursor"])).toEqual([change!.cursor, change!.cursor, change!.cursor])
      expect(change!.acked).toBe(true)
    }), 60_000)

  it.live("a PMS answering a redirect: the attempt failed and is retried, never sent to the redirect's target", () =>
    Effect.gen(function*() {
      const elsewhere = yield* pmsStub({ status: 200, body: "{\"reference\":\"ELSEWHERE-1\"}" })
      const pms = yield* pmsStub((n) =>
        // 303: a client that follows redirects would go on to the target at once
        n === 0 ? { status: 303, headers: { location: elsewhere.url } } : { status: 200, body: "{\"reference\":\"PMS-43\"}" }
      )
      const url = yield* testDatabaseUrl
      const on = yield* build(instance(url, Layer.merge(noMail, Pms.http(pms.url)), Option.some(fast)))
      const done = yield* completeOne(on, 30)
      yield* eventually(Effect.map(pmsOf(on, done.reservation_id), (r) => r.pms_status === "SYNCED"))
      expect(yield* pmsOf(on, done.reservation_id)).toEqual({ pms_status: "SYNCED", pms_reference: "PMS-43" })
      expect(pms.requests).toHaveLength(2)
      expect(elsewhere.requests).toEqual([])
    }), 60_000)

  it.live("a PMS answering 500 forever: the job fails after its last attempt, kept, and the reservation is FAILED", () =>
    Effect.gen(function*() {
      const pms = yield* pmsStub({ status: 500, body: "{\"error\":\"down\"}" })
      const url = yield* testDatabaseUrl
      const on = yield* build(instance(url, Layer.merge(noMail, Pms.http(pms.url)), Option.some({ ...fast, maxAttempts: 3 })))
      const done = yield* completeOne(on, 30)
      yield* eventually(Effect.map(pmsOf(on, done.reservation_id), (r) => r.pms_status === "FAILED"))
      const push = (yield* jobsOf(on, done.reservation_id)).find((j) => j.kind === "pms_push")
      expect(push).toMatchObject({ state: "failed", attempts: 3, last_error: expect.stringContaining("answered 500") })
      expect(pms.requests).toHaveLength(3)
      // never acknowledged: no figure without a cursor ever counts it
      expect((yield* feedOf(on, done.reservation_id)).map((c) => c.acked)).toEqual([false])
    }), 60_000)

  it.live("a PMS refusing the reservation (400): failed at once, not retried", () =>
    Effect.gen(function*() {
      const pms = yield* pmsStub({ status: 400, body: "{\"error\":\"bad phone\"}" })
      const url = yield* testDatabaseUrl
      const on = yield* build(instance(url, Layer.merge(noMail, Pms.http(pms.url)), Option.some(fast)))
      const done = yield* completeOne(on, 30)
      yield* eventually(Effect.map(pmsOf(on, done.reservation_id), (r) => r.pms_status === "FAILED"))
      expect(pms.requests).toHaveLength(1)
    }), 60_000)

  it.live("a worker killed in the middle of a job: another takes it after the lease and delivers it once", () =>
    Effect.gen(function*() {
      const smtp = yield* smtpServer()
      const url = yield* testDatabaseUrl
      const dead = yield* build(instance(url, Layer.merge(noMail, noPms), Option.none()))
      const done = yield* completeOne(dead, 30)
      // what a worker killed after its claim leaves: the jobs leased, never finished
      const claimed = yield* Context.get(dead, OutboxRepo).claim(10, 1_500)
      expect(claimed).toHaveLength(2)
      const started = performance.now()
      const worker = yield* idleReports
      const on = yield* build(instance(url, Layer.merge(smtpMailer(smtp.url), noPms), Option.some(fast), {}, worker.hooks))
      yield* eventually(Effect.map(jobsOf(on, done.reservation_id), (jobs) => jobs.every((j) => j.state === "done")))
      expect(performance.now() - started).toBeGreaterThan(1_000)
      expect((yield* jobsOf(on, done.reservation_id)).map((j) => j.attempts)).toEqual([2, 2])
      yield* worker.quiet
      expect(smtp.received).toHaveLength(1)
    }), 60_000)

  it.live("a delivery slower than its lease keeps it: another instance never sends it again", () =>
    Effect.gen(function*() {
      const smtp = yield* smtpServer()
      const url = yield* testDatabaseUrl
      // a mail server that takes 4 s to accept each message, over twice the lease
      const slowMailer = Layer.effect(Mailer, Effect.map(Mailer, (mailer) => ({ send: (m: MailMessage) => Effect.delay(mailer.send(m), "4 seconds") })))
        .pipe(Layer.provide(smtpMailer(smtp.url)))
      const options = Option.some({ ...fast, leaseMs: 1_500 })
      const [first, second] = [yield* idleReports, yield* idleReports]
      const [a] = yield* Effect.all([
        build(instance(url, Layer.merge(slowMailer, noPms), options, {}, first.hooks)),
        build(instance(url, Layer.merge(slowMailer, noPms), options, {}, second.hooks))
      ])
      const done = yield* completeOne(a, 30)
      yield* eventually(Effect.map(jobsOf(a, done.reservation_id), (jobs) => jobs.every((j) => j.state === "done")))
      yield* Effect.all([first.quiet, second.quiet], { concurrency: "unbounded" })
      expect(smtp.received).toHaveLength(1)
      expect((yield* jobsOf(a, done.reservation_id)).map((j) => j.attempts)).toEqual([1, 1])
    }), 60_000)

  it.live("a worker shut down mid-delivery lets it finish within drainMs", () =>
    Effect.gen(function*() {
      const smtp = yield* smtpServer()
      const url = yield* testDatabaseUrl
      const on = yield* build(instance(url, Layer.merge(noMail, noPms), Option.none()))
      const slowMailer = Layer.effect(Mailer, Effect.map(Mailer, (mailer) => ({ send: (m: MailMessage) => Effect.delay(mailer.send(m), "700 millis") })))
        .pipe(Layer.provide(smtpMailer(smtp.url)))
      const scope = yield* Scope.make()
      // drainMs far above the delivery's own time: its PDF comes first, and the first one starts the PDF
      // thread (pdf-lib and the fonts), which took over 5 s on CI's two cores beside the Chromium tests
      yield* Layer.buildWithScope(instance(url, Layer.merge(slowMailer, noPms), Option.some({ ...fast, drainMs: 30_000 })), scope)
      const done = yield* completeOne(on, 30)
      yield* eventually(Effect.map(jobsOf(on, done.reservation_id), ([confirmation]) => confirmation!.attempts === 1))
      yield* Scope.close(scope, Exit.void)
      expect(smtp.received).toHaveLength(1)
      expect((yield* jobsOf(on, done.reservation_id)).map((j) => j.state)).toEqual(["done", "done"])
    }), 60_000)

  it.live("a worker shut down mid-delivery gives the job back after drainMs, for the next worker at once", () =>
    Effect.gen(function*() {
      const smtp = yield* smtpServer()
      const url = yield* testDatabaseUrl
      const on = yield* build(instance(url, Layer.merge(noMail, noPms), Option.none()))
      const stuckMailer = Layer.succeed(Mailer, { send: () => Effect.never })
      const scope = yield* Scope.make()
      yield* Layer.buildWithScope(instance(url, Layer.merge(stuckMailer, noPms), Option.some({ ...fast, leaseMs: 30_000, drainMs: 300 })), scope)
      const done = yield* completeOne(on, 30)
      yield* eventually(Effect.map(jobsOf(on, done.reservation_id), ([confirmation]) => confirmation!.attempts === 1))
      yield* Scope.close(scope, Exit.void)
      const sql = yield* Effect.provide(SqlClient.SqlClient, on)
      const [stuck] = yield* sql<{ state: string; locked_until: string | null }>`
        SELECT state, locked_until FROM outbox_jobs WHERE reservation_id = ${done.reservation_id} AND kind = 'confirmation_email'`
        .pipe(Effect.orDie)
      expect(stuck).toEqual({ state: "pending", locked_until: null })
      // the next worker delivers it at once, not after a 30 s lease (its first PDF starts the PDF
      // thread, which loads pdf-lib and the fonts: seconds on a loaded machine, far below 30)
      yield* build(instance(url, Layer.merge(smtpMailer(smtp.url), noPms), Option.some(fast)))
      yield* eventually(Effect.sync(() => smtp.received.length === 1), 10_000)
    }), 60_000)

  it.live("two instances with workers on one database deliver every job exactly once", () =>
    Effect.gen(function*() {
      const smtp = yield* smtpServer()
      const url = yield* testDatabaseUrl
      // 30 emails to one guest: the daily limit per recipient is a test of its own
      const unlimited = { mailLimitPerRecipientPerDay: 0 }
      const [first, second] = [yield* idleReports, yield* idleReports]
      const [a, b] = yield* Effect.all([
        build(instance(url, Layer.merge(smtpMailer(smtp.url), noPms), Option.some(fast), unlimited, first.hooks)),
        build(instance(url, Layer.merge(smtpMailer(smtp.url), noPms), Option.some(fast), unlimited, second.hooks))
      ])
      const count = 30
      const done = yield* Effect.forEach(Array.from({ length: count }, (_, i) => i), (i) => completeOne(i % 2 === 0 ? a : b, 30 + i), {
        concurrency: 6
      })
      const sql = yield* Effect.provide(SqlClient.SqlClient, a)
      const pending = sql<{ n: number }>`SELECT count(*)::int AS n FROM outbox_jobs WHERE state <> 'done'`.pipe(
        Effect.map(([row]) => row!.n),
        Effect.orDie
      )
      yield* eventually(Effect.map(pending, (n) => n === 0), 30_000)
      yield* Effect.all([first.quiet, second.quiet], { concurrency: "unbounded" })
      const attempts = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM outbox_jobs WHERE attempts <> 1`.pipe(Effect.orDie)
      expect(attempts[0]!.n).toBe(0)
      const ids = yield* Effect.forEach(smtp.received, (m) => Effect.promise(() => simpleParser(m.raw)).pipe(Effect.map((p) => p.messageId)))
      expect(ids).toHaveLength(count)
      expect(new Set(ids).size).toBe(count)
      expect(new Set(done.map((d) => d.reservation_number)).size).toBe(count)
    }), 120_000)
})
