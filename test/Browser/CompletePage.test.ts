import { HttpClientRequest, HttpServer } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { type Browser, chromium, type Page } from "playwright-core"
import { GUEST_PAGE_CSP } from "../../src/Api/GuestPages.js"
import { daysFromToday } from "../support/clock.js"
import { request, TestApp } from "../support/TestApp.js"

/** Debian's chromium, headless; never a downloaded browser. */
class Chromium extends Context.Tag("test/Chromium")<Chromium, Browser>() {}
const ChromiumLive = Layer.scoped(
  Chromium,
  Effect.acquireRelease(
    Effect.promise(() =>
      chromium.launch({
        executablePath: "/usr/bin/chromium",
        args: [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync"
        ]
      })
    ),
    (browser) => Effect.promise(() => browser.close())
  )
)

/** The in-process server's own address: the page is opened there, not at PUBLIC_BASE_URL. */
const baseUrl = Effect.map(HttpServer.HttpServer, ({ address }) => {
  if (address._tag !== "TcpAddress") throw new Error("the test server listens on TCP")
  const host = address.hostname === "0.0.0.0" || address.hostname === "::" ? "127.0.0.1" : address.hostname
  return `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`
})

const post = (url: string, body: unknown) =>
  request(HttpClientRequest.post(url).pipe(HttpClientRequest.bodyUnsafeJson(body)))

/** A real guest link: a quote, then an intent; answers continue_url's path and fragment and the quoted total. */
const newGuestLink = (language: "en" | "fr" | "ru" = "en") =>
  Effect.gen(function*() {
    const quote = yield* post("/v1/quotes", {
      checkin: daysFromToday(30),
      checkout: daysFromToday(32),
      rooms: [{ room_type_id: "double", adults: 2 }]
    })
    expect(quote.status).toBe(200)
    const offer = quote.body.package_offers[0]
    const intent = yield* post("/v1/reservation-intents", {
      quote_id: quote.body.quote_id,
      package_code: offer.package_code,
      language
    })
    expect([200, 201]).toContain(intent.status)
    const continueUrl = new URL(intent.body.continue_url)
    expect(continueUrl.pathname).toBe("/complete")
    expect(continueUrl.hash).toMatch(/^#token=[A-Za-z0-9_-]+$/)
    return { path: continueUrl.pathname + continueUrl.hash, total: offer.price.total as number }
  })

/** Runs `use` on a fresh page of its own (phone-sized, English browser), closed afterwards. */
const onPage = <A>(url: string, use: (page: Page) => Promise<A>) =>
  Effect.gen(function*() {
    const browser = yield* Chromium
    return yield* Effect.acquireUseRelease(
      Effect.promise(() => browser.newContext({ viewport: { width: 390, height: 844 }, locale: "en-US" })),
      (context) =>
        Effect.promise(async () => {
          const page = await context.newPage()
          await page.goto(url)
          return use(page)
        }),
      (context) => Effect.promise(() => context.close())
    )
  })

// the tests compile without the DOM library: what they read of page elements, typed by hand
type Labelled = { readonly labels: { readonly length: number } | null }
type Focused = { readonly id: string; readonly outline: string }

const FORM_NAMES = [
  "first_name",
  "last_name",
  "email",
  "phone",
  "country",
  "arrival_time",
  "special_requests",
  "baby_cot",
  "early_check_in_request",
  "late_check_out_request",
  "accept_terms"
]

layer(Layer.merge(TestApp(), ChromiumLive), { excludeTestServices: true })("guest-completion page", (it) => {
  it.effect("is served with its CSP, no-store, and only allow-listed assets", () =>
    Effect.gen(function*() {
      const page = yield* request(HttpClientRequest.get("/complete"))
      expect(page.status).toBe(200)
      expect(page.headers["content-type"]).toBe("text/html; charset=utf-8")
      expect(page.headers["cache-control"]).toBe("no-store")
      expect(page.headers["content-security-policy"]).toBe(GUEST_PAGE_CSP)
      expect(page.text).toContain(`src="/assets/complete.js"`)
      const script = yield* request(HttpClientRequest.get("/assets/complete.js"))
      expect(script.status).toBe(200)
      expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8")
      const css = yield* request(HttpClientRequest.get("/assets/guest.css"))
      expect(css.headers["content-type"]).toBe("text/css; charset=utf-8")
      for (const path of ["/assets/nope.js", "/assets/..%2F..%2Fpackage.json", "/assets/complete.html"]) {
        expect((yield* request(HttpClientRequest.get(path))).status).toBe(404)
      }
    }))

  it.effect("shows the summary and a form whose inputs carry the API's field names", () =>
    Effect.gen(function*() {
      const { path, total } = yield* newGuestLink()
      const shown = yield* onPage(`${yield* baseUrl}${path}`, async (page) => {
        await page.locator("#guest-form").waitFor()
        return {
          url: page.url(),
          title: await page.locator("h1").textContent(),
          summary: await page.locator("#summary").textContent(),
          total: await page.locator("#total").textContent(),
          names: await page.$$eval("#guest-form [name]", (els) => els.map((e) => e.getAttribute("name"))),
          required: await page.$$eval("#guest-form [required]", (els) => els.map((e) => e.getAttribute("name"))),
          types: await page.$$eval("#guest-form input", (els) =>
            Object.fromEntries(els.map((e) => [e.getAttribute("name"), e.getAttribute("type")]))),
          countryMaxLength: await page.locator("[name=country]").getAttribute("maxlength"),
          unlabelled: await page.$$eval("input, textarea", (els) =>
            els.filter((e) => ((e as unknown as Labelled).labels?.length ?? 0) === 0).map((e) => e.getAttribute("name")))
        }
      })
      expect(shown.url).not.toContain("token") // dropped from the address bar
      expect(shown.title).toBe("Complete your reservation")
      expect(shown.summary).toContain("2 nights")
      expect(shown.summary).toContain("No payment required")
      expect(shown.total).toBe(new Intl.NumberFormat("en", { style: "currency", currency: "EUR" }).format(total))
      expect(shown.names).toEqual(FORM_NAMES)
      expect(shown.required).toEqual(["first_name", "last_name", "email", "phone", "accept_terms"])
      expect(shown.types).toMatchObject({ email: "email", phone: "tel", arrival_time: "time", baby_cot: "checkbox", accept_terms: "checkbox" })
      expect(shown.countryMaxLength).toBe("2")
      expect(shown.unlabelled).toEqual([])
    }))

  it.effect("completes the reservation and shows its number", () =>
    Effect.gen(function*() {
      const { path } = yield* newGuestLink()
      const number = yield* onPage(`${yield* baseUrl}${path}`, async (page) => {
        await page.locator("#guest-form").waitFor()
        await page.locator("[name=first_name]").fill("Jeanne")
        await page.locator("[name=last_name]").fill("Dupont")
        await page.locator("[name=email]").fill("jeanne.dupont@example.com")
        await page.locator("[name=phone]").fill("+33 6 12 34 56 78")
        await page.locator("[name=country]").fill("fr")
        await page.locator("[name=baby_cot]").check()
        await page.locator("[name=accept_terms]").check()
        await page.locator("#submit").click()
        await page.locator("#reservation-number").waitFor()
        return page.locator("#reservation-number").textContent()
      })
      expect(number).toMatch(/^BR-[A-Z0-9]{6}$/)
    }))

  it.effect("speaks the reservation's language", () =>
    Effect.gen(function*() {
      const { path } = yield* newGuestLink("fr")
      const shown = yield* onPage(`${yield* baseUrl}${path}`, async (page) => {
        await page.locator("#guest-form").waitFor()
        return { lang: await page.getAttribute("html", "lang"), title: await page.locator("h1").textContent() }
      })
      expect(shown).toEqual({ lang: "fr", title: "Finaliser votre réservation" })
    }))

  it.effect("says the link is not valid for a bad token or none, and shows no form", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      for (const path of ["/complete#token=not-a-real-token", "/complete"]) {
        const shown = yield* onPage(`${base}${path}`, async (page) => {
          await page.locator("#invalid-link").waitFor()
          return { text: await page.locator("#invalid-link").textContent(), forms: await page.locator("form").count() }
        })
        expect(shown.text).toContain("This link is not valid")
        expect(shown.forms).toBe(0)
      }
    }))

  it.effect("can be used with the keyboard: Tab reaches the submit button, with a visible focus", () =>
    Effect.gen(function*() {
      const { path } = yield* newGuestLink()
      const reached = yield* onPage(`${yield* baseUrl}${path}`, async (page) => {
        await page.locator("#guest-form").waitFor()
        for (let i = 0; i < 40; i++) {
          await page.keyboard.press("Tab")
          const focused = await page.evaluate<Focused>(
            "({ id: document.activeElement.id, outline: getComputedStyle(document.activeElement).outlineStyle })"
          )
          if (focused.id === "submit") return focused
        }
        return null
      })
      expect(reached).toEqual({ id: "submit", outline: "solid" })
    }))
})
