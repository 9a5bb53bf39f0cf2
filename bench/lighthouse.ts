/**
 * The booking page's targets (docs/decisions.md#booking-page), measured:
 *
 *   npm run lighthouse                       # CHROME_PATH defaults to /usr/bin/chromium
 *
 * Starts the service as `npm start` runs it (a fresh database on BENCH_DATABASE_URL's server, as
 * `npm run bench` does), opens a deep link of /book (the offers of a stay 60 days ahead) and runs
 * Lighthouse with its mobile defaults (simulated throttling) on the local Chromium, never a
 * downloaded one. Prints the scores, the page's JavaScript and CSS (as sent: compressed, headers
 * included; and gzip -9 of each file) and the widget's gzip size, then fails when a target is missed:
 * performance ≥ 95, accessibility 100, best practices ≥ 95, JS + CSS ≤ 35 KB compressed, widget ≤ 10 KiB.
 */
import * as chromeLauncher from "chrome-launcher"
import lighthouse from "lighthouse"
import { get } from "node:http"
import { gzipSync } from "node:zlib"
import { cleanups, isoDate, startService } from "./service.js"

const TARGETS = { performance: 95, accessibility: 100, "best-practices": 95 } as const
const PAGE_BUDGET_BYTES = 35 * 1024
const WIDGET_BUDGET_BYTES = 10 * 1024

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

const main = async () => {
  const service = await startService()
  const checkin = isoDate(60)
  const url = `${service.base}/book?checkin=${checkin}&nights=2&adults=2&rooms=1&lang=en`
  const chrome = await chromeLauncher.launch({
    chromePath: process.env["CHROME_PATH"] ?? "/usr/bin/chromium",
    chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update"]
  })
  cleanups.push(async () => void chrome.kill())
  const result = await lighthouse(url, {
    port: chrome.port,
    output: "json",
    logLevel: "error",
    onlyCategories: ["performance", "accessibility", "best-practices"]
  })
  if (result === undefined) throw new Error("Lighthouse answered nothing")
  const { lhr } = result
  const scores = Object.fromEntries(Object.entries(lhr.categories).map(([id, category]) => [id, Math.round((category.score ?? 0) * 100)]))

  // what the page loaded of its own: scripts and stylesheets, as sent and gzip -9
  const requests = (lhr.audits["network-requests"]?.details as { items?: Array<{ url: string; resourceType?: string; transferSize?: number }> } | undefined)?.items ?? []
  const assets = requests.filter((r) => r.url.startsWith(service.base) && (r.resourceType === "Script" || r.resourceType === "Stylesheet"))
  const transferred = assets.reduce((n, r) => n + (r.transferSize ?? 0), 0)
  let sent = 0
  let gzipped = 0
  for (const asset of assets) {
    sent += await sentBytes(asset.url)
    gzipped += await gzipOf(asset.url)
  }
  const widget = (await gzipOf(`${service.base}/assets/booking-widget.js`)) + (await gzipOf(`${service.base}/assets/booking-widget-data.js`))
  const failedAudits = Object.values(lhr.audits)
    .filter((audit) => audit.score !== null && audit.score < 1 && audit.scoreDisplayMode !== "informative" && audit.scoreDisplayMode !== "manual" && audit.scoreDisplayMode !== "notApplicable")
    .map((audit) => `${audit.id} (${audit.score})`)

  console.log(`Lighthouse ${lhr.lighthouseVersion}, mobile (simulated throttling), Chromium ${lhr.environment.hostUserAgent.match(/Chrome\/([\d.]+)/)?.[1] ?? "?"}`)
  console.log(`URL: /book?checkin=…&nights=2&adults=2&rooms=1&lang=en`)
  console.log("| measure | value | target |\n|---|---|---|")
  for (const [id, target] of Object.entries(TARGETS)) console.log(`| ${id} | ${scores[id]} | ≥ ${target} |`)
  for (const id of ["first-contentful-paint", "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift"]) {
    console.log(`| ${id} | ${lhr.audits[id]?.displayValue ?? "?"} | |`)
  }
  console.log(`| page JS + CSS as sent (compressed), ${assets.length} files | ${(sent / 1024).toFixed(1)} KB | ≤ 35 KB |`)
  console.log(`| the same, with their response headers (Lighthouse's transfer size) | ${(transferred / 1024).toFixed(1)} KB | |`)
  console.log(`| the same files, gzip -9 each | ${(gzipped / 1024).toFixed(1)} KB | |`)
  console.log(`| widget + its import, gzip -9 | ${(widget / 1024).toFixed(1)} KB | ≤ 10 KB |`)
  if (failedAudits.length > 0) console.log(`audits below 1: ${failedAudits.join(", ")}`)

  const missed = [
    ...Object.entries(TARGETS).filter(([id, target]) => (scores[id] ?? 0) < target).map(([id]) => id),
    ...(sent > PAGE_BUDGET_BYTES ? ["page JS + CSS"] : []),
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
