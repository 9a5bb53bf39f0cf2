/**
 * The PDF run of `npm run bench`: GET /v1/hotel timed one request after another while 20
 * confirmation PDFs are downloaded at once, so the table shows what a PDF costs the other requests.
 */
import { simpleParser } from "mailparser"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import pg from "pg"
import { call, percentile, pool, sleep } from "./service.js"

/** PDFs downloaded at once. */
export const PDF_DOWNLOADS = 20

/**
 * Waits until the outbox has delivered every job (each confirmation email draws its PDF too): on a
 * machine busy with other work, the PDF thread's lower priority can make that minutes.
 */
export const outboxIdle = async (databaseUrl: string, timeoutMs = 900_000) => {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox_jobs WHERE state = 'pending'`)
      if (rows[0]!.n === 0) return
      await sleep(200)
    }
    throw new Error(`the outbox still has pending jobs after ${timeoutMs / 1000} s`)
  } finally {
    await client.end()
  }
}

/** The manage tokens of the first `count` confirmation emails written to `dataDir`/mail, as a guest reads them. */
export const manageTokens = async (dataDir: string, count: number) => {
  const dir = join(dataDir, "mail")
  const tokens: Array<string> = []
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".eml")).sort()) {
    const mail = await simpleParser(readFileSync(join(dir, file)))
    const token = /\/manage#token=([A-Za-z0-9_-]+)/.exec(mail.text ?? "")?.[1]
    if (token !== undefined && mail.attachments.some((a) => a.contentType === "application/pdf")) tokens.push(token)
    if (tokens.length === count) return tokens
  }
  throw new Error(`${tokens.length} confirmation emails in ${dir}, ${count} needed`)
}

/** A new version of each reservation's confirmation (its arrival time), so that no PDF of it is kept yet. */
export const changeArrivalTimes = (base: string, tokens: ReadonlyArray<string>, arrivalTime: string) =>
  pool(tokens, 5, async (token) => {
    const answer = await call(`${base}/v1/reservation-manage`, { action: "update_guest", arrival_time: arrivalTime }, { "x-reservation-token": token })
    if (answer.status !== 200) throw new Error(`update_guest: ${answer.status} ${JSON.stringify(answer.body)}`)
  })

/** Downloads one confirmation PDF: its latency. */
const download = async (base: string, token: string) => {
  const started = performance.now()
  const r = await fetch(`${base}/v1/reservation-document`, { headers: { "x-reservation-token": token } })
  const bytes = new Uint8Array(await r.arrayBuffer())
  if (r.status !== 200 || String.fromCharCode(...bytes.subarray(0, 5)) !== "%PDF-") throw new Error(`document: ${r.status}`)
  return performance.now() - started
}

/** GET `url` one request after another until `until` settles: each answer's latency. */
const probe = async (url: string, until: Promise<unknown>) => {
  let settled = false
  void until.finally(() => (settled = true)).catch(() => undefined)
  const latencies: Array<number> = []
  while (!settled) {
    const started = performance.now()
    const r = await fetch(url)
    await r.arrayBuffer()
    if (r.status !== 200) throw new Error(`${url}: ${r.status}`)
    latencies.push(performance.now() - started)
  }
  return latencies
}

export interface PdfRun {
  readonly name: string
  /** GET /v1/hotel's latencies. */
  readonly probe: ReadonlyArray<number>
  /** The downloads' latencies (none when alone). */
  readonly downloads: ReadonlyArray<number>
}

/** GET /v1/hotel alone for `ms`. */
export const probeAlone = async (base: string, ms: number): Promise<PdfRun> => ({
  name: "alone",
  probe: await probe(`${base}/v1/hotel`, sleep(ms)),
  downloads: []
})

/** GET /v1/hotel while every token's PDF is downloaded at once. */
export const probeWhileDownloading = async (base: string, tokens: ReadonlyArray<string>) => {
  const downloads = Promise.all(tokens.map((token) => download(base, token)))
  const latencies = await probe(`${base}/v1/hotel`, downloads)
  return { probe: latencies, downloads: await downloads }
}

export const pdfRow = (run: PdfRun) => [
  run.name,
  String(run.probe.length),
  percentile(run.probe, 50).toFixed(1),
  percentile(run.probe, 99).toFixed(1),
  Math.max(...run.probe).toFixed(1),
  run.downloads.length === 0 ? "" : String(run.downloads.length),
  run.downloads.length === 0 ? "" : percentile(run.downloads, 50).toFixed(0),
  run.downloads.length === 0 ? "" : Math.max(...run.downloads).toFixed(0)
]

export const PDF_HEADER = ["GET /v1/hotel, one at a time", "requests", "p50 (ms)", "p99 (ms)", "max (ms)", "PDFs", "PDF p50 (ms)", "PDF max (ms)"]
