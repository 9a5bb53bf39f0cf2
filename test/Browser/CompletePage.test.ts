import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import type { Page } from "playwright-core"
import { GUEST_PAGE_CSP } from "../../src/Api/Handlers/GuestPages.js"
import type { AriUpdate } from "../../src/Domain/Channel/Message.js"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import type { Language } from "../../src/Domain/Language.js"
import { axeViolations, baseUrl, layerWithChromium, onPage, onTestServer } from "../support/browser.js"
import { daysFromToday } from "../support/clock.js"
import { completeWith, hotelSets, pendingReservation, quote } from "../support/flow.js"
import { demoHotel } from "../support/hotel.js"
import { englishLeftovers, ui } from "../support/wording.js"
import { request, TestApp } from "../support/TestApp.js"

/** A real guest link: a quote, then an intent; answers continue_url's path and fragment and the quoted total. */
const newGuestLink = (language: "en" | "fr" | "ru" = "en") =>
  Effect.gen(function*() {
    const { intent, total } = yield* pendingReservation(
      daysFromToday(30),
      daysFromToday(32),
      [{ room_type_id: "double", adults: 2 }],
      "FLEX",
      language
    )
    const continueUrl = new URL(intent.continue_url)
    expect(continueUrl.pathname).toBe("/complete")
    expect(continueUrl.hash).toMatch(/^#token=[A-Za-z0-9_-]+$/)
    return { path: continueUrl.pathname + continueUrl.hash, total }
  })

/** Types the form's required guest details, field by field as a guest would. */
const fillRequired = async (page: Page, guest: { first_name: string; last_name: string; email: string; phone: string }) => {
  for (const [name, value] of Object.entries(guest)) await page.locator(`[name=${name}]`).fill(value)
}

/** Opens `url` on a fresh page of its own (390 px wide, English browser), closed afterwards. */
const openPage = <A>(url: string, use: (page: Page) => Promise<A>) =>
  onPage({ viewport: { width: 390, height: 844 } }, async (page) => {
    await page.goto(url)
    return use(page)
  })

/** The guests' names on each language's page: not English words left over. */
const GUESTS: Record<Language, { first_name: string; last_name: string; email: string; phone: string }> = {
  en: { first_name: "Jane", last_name: "Doe", email: "jane.doe@example.com", phone: "+44 20 7946 0000" },
  fr: { first_name: "Jeanne", last_name: "Dupont", email: "jeanne.dupont@example.com", phone: "+33 6 12 34 56 78" },
  ru: { first_name: "Иван", last_name: "Petrov", email: "ivan@example.com", phone: "+7 912 345 67 89" }
}

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

layerWithChromium(TestApp())("guest-completion page", (it) => {
  it.effect("is served with its CSP, no-store, and only allow-listed assets", () =>
    Effect.gen(function*() {
      const page = yield* request(HttpClientRequest.get("/complete"))
      expect(page.status).toBe(200)
      expect(page.headers["content-type"]).toBe("text/html; charset=utf-8")
      expect(page.headers["cache-control"]).toBe("no-store")
      expect(page.headers["content-security-policy"]).toBe(GUEST_PAGE_CSP)
      // loaded by the boot script, which says so when it cannot be
      expect(page.text).toContain(`<script src="/assets/guest-boot.js" data-page="/assets/en/complete.js"`)
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
      const shown = yield* openPage(`${yield* baseUrl}${path}`, async (page) => {
        await page.locator("#guest-form").waitFor()
        return {
          url: page.url(),
          title: await page.locator("h1").textContent(),
          hotel: await page.locator("#hotel").textContent(),
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
      expect(shown.hotel).toContain(demoHotel.name)
      expect(shown.hotel).toContain(demoHotel.contact.phone)
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
      const number = yield* openPage(`${yield* baseUrl}${path}`, async (page) => {
        await page.locator("#guest-form").waitFor()
        await fillRequired(page, { first_name: "Jeanne", last_name: "Dupont", email: "jeanne.dupont@example.com", phone: "+33 6 12 34 56 78" })
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
      const shown = yield* openPage(`${yield* baseUrl}${path}`, async (page) => {
        await page.locator("#guest-form").waitFor()
        return { lang: await page.getAttribute("html", "lang"), title: await page.locator("h1").textContent() }
      })
      expect(shown).toEqual({ lang: "fr", title: "Finaliser votre réservation" })
    }))

  it.effect("says the link is not valid for a bad token or none, and shows no form", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      for (const path of ["/complete#token=not-a-real-token", "/complete"]) {
        const shown = yield* openPage(`${base}${path}`, async (page) => {
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
      const reached = yield* openPage(`${yield* baseUrl}${path}`, async (page) => {
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

  it.effect("a price change shows the old and new totals in the reservation's language; the guest confirms the new one", () =>
    Effect.gen(function*() {
      // a night reaching 80 % occupancy costs more: others complete 10 of the 12 doubles after this quote
      const [checkin, checkout] = [daysFromToday(60), daysFromToday(61)]
      const mine = yield* pendingReservation(checkin, checkout, [{ room_type_id: "double", adults: 2 }], "FLEX", "ru")
      for (let i = 0; i < 5; i++) {
        const other = yield* pendingReservation(checkin, checkout, [{ room_type_id: "double", adults: 2, quantity: 2 }])
        expect((yield* completeWith(other.token, other.total)).status).toBe(200)
      }
      const now = (yield* quote(checkin, checkout, [{ room_type_id: "double", adults: 2 }])).package_offers
        .find((o: { rate_code: string }) => o.rate_code === "FLEX").price.total as number
      expect(now).toBeGreaterThan(mine.total)
      const shown = yield* openPage(yield* onTestServer(mine.intent.continue_url), async (page) => {
        await page.locator("#guest-form").waitFor()
        await fillRequired(page, { first_name: "Иван", last_name: "Petrov", email: "ivan@example.com", phone: "+7 912 345 67 89" })
        await page.locator("[name=accept_terms]").check()
        await page.locator("#submit").click()
        await page.locator("#price-changed").waitFor()
        await page.locator("#confirm-new-total").waitFor()
        const changed = {
          title: await page.locator("#price-changed").textContent(),
          previous: await page.locator("#previous-total").textContent(),
          next: await page.locator("#new-total").textContent(),
          focused: await page.evaluate<string>("document.activeElement.id"),
          leftovers: englishLeftovers(await page.locator("body").innerText(), "ru", ["Petrov", "Иван"])
        }
        await page.locator("#confirm-new-total").click()
        await page.locator("#reservation-number").waitFor()
        return { ...changed, number: await page.locator("#reservation-number").textContent(), total: await page.locator("#total").textContent() }
      })
      const rub = (amount: number) => new Intl.NumberFormat("ru-RU", { style: "currency", currency: "EUR" }).format(amount)
      expect(shown).toEqual({
        title: ui("ru", "priceTitle"),
        previous: rub(mine.total),
        next: rub(now),
        focused: "confirm-new-total",
        leftovers: [],
        number: expect.stringMatching(/^BR-[A-Z0-9]{6}$/),
        total: rub(now)
      })
    }))

  it.effect("a restriction the hotel set after the quote is said at Confirm, in the reservation's language; nothing is booked; axe clean", () =>
    Effect.gen(function*() {
      const nights = (language: Language, n: number) =>
        ui(language, "nights", new Intl.PluralRules(language).select(n)).replace("{n}", String(n))
      const cases: ReadonlyArray<{
        readonly language: Language
        readonly days: number
        /** What the hotel sets on the arrival date, for double rooms. */
        readonly restriction: Omit<AriUpdate, "room_type_id" | "from" | "to">
        readonly why: string
      }> = [
        {
          language: "en",
          days: 70,
          restriction: { closed_to_arrival: true },
          why: ui("en", "reason_closed_to_arrival")
        },
        {
          language: "fr",
          days: 74,
          restriction: { min_stay: 3 },
          why: ui("fr", "reason_min_stay").replace("{nights}", nights("fr", 3))
        },
        {
          // 5 takes Russian's "many" form: 5 ночей
          language: "ru",
          days: 78,
          restriction: { min_stay: 5 },
          why: ui("ru", "reason_min_stay").replace("{nights}", nights("ru", 5))
        }
      ]
      for (const { days, language, restriction, why } of cases) {
        const [checkin, checkout] = [daysFromToday(days), daysFromToday(days + 2)]
        const mine = yield* pendingReservation(checkin, checkout, [{ room_type_id: "double", adults: 2 }], "FLEX", language)
        yield* hotelSets({ room_type_id: "double" as RoomTypeId, from: checkin, to: checkin, ...restriction })
        const guest = GUESTS[language]
        const shown = yield* openPage(yield* onTestServer(mine.intent.continue_url), async (page) => {
          await page.locator("#guest-form").waitFor()
          await fillRequired(page, guest)
          await page.locator("[name=accept_terms]").check()
          await page.locator("#submit").click()
          await page.locator("#availability-changed").waitFor()
          await page.locator("#form-message:focus").waitFor()
          return {
            title: await page.locator("#availability-changed").textContent(),
            message: await page.locator("#form-message").textContent(),
            role: await page.getAttribute("#form-message", "role"),
            focused: await page.evaluate<string>("document.activeElement.id"),
            submit: await page.locator("#submit").isVisible(),
            axe: await axeViolations(page),
            leftovers: language === "en"
              ? []
              : englishLeftovers(await page.locator("body").innerText(), language, [guest.first_name, guest.last_name])
          }
        })
        const room = demoHotel.room_types.find((r) => r.id === "double")!.name[language]
        expect(shown, language).toEqual({
          title: ui(language, "availTitle"),
          message: expect.stringContaining(`${room} — ${why}`),
          role: "alert",
          focused: "form-message",
          submit: false,
          axe: [],
          leftovers: []
        })
        expect(shown.message, language).toContain(ui(language, "availText"))
        const now = yield* request(HttpClientRequest.get("/v1/reservation-public").pipe(HttpClientRequest.setHeader("x-reservation-token", mine.token)))
        expect(now.body.status, language).toBe("PENDING_GUEST")
      }
    }), 120_000)
})

layerWithChromium(TestApp({ config: { bookingLimitPerHour: 1 } }))(
  "guest-completion page beyond BOOKING_LIMIT_PER_HOUR (1)",
  (it) => {
    it.effect("says in the reservation's language when to try again, and whom to call", () =>
      Effect.gen(function*() {
        const first = yield* pendingReservation(daysFromToday(40), daysFromToday(41), [{ room_type_id: "twin", adults: 1 }])
        expect((yield* completeWith(first.token, first.total)).status).toBe(200)
        const { path } = yield* newGuestLink("fr")
        const shown = yield* openPage(`${yield* baseUrl}${path}`, async (page) => {
          await page.locator("#guest-form").waitFor()
          await fillRequired(page, { first_name: "Jeanne", last_name: "Dupont", email: "jeanne.dupont@example.com", phone: "+33 6 12 34 56 78" })
          await page.locator("[name=accept_terms]").check()
          await page.locator("#submit").click()
          await page.locator("#form-message p").waitFor()
          return page.locator("#form-message").textContent()
        })
        // the first completion was a moment ago: the hour is 60 minutes away
        expect(shown).toBe(ui("fr", "tooManyCompletions", "other").replace("{n}", "60"))
      }))
  }
)
