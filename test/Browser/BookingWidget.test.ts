import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { gzipSync } from "node:zlib"
import { axeViolations, baseUrl, layerWithChromium, onPage, PHONE, recordAxe } from "../support/browser.js"
import { daysFromToday } from "../support/clock.js"
import { request, TestApp } from "../support/TestApp.js"

/** The widget's budget: the file and everything it imports, gzip (docs/decisions.md#booking-page). */
const WIDGET_BUDGET_BYTES = 10 * 1024

/** The hotel's own website, on another origin: a page that embeds the widget of the service at `service.base`. */
const service = { base: "" }
const site = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hotel website</title><style>hotel-booking { --hotel-booking-accent: #8a1538; }</style></head>
<body><main><h1>Welcome</h1><script type="module" src="${service.base}/assets/booking-widget.js"></script>
<hotel-booking lang="fr" promo="DIRECT12"></hotel-booking></main></body></html>`)
})
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
// the tests' end closes the process: the site keeps nothing open
site.unref()
const siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`

layerWithChromium(TestApp({ config: { bookingWidgetOrigins: [siteOrigin] } }))("booking widget", (it) => {
  it.effect("is served to the hotel's sites only (CORS), within its gzip budget with what it imports", () =>
    Effect.gen(function*() {
      const mine = yield* request(HttpClientRequest.get("/assets/booking-widget.js").pipe(HttpClientRequest.setHeader("origin", siteOrigin)))
      expect(mine.headers["access-control-allow-origin"]).toBe(siteOrigin)
      const other = yield* request(HttpClientRequest.get("/assets/booking-widget.js").pipe(HttpClientRequest.setHeader("origin", "https://elsewhere.example")))
      expect(other.headers["access-control-allow-origin"]).toBeUndefined()
      const data = yield* request(HttpClientRequest.get("/assets/booking-widget-data.js").pipe(HttpClientRequest.setHeader("origin", siteOrigin)))
      expect(data.headers["access-control-allow-origin"]).toBe(siteOrigin)
      const imports = [...mine.text.matchAll(/from "\.\/([\w-]+\.js)"/g)].map((m) => m[1])
      expect(imports).toEqual(["booking-widget-data.js"])
      const gzipped = gzipSync(mine.text).length + gzipSync(data.text).length
      expect(gzipped).toBeLessThanOrEqual(WIDGET_BUDGET_BYTES)
      // the hotel's sites may frame the booking page, and no other
      const book = yield* request(HttpClientRequest.get("/book"))
      expect(book.headers["content-security-policy"]).toContain(`frame-ancestors ${siteOrigin};`)
    }))

  it.effect("on a page of another origin: asks nothing until the guest searches, then opens /book with the deep link", () =>
    Effect.gen(function*() {
      service.base = yield* baseUrl
      const checkin = daysFromToday(90)
      const checkout = daysFromToday(93)
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        const requests: Array<{ url: string; client: string | undefined }> = []
        page.on("request", (r) => requests.push({ url: r.url(), client: r.headers()["x-hotel-client"] }))
        await page.goto(siteOrigin)
        await page.locator("hotel-booking button").waitFor()
        const beforeSearch = requests.map((r) => r.url).filter((url) => url.startsWith(service.base))
        const axe = await axeViolations(page)
        recordAxe("booking-widget", axe)
        const accent = await page.evaluate<string>(`getComputedStyle(document.querySelector("hotel-booking").shadowRoot.querySelector("button")).backgroundColor`)
        const labels = await page.locator("hotel-booking label").allInnerTexts()
        const sideways = await page.evaluate<boolean>("document.documentElement.scrollWidth > document.documentElement.clientWidth")
        await page.locator("hotel-booking [name=checkin]").fill(checkin)
        await page.locator("hotel-booking [name=checkout]").fill(checkout)
        await page.locator("hotel-booking [name=adults]").selectOption("1")
        await page.locator("hotel-booking [name=checkin]").focus()
        await page.keyboard.press("Enter")
        await page.waitForURL(/\/book\?/)
        await page.locator(".offer").first().waitFor()
        const quotes = requests.filter((r) => r.url.endsWith("/v1/quotes"))
        return { beforeSearch, axe, accent, labels, sideways, url: page.url(), clients: [...new Set(quotes.map((r) => r.client))], title: await page.title() }
      })
      expect(shown.beforeSearch).toEqual([`${service.base}/assets/booking-widget.js`, `${service.base}/assets/booking-widget-data.js`])
      expect(shown.axe).toEqual([])
      expect(shown.accent).toBe("rgb(138, 21, 56)")
      expect(shown.labels.join(" ")).toContain("Arrivée")
      expect(shown.sideways).toBe(false)
      const url = new URL(shown.url)
      expect(url.origin).toBe(service.base)
      expect(Object.fromEntries(url.searchParams)).toEqual({ checkin, checkout, adults: "1", rooms: "1", promo: "DIRECT12", lang: "fr", source: "widget" })
      expect(shown.clients).toEqual(["booking-widget"])
      expect(shown.title).toContain("Réserver")
    }))
})
