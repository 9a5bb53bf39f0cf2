/**
 * The guest's journey's targets (docs/decisions.md#booking-page), measured:
 *
 *   npm run lighthouse                       # CHROME_PATH defaults to /usr/bin/chromium
 *
 * Starts the service as `npm start` runs it (a fresh database on BENCH_DATABASE_URL's server, as
 * `npm run bench` does) and runs Lighthouse with its mobile defaults (simulated throttling) on the
 * local Chromium, never a downloaded one, on the three pages a guest goes through: a deep link of
 * /book (the offers of a stay 60 days ahead), /complete of an intent made for it, and /manage of a
 * reservation completed (its link read from the confirmation email, as the guest has it). Prints
 * each page's scores and JavaScript and CSS (as sent: compressed, headers included; and gzip -9 of
 * each file) and the widget's gzip size, then fails when a target is missed: performance ≥ 95,
 * accessibility 100, best practices ≥ 95, JS + CSS ≤ 35 KB compressed per page, widget ≤ 10 KiB.
 * Each page is measured LIGHTHOUSE_RUNS times (3), and its median run by performance reported:
 * the simulated throttling scales the page's tasks as they ran, so a busy machine lowers a run's score.
 */
import * as chromeLauncher from "chrome-launcher"
import lighthouse from "lighthouse"
import { simpleParser } from "mailparser"
import { get } from "node:http"
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { availableParallelism, loadavg } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { outboxIdle } from "./pdfs.js"
import { cleanups, complete, isoDate, prepare, startService, termsVersion } from "./service.js"

const TARGETS = { performance: 95, accessibility: 100, "best-practices": 95 } as const
const PAGE_BUDGET_BYTES = 35 * 1024
const WIDGET_BUDGET_BYTES = 10 * 1024
/** Where each page's full Lighthouse report is written (ignored by git, kept by CI as the tests' artifacts are). */
const REPORTS = fileURLToPath(new URL("../test-artifacts/lighthouse/", import.meta.url))

const gzipOf = async (url: string) => gzipSync(Buffer.from(await (await fetch(url)).arrayBuffer()), { level: 9 }).length

/** The body as the service sends it to a browser that accepts br (Node's fetch would decode it): its bytes. */
const sentBytes = (url: string) =>
  new Promise<number>((resolve, reject) => {
    get(url, { headers: { "accept-encoding": "br, gzip" } }, (response) => {
      let bytes = 0
      response.on("data", (chunk: Buffer) => (bytes += chunk.length))
      response.on("end", () => resolve(bytes))
    }).on("error", reject)
  })

/** The manage link's token of the one reservation completed, from its confirmation email. */
const manageToken = async (dataDir: string) => {
  const dir = join(dataDir, "mail")
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".eml"))) {
    const token = /\/manage#token=([A-Za-z0-9_-]+)/.exec((await simpleParser(readFileSync(join(dir, file)))).text ?? "")?.[1]
    if (token !== undefined) return token
  }
  throw new Error(`no manage link in ${dir}`)
}

/** One page measured: Lighthouse's scores and timings, and the page's own scripts and stylesheets. */
const measure = async (port: number, base: string, url: string) => {
  const result = await lighthouse(url, {
    port,
    output: "json",
    logLevel: "error",
    onlyCategories: ["performance", "accessibility", "best-practices"]
  })
  if (result === undefined) throw new Error(`Lighthouse answered nothing for ${url}`)
  const { lhr } = result
  const scores = Object.fromEntries(Object.entries(lhr.categories).map(([id, category]) => [id, Math.round((category.score ?? 0) * 100)]))
  // what the page loaded of its own: scripts and stylesheets, as sent and gzip -9
  const requests = (lhr.audits["network-requests"]?.details as { items?: Array<{ url: string; resourceType?: string; transferSize?: number }> } | undefined)?.items ?? []
  const assets = requests.filter((r) => r.url.startsWith(base) && (r.resourceType === "Script" || r.resourceType === "Stylesheet"))
  const transferred = assets.reduce((n, r) => n + (r.transferSize ?? 0), 0)
  let sent = 0
  let gzipped = 0
  for (const asset of assets) {
    sent += await sentBytes(asset.url)
    gzipped += await gzipOf(asset.url)
  }
  const failedAudits = Object.values(lhr.audits)
    .filter((audit) => audit.score !== null && audit.score < 1 && audit.scoreDisplayMode !== "informative" && audit.scoreDisplayMode !== "manual" && audit.scoreDisplayMode !== "notApplicable")
    .map((audit) => `${audit.id} (${audit.score})`)
  const timings = Object.fromEntries(["first-contentful-paint", "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift"]
    .map((id) => [id, lhr.audits[id]?.displayValue ?? "?"]))
  return { lhr, scores, timings, files: assets.length, sent, transferred, gzipped, failedAudits }
}

const main = async () => {
  const service = await startService()
  const { base } = service
  // the guest's journey: the offers of a stay, the intent made for one (/complete), and a completed reservation (/manage)
  const checkin = isoDate(60)
  const pending = await prepare(base, { checkin, checkout: isoDate(62), room_type_id: "double" })
  const done = await prepare(base, { checkin: isoDate(70), checkout: isoDate(72), room_type_id: "double" })
  const completed = await complete(base, await termsVersion(base, done.token), done)
  if (completed.answer.status !== 200) throw new Error(`completion: ${completed.answer.status} ${JSON.stringify(completed.answer.body)}`)
  await outboxIdle(service.databaseUrl)
  const pages = [
    { name: "/book?checkin=…&nights=2&adults=2&rooms=1&lang=en", url: `${base}/book?checkin=${checkin}&nights=2&adults=2&rooms=1&lang=en` },
    { name: "/complete#token=… (an intent's)", url: `${base}/complete#token=${pending.token}` },
    { name: "/manage#token=… (a completed reservation's)", url: `${base}/manage#token=${await manageToken(service.dataDir)}` }
  ]
  const chrome = await chromeLauncher.launch({
    chromePath: process.env["CHROME_PATH"] ?? "/usr/bin/chromium",
    chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update"]
  })
  cleanups.push(async () => void chrome.kill())
  // each page RUNS times, the median run by performance kept: one run swings with the machine's other work
  const runs = Number(process.env["LIGHTHOUSE_RUNS"] ?? 3)
  const measured = []
  for (const page of pages) {
    const tries = []
    for (let i = 0; i < runs; i++) tries.push(await measure(chrome.port, base, page.url))
    tries.sort((a, b) => (a.scores["performance"] ?? 0) - (b.scores["performance"] ?? 0))
    const median = tries[Math.floor(tries.length / 2)]!
    measured.push({ ...page, ...median, performances: tries.map((run) => run.scores["performance"]) })
    // its whole report, for what the summary leaves out (which task blocked, what moved)
    mkdirSync(REPORTS, { recursive: true })
    writeFileSync(join(REPORTS, `${new URL(page.url).pathname.slice(1)}.json`), JSON.stringify(median.lhr))
  }
  const widget = (await gzipOf(`${base}/assets/booking-widget.js`)) + (await gzipOf(`${base}/assets/booking-widget-data.js`))

  const { lhr } = measured[0]!
  console.log(`Lighthouse ${lhr.lighthouseVersion}, mobile (simulated throttling), Chromium ${lhr.environment.hostUserAgent.match(/Chrome\/([\d.]+)/)?.[1] ?? "?"}`)
  console.log(`| measure | ${measured.map((page) => page.name.split(/[?#]/)[0]).join(" | ")} | target |`)
  console.log(`|---|${measured.map(() => "---|").join("")}---|`)
  const row = (label: string, values: Array<string | number>, target = "") => console.log(`| ${label} | ${values.join(" | ")} | ${target} |`)
  for (const [id, target] of Object.entries(TARGETS)) row(id, measured.map((page) => page.scores[id] ?? "?"), `≥ ${target}`)
  row(`performance of each run (${runs})`, measured.map((page) => page.performances.join(", ")))
  for (const id of Object.keys(measured[0]!.timings)) row(id, measured.map((page) => page.timings[id] ?? "?"))
  row("JS + CSS as sent (compressed)", measured.map((page) => `${(page.sent / 1024).toFixed(1)} KB (${page.files} files)`), "≤ 35 KB")
  row("the same, with their response headers (Lighthouse's transfer size)", measured.map((page) => `${(page.transferred / 1024).toFixed(1)} KB`))
  row("the same files, gzip -9 each", measured.map((page) => `${(page.gzipped / 1024).toFixed(1)} KB`))
  console.log(`URLs: ${measured.map((page) => page.name).join(", ")}`)
  // the simulated throttling scales the tasks as they ran here: a busy machine lengthens them
  console.log(`load average while measured: ${loadavg().map((n) => n.toFixed(1)).join(", ")} on ${availableParallelism()} cores`)
  console.log(`widget + its import, gzip -9: ${(widget / 1024).toFixed(1)} KB (≤ 10 KB)`)
  for (const page of measured) if (page.failedAudits.length > 0) console.log(`${page.name}: audits below 1: ${page.failedAudits.join(", ")}`)

  const missed = [
    ...measured.flatMap((page) => [
      ...Object.entries(TARGETS).filter(([id, target]) => (page.scores[id] ?? 0) < target).map(([id]) => `${page.name} ${id}`),
      ...(page.sent > PAGE_BUDGET_BYTES ? [`${page.name} JS + CSS`] : [])
    ]),
    ...(widget > WIDGET_BUDGET_BYTES ? ["widget size"] : [])
  ]
  if (missed.length > 0) {
    console.error(`missed: ${missed.join(", ")}`)
    process.exitCode = 1
  }
}

try {
  await main()
} finally {
  for (const fn of cleanups.reverse()) await fn().catch((e) => console.error("cleanup:", e))
}
