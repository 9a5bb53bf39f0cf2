/**
 * How fast the outbox delivers, run on demand (never part of `npm test`):
 *
 *   npm run build && npx tsx bench/outbox.ts
 *
 * Starts an SMTP server in this process and the service (as `npm start` runs it) on a fresh
 * database of BENCH_DATABASE_URL's server with SMTP_URL pointed at it. Each guest has an address of
 * their own, so each confirmation is matched with its completion.
 * 1. BENCH_COMPLETIONS (default 100) completions one at a time, then as many 10 at a time: the delay
 *    from the completion's response to the SMTP server's receipt of its confirmation (PDF included),
 *    p50, p99 and max.
 * 2. The SMTP server stopped, 20 completions, OUTAGE_SECONDS (default 10) later the server started
 *    again: the delay from the restart to the first and the last of the 20 emails, beside the latest
 *    retry the backoff alone had scheduled at the restart (what the queue would take without
 *    bringing the waiting jobs forward when the server answers again).
 * Exits 1 if an email is missing or arrives twice.
 */
import pg from "pg"
import { SMTPServer } from "smtp-server"
import {
  cleanups,
  complete,
  freePort,
  isoDate,
  type Pending,
  percentile,
  pool,
  prepare,
  runBench,
  sleep,
  startService,
  termsVersion
} from "./service.js"

const COMPLETIONS = Number(process.env["BENCH_COMPLETIONS"] ?? "100")
const OUTAGE_SECONDS = Number(process.env["OUTAGE_SECONDS"] ?? "10")
const QUEUED = 20

/** When each recipient's emails arrived (performance.now()). */
const received = new Map<string, Array<number>>()

const startSmtp = (port: number) =>
  new Promise<SMTPServer>((resolve) => {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onData: (stream, session, callback) => {
        stream.resume().on("end", () => {
          const at = performance.now()
          for (const { address } of session.envelope.rcptTo) received.set(address, [...(received.get(address) ?? []), at])
          callback()
        })
      }
    })
    server.listen(port, "127.0.0.1", () => resolve(server))
  })
const stopSmtp = (server: SMTPServer) => new Promise<void>((resolve) => server.close(() => resolve()))

/** Waits until every address has an email; fails after `timeoutMs`. */
const allReceived = async (addresses: ReadonlyArray<string>, timeoutMs = 120_000) => {
  const deadline = performance.now() + timeoutMs
  while (addresses.some((a) => !received.has(a))) {
    if (performance.now() > deadline) throw new Error(`${addresses.filter((a) => !received.has(a)).length} emails missing`)
    await sleep(5)
  }
}

const ms = (value: number) => `${value.toFixed(0)} ms`

const main = async () => {
  const smtpPort = await freePort()
  let smtp = await startSmtp(smtpPort)
  cleanups.push(() => stopSmtp(smtp))
  const { base, databaseUrl } = await startService({ SMTP_URL: `smtp://127.0.0.1:${smtpPort}` })

  const rooms = ["double", "twin", "deluxe"]
  const total = 2 * COMPLETIONS + QUEUED
  console.error(`preparing ${total} reservations…`)
  const pending = await pool(
    Array.from({ length: total }, (_, i) => ({ checkin: isoDate(60 + i), checkout: isoDate(61 + i), room_type_id: rooms[i % 3]! })),
    10,
    (stay) => prepare(base, stay)
  )
  const terms = await termsVersion(base, pending[0]!.token)

  /** Completes each with a guest address of its own; when each response came. */
  const completeAll = (batch: ReadonlyArray<Pending>, concurrency: number, tag: string) =>
    pool(batch.map((p, i) => ({ p, email: `guest-${tag}-${i}@example.org` })), concurrency, async ({ email, p }) => {
      const { answer } = await complete(base, terms, p, email)
      if (answer.status !== 200) throw new Error(`completion: ${answer.status} ${JSON.stringify(answer.body)}`)
      return { email, respondedAt: performance.now() }
    })

  const report: Array<string> = []
  for (const [phase, concurrency] of [[0, 1], [1, 10]] as const) {
    const batch = pending.slice(phase * COMPLETIONS, (phase + 1) * COMPLETIONS)
    console.error(`${batch.length} completions, ${concurrency} at a time…`)
    const done = await completeAll(batch, concurrency, `c${concurrency}`)
    await allReceived(done.map((d) => d.email))
    const delays = done.map((d) => received.get(d.email)![0]! - d.respondedAt)
    report.push(
      `completion response → SMTP receipt, ${done.length} completions ${concurrency} at a time: ` +
        `p50 ${ms(percentile(delays, 50))}, p99 ${ms(percentile(delays, 99))}, max ${ms(Math.max(...delays))}`
    )
  }

  console.error(`SMTP server stopped; ${QUEUED} completions; restarted after ${OUTAGE_SECONDS} s…`)
  await stopSmtp(smtp)
  const queued = await completeAll(pending.slice(2 * COMPLETIONS), 5, "outage")
  await sleep(OUTAGE_SECONDS * 1000)
  const db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  const { rows } = await db.query<{ ms: number; attempts: number }>(
    `SELECT (EXTRACT(EPOCH FROM max(run_at) - now()) * 1000)::float8 AS ms, max(attempts) AS attempts
     FROM outbox_jobs WHERE state = 'pending' AND kind = 'confirmation_email'`
  )
  await db.end()
  const restartedAt = performance.now()
  smtp = await startSmtp(smtpPort)
  await allReceived(queued.map((q) => q.email))
  const arrivals = queued.map((q) => received.get(q.email)![0]! - restartedAt)
  report.push(
    `SMTP down ${OUTAGE_SECONDS} s with ${QUEUED} emails queued (up to ${rows[0]?.attempts} attempts each): from its restart, ` +
      `first email ${ms(Math.min(...arrivals))}, last ${ms(Math.max(...arrivals))}; ` +
      `the backoff alone had the latest retry ${ms(rows[0]?.ms ?? Number.NaN)} after the restart`
  )

  await sleep(1000)
  const twice = [...received.values()].filter((times) => times.length > 1).length
  report.push(`${received.size} emails received, ${twice} more than once`)
  console.log(report.join("\n"))
  if (twice > 0 || received.size !== total) process.exitCode = 1
}

await runBench(main)
