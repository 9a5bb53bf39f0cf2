import { expect } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { HttpClientRequest } from "effect/http"
import type { Page } from "playwright-core"
import { bookPageCsp } from "../../src/Api/Handlers/GuestPages.js"
import { GUEST_CATALOG } from "../../src/Domain/GuestTexts.js"
import type { ReservationId, RoomTypeId } from "../../src/Domain/Ids.js"
import { ReservationRepo } from "../../src/Layers/Persistence/ReservationRepo.js"
import type { Language } from "../../src/Domain/Language.js"
import { axeViolations, baseUrl, layerWithChromium, onPage, PHONE, recordAxe } from "../support/browser.js"
import { daysFromToday, makeTestClock } from "../support/clock.js"
import { hotelSets } from "../support/flow.js"
import { englishLeftovers } from "../support/wording.js"
import { request, TestApp } from "../support/TestApp.js"

/** The test server stands for PUBLIC_BASE_URL (http://hotel.test): continue_url's page is opened there. */
const onTestServerFor = async (page: Page, base: string) => {
  await page.route("http://hotel.test/**", (route) => {
    const url = new URL(route.request().url())
    return route.fulfill({ status: 302, headers: { location: `${base}${url.pathname}${url.search}` } })
  })
}

const GUESTS: Record<Language, { first_name: string; last_name: string; email: string; phone: string }> = {
  en: { first_name: "Jane", last_name: "Doe", email: "jane.doe@example.com", phone: "+44 20 7946 0000" },
  fr: { first_name: "Jeanne", last_name: "Dupont", email: "jeanne.dupont@example.com", phone: "+33 6 12 34 56 78" },
  ru: { first_name: "Иван", last_name: "Petrov", email: "ivan@example.com", phone: "+7 912 345 67 89" }
}

/** Completes the guest page `/complete` that the choice led to; answers the reservation's number. */
const complete = async (page: Page, language: Language) => {
  await page.locator("#guest-form").waitFor()
  for (const [name, value] of Object.entries(GUESTS[language])) await page.locator(`[name=${name}]`).fill(value)
  await page.locator("[name=accept_terms]").check()
  await page.locator("#submit").click()
  await page.locator("#reservation-number").waitFor()
  return page.locator("#reservation-number").textContent()
}

/** No horizontal scroll at the page's width. */
const scrollsSideways = (page: Page) => page.evaluate<boolean>("document.documentElement.scrollWidth > document.documentElement.clientWidth")

const isFocused = (page: Page, selector: string) => page.evaluate<boolean>(`document.activeElement.matches(${JSON.stringify(selector)})`)
/** Presses Tab until `selector` has the focus, as a keyboard user does (and fails when it never does). */
const tabTo = async (page: Page, selector: string) => {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press("Tab")
    if (await isFocused(page, selector)) return
  }
  throw new Error(`Tab never reached ${selector}`)
}

const deepLink = (base: string, params: Record<string, string>) => `${base}/book?${new URLSearchParams(params)}`

let n = 0
/** A stay far enough ahead that each test has its own nights (the in-memory inventory is shared in a file). */
const stay = (nights = 2) => {
  const checkin = daysFromToday(40 + (n += 7))
  return { checkin, checkout: daysFromToday(40 + n + nights) }
}

layerWithChromium(TestApp())("booking page", (it) => {
  it.effect("is served in the guest's language with its CSP, and without a cookie", () =>
    Effect.gen(function*() {
      const fr = yield* request(HttpClientRequest.get("/book?lang=fr"))
      expect(fr.status).toBe(200)
      expect(fr.headers["content-security-policy"]).toBe(bookPageCsp([]))
      expect(fr.headers["content-security-policy"]).not.toMatch(/unsafe-inline|unsafe-eval/)
      expect(fr.headers["set-cookie"]).toBeUndefined()
      expect(fr.text).toContain(`<html lang="fr">`)
      expect(fr.text).toContain(`<title>${GUEST_CATALOG.fr.titleBook}</title>`)
      const ru = yield* request(HttpClientRequest.get("/book").pipe(HttpClientRequest.setHeader("accept-language", "de-DE, ru;q=0.8, fr;q=0.5")))
      expect(ru.text).toContain(`<html lang="ru">`)
      const en = yield* request(HttpClientRequest.get("/book").pipe(HttpClientRequest.setHeader("accept-language", "de")))
      expect(en.text).toContain(`<html lang="en">`)
      // the pieces the shells share are in place on each page, filled like the rest
      for (const path of ["/book", "/complete", "/manage"]) {
        const html = (yield* request(HttpClientRequest.get(path))).text
        expect(html).toContain(`<link rel="stylesheet" href="/assets/guest.css">`)
        expect(html).toContain(`<p data-failure="failed">${GUEST_CATALOG.en.pageFailed}</p>`)
        expect(html).not.toContain("{{")
      }
    }))

  for (const language of ["en", "fr", "ru"] as const) {
    it.effect(`a deep link in ${language} opens on the offers, and one of them books through /complete`, () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        const { checkin, checkout } = stay()
        const shown = yield* onPage({ viewport: PHONE }, async (page) => {
          await onTestServerFor(page, base)
          const requests: Array<string> = []
          page.on("request", (r) => requests.push(r.url()))
          // the intent's answer, read on its way to the page (the page leaves at once for continue_url)
          const intents: Array<string> = []
          await page.route("**/v1/reservation-intents", async (route) => {
            const response = await route.fetch()
            intents.push((await response.json() as { reservation_id: string }).reservation_id)
            await route.fulfill({ response })
          })
          await page.goto(deepLink(base, { checkin, checkout, adults: "2", rooms: "1", lang: language }))
          await page.locator(".offer").first().waitFor()
          // one API round trip: the page carries the room types, and quotes them all at once
          const calls = requests.filter((url) => url.includes("/v1/")).map((url) => new URL(url).pathname)
          const offers = await page.locator(".offer").count()
          const groups = await page.locator(".room-group h2").allTextContents()
          const status = await page.locator("#status").textContent()
          const axe = await axeViolations(page)
          recordAxe(`book-offers-${language}`, axe)
          const sideways = await scrollsSideways(page)
          const words = await page.locator("main").innerText()
          const total = await page.locator("#offer-double-FLEX .amount").textContent()
          await page.locator("#offer-double-FLEX button.choose").click()
          await page.waitForURL(/\/complete/)
          const number = await complete(page, language)
          return { calls, offers, groups, status, axe, sideways, words, total, number, requests, cookies: await page.context().cookies(), reservation: intents[0] }
        })
        expect([...shown.calls].sort()).toEqual(["/v1/hotel", "/v1/quotes", "/v1/quotes", "/v1/quotes"])
        expect(shown.groups.length).toBe(3)
        expect(shown.offers).toBeGreaterThanOrEqual(6)
        expect(shown.status).toMatch(/\d/)
        expect(shown.axe).toEqual([])
        expect(shown.sideways).toBe(false)
        if (language !== "en") expect(englishLeftovers(shown.words, language, ["king-size"])).toEqual([]) // the hotel's own Russian text says it so
        expect(shown.number).toMatch(/^BR-[A-Z0-9]{6}$/)
        // the usage report counts it as a direct booking from the booking page
        const stored = yield* (yield* ReservationRepo).find(shown.reservation as ReservationId)
        expect(Option.map(stored, (r) => [r.client.client, r.language])).toEqual(Option.some(["booking-page", language]))
        expect(shown.cookies).toEqual([])
        // nothing from elsewhere: the service's own origin, and the hotel's link that the test server stands for
        expect(shown.requests.filter((url) => !url.startsWith(base) && !url.startsWith("http://hotel.test/"))).toEqual([])
      }))
  }

  it.effect("by keyboard alone: the calendar, the search, an offer, and the reservation completed", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        await onTestServerFor(page, base)
        await page.goto(`${base}/book`)
        await page.locator("#calendar-open").waitFor()
        await tabTo(page, "#calendar-open")
        await page.keyboard.press("Enter")
        await page.locator("#calendar-grid td:focus").waitFor()
        // next month, where every date has its words; then the first date an arrival is possible
        await page.keyboard.press("PageDown")
        await page.locator("#calendar-grid td.day.open, #calendar-grid td.day.closed").first().waitFor()
        await page.keyboard.press("Home")
        for (let i = 0; i < 40 && !(await isFocused(page, "td.open")); i++) await page.keyboard.press("ArrowRight")
        const axe = await axeViolations(page)
        await page.keyboard.press("Enter")
        const checkin = await page.locator("#checkin").inputValue()
        await tabTo(page, "#search-submit")
        await page.keyboard.press("Enter")
        await page.locator("#offers-title:focus").waitFor()
        await tabTo(page, "button.choose")
        await page.keyboard.press("Enter")
        await page.waitForURL(/\/complete/)
        await page.locator("#guest-form").waitFor()
        for (const [name, value] of Object.entries(GUESTS.en)) {
          await tabTo(page, `[name=${name}]`)
          await page.keyboard.type(value)
        }
        await tabTo(page, "[name=accept_terms]")
        await page.keyboard.press("Space")
        await tabTo(page, "#submit")
        await page.keyboard.press("Enter")
        await page.locator("#reservation-number").waitFor()
        return { axe, checkin, number: await page.locator("#reservation-number").textContent() }
      })
      expect(shown.axe).toEqual([])
      expect(shown.checkin).toMatch(/^\d{4}-\d\d-\d\d$/)
      expect(shown.number).toMatch(/^BR-[A-Z0-9]{6}$/)
    }))

  it.effect("a bad parameter is a message on the form, which keeps what it could read", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        await page.goto(deepLink(base, { checkin: "2027-02-30", nights: "2", adults: "9", promo: "DIRECT12" }))
        await page.locator("#search-message p").first().waitFor()
        return {
          messages: await page.locator("#search-message p").allTextContents(),
          invalid: await page.$$eval("[aria-invalid=true]", (els) => els.map((e) => e.id)),
          promo: await page.locator("#promo").inputValue(),
          axe: await axeViolations(page)
        }
      })
      expect(shown.messages).toEqual([
        GUEST_CATALOG.en.badParam.replace("{name}", GUEST_CATALOG.en.arrival),
        GUEST_CATALOG.en.badParam.replace("{name}", GUEST_CATALOG.en.departure),
        GUEST_CATALOG.en.badParam.replace("{name}", GUEST_CATALOG.en.adultsInRoom)
      ])
      expect(shown.invalid).toEqual(["checkin", "checkout", "adults-0"])
      expect(shown.promo).toBe("DIRECT12")
      expect(shown.axe).toEqual([])
    }))

  it.effect("a promo code: its discount named on the offers that apply it", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const { checkin, checkout } = stay(3)
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        await page.goto(deepLink(base, { checkin, checkout, adults: "2", promo: "direct12", room_type_id: "deluxe" }))
        await page.locator(".offer").first().waitFor()
        return {
          first: await page.locator(".room-group h2").first().getAttribute("id"),
          table: await page.locator(".offer").first().locator("table").innerText()
        }
      })
      expect(shown.first).toBe("type-deluxe-title")
      expect(shown.table).toContain("Promo code DIRECT12")
    }))

  it.effect("two rooms, one with a child: one quote for both, booked together", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const { checkin, checkout } = stay(2)
      const number = yield* onPage({ viewport: PHONE }, async (page) => {
        await onTestServerFor(page, base)
        await page.goto(`${base}/book?checkin=${checkin}&checkout=${checkout}&rooms=2&adults=2&adults=1&children=&children=5`)
        await page.locator(".offer").first().waitFor()
        expect(await page.locator("#children-1").inputValue()).toBe("5")
        await page.locator("#offer-twin-FLEX button.choose").click()
        await page.waitForURL(/\/complete/)
        const summary = await page.locator("#summary").innerText()
        expect(summary).toContain("1 child")
        return complete(page, "en")
      })
      expect(number).toMatch(/^BR-[A-Z0-9]{6}$/)
    }))

  it.effect("a room type per room: room 1 a double, room 2 a twin, quoted as one request and booked together", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const { checkin, checkout } = stay(2)
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        await onTestServerFor(page, base)
        const quotes: Array<{ rooms: Array<{ room_type_id: string; quantity: number; adults: number }> }> = []
        page.on("request", (r) => r.url().endsWith("/v1/quotes") && quotes.push(r.postDataJSON()))
        await page.goto(`${base}/book`)
        await page.locator("#search-form.enhanced").waitFor()
        // by keyboard: the guest asks for two rooms, then chooses each room's type
        await page.locator("#checkin").fill(checkin)
        await page.locator("#checkout").fill(checkout)
        await tabTo(page, "#rooms")
        await page.keyboard.press("ArrowUp")
        await page.locator("#room-type-1").waitFor()
        await tabTo(page, "#room-type-0")
        await page.locator("#room-type-0").selectOption("double")
        await tabTo(page, "#adults-1")
        await page.keyboard.press("ArrowDown")
        await tabTo(page, "#room-type-1")
        await page.locator("#room-type-1").selectOption("twin")
        const axeSearch = await axeViolations(page)
        await tabTo(page, "#search-submit")
        await page.keyboard.press("Enter")
        await page.locator("#offers-title:focus").waitFor()
        const group = await page.locator(".room-group h2").allTextContents()
        const axeOffers = await axeViolations(page)
        const url = page.url()
        await tabTo(page, "button.choose")
        await page.keyboard.press("Enter")
        await page.waitForURL(/\/complete/)
        const summary = await page.locator("#summary").innerText()
        return { quotes, group, url, summary, axe: [...axeSearch, ...axeOffers], number: await complete(page, "en") }
      })
      expect(shown.quotes).toEqual([expect.objectContaining({
        rooms: [
          { room_type_id: "double", quantity: 1, adults: 2, children_ages: [] },
          { room_type_id: "twin", quantity: 1, adults: 1, children_ages: [] }
        ]
      })])
      expect(shown.group).toHaveLength(1)
      expect(shown.group[0]).toContain(GUEST_CATALOG.en.roomN.replace("{n}", "2"))
      expect(new URL(shown.url).searchParams.getAll("room_type_id")).toEqual(["double", "twin"])
      expect(shown.axe).toEqual([])
      expect(shown.summary).toMatch(/Double[\s\S]*Twin|Twin[\s\S]*Double/)
      expect(shown.number).toMatch(/^BR-[A-Z0-9]{6}$/)
    }))

  it.effect("a mixed deep link opens on its one quote; a room left to any type is quoted in each type", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const { checkin, checkout } = stay(2)
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        let quotes = 0
        page.on("request", (r) => r.url().endsWith("/v1/quotes") && quotes++)
        await page.goto(`${base}/book?checkin=${checkin}&checkout=${checkout}&rooms=2&room_type_id=deluxe&room_type_id=`)
        await page.locator(".offer").first().waitFor()
        return {
          quotes,
          types: [await page.locator("#room-type-0").inputValue(), await page.locator("#room-type-1").inputValue()],
          groups: await page.locator(".room-group").evaluateAll((els) => els.map((e) => e.id))
        }
      })
      expect(shown.quotes).toBe(3)
      expect(shown.types).toEqual(["deluxe", ""])
      expect(shown.groups).toEqual(["type-deluxe-double", "type-deluxe-twin", "type-deluxe"])
    }))

  for (const how of ["JavaScript off", "the page's module refused"] as const) {
    it.effect(`with ${how}: the server's search form is there, filled from the link, and searches as a deep link`, () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        const { checkin, checkout } = stay(2)
        const shown = yield* onPage({ viewport: PHONE, javaScriptEnabled: how !== "JavaScript off" }, async (page) => {
          if (how !== "JavaScript off") await page.route("**/assets/fr/book.js", (route) => route.abort())
          await page.goto(`${base}/book?checkin=${checkin}&checkout=${checkout}&adults=1&children=4&rooms=1&promo=DIRECT12&lang=fr`)
          const filled = {
            checkin: await page.locator("#checkin").inputValue(),
            adults: await page.locator("#adults-0").inputValue(),
            children: await page.locator("#children-0").inputValue(),
            promo: await page.locator("#promo").inputValue(),
            limits: await page.locator("#adults-0").evaluate((e) => [e.getAttribute("min"), e.getAttribute("max")])
          }
          await page.locator("#rooms").fill("2")
          await page.locator("#room-type-0").selectOption("deluxe")
          await page.locator("#search-submit").click()
          await page.waitForURL(/rooms=2/)
          return {
            filled,
            url: page.url(),
            after: { rooms: await page.locator("#rooms").inputValue(), lines: await page.locator(".room-line").count(), type: await page.locator("#room-type-0").inputValue() },
            title: await page.locator("#search-form legend").first().textContent()
          }
        })
        expect(shown.filled).toEqual({ checkin, adults: "1", children: "4", promo: "DIRECT12", limits: ["1", "2"] })
        const params = new URL(shown.url).searchParams
        expect([...params.keys()]).toEqual(["checkin", "checkout", "rooms", "adults", "children", "room_type_id", "promo", "lang"])
        expect(params.get("checkin")).toBe(checkin)
        expect(params.get("lang")).toBe("fr")
        // one room's guests for both rooms; the room type shown first
        expect(shown.after).toEqual({ rooms: "2", lines: 2, type: "" })
        expect(shown.title).toBe(GUEST_CATALOG.fr.searchTitle)
      }))
  }

  it.effect("with JavaScript off, a bad parameter is still a message on the form", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const shown = yield* onPage({ viewport: PHONE, javaScriptEnabled: false }, async (page) => {
        await page.goto(deepLink(base, { checkin: "2027-02-30", nights: "2", rooms: "2", room_type_id: "suite" }))
        return {
          messages: await page.locator("#search-message p").allTextContents(),
          invalid: await page.$$eval("[aria-invalid=true]", (els) => els.map((e) => e.id))
        }
      })
      expect(shown.messages).toEqual([
        GUEST_CATALOG.en.badParam.replace("{name}", GUEST_CATALOG.en.arrival),
        GUEST_CATALOG.en.badParam.replace("{name}", GUEST_CATALOG.en.departure),
        GUEST_CATALOG.en.badParam.replace("{name}", GUEST_CATALOG.en.roomType)
      ])
      expect(shown.invalid).toEqual(["checkin", "checkout", "room-type-0", "room-type-1"])
    }))

  it.effect("a date closed to arrival by the hotel's channel is explained on the calendar, to sight and to screen readers", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const closed = daysFromToday(200)
      for (const room_type_id of ["double", "twin", "deluxe"]) {
        yield* hotelSets({ room_type_id: room_type_id as RoomTypeId, from: closed, to: closed, closed_to_arrival: true })
      }
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        await page.goto(deepLink(base, { checkin: daysFromToday(199), nights: "2" }))
        await page.locator("#calendar-open").click()
        await page.locator(`[data-date="${daysFromToday(199)}"].open`).waitFor()
        await page.locator(`[data-date="${daysFromToday(199)}"]`).focus()
        await page.keyboard.press("ArrowRight")
        await page.locator(`[data-date="${closed}"]:focus`).waitFor()
        const detail = await page.locator("#calendar-detail").textContent()
        const cell = await page.locator(`[data-date="${closed}"] .sr`).textContent()
        const axe = await axeViolations(page)
        recordAxe("book-calendar", axe)
        // Enter on it chooses nothing; on the next day it does
        await page.keyboard.press("Enter")
        await page.keyboard.press("ArrowRight")
        await page.locator(`[data-date="${daysFromToday(201)}"].open:focus`).waitFor()
        await page.keyboard.press("Enter")
        return { detail, cell, axe, checkin: await page.locator("#checkin").inputValue(), checkout: await page.locator("#checkout").inputValue(), sideways: await scrollsSideways(page) }
      })
      expect(shown.detail).toContain(GUEST_CATALOG.en.calReason_closed_to_arrival)
      expect(shown.cell).toBe(shown.detail)
      expect(shown.axe).toEqual([])
      expect(shown.checkin).toBe(daysFromToday(201))
      expect(shown.checkout).toBe(daysFromToday(203))
      expect(shown.sideways).toBe(false)
    }))

  it.effect("the calendar's month buttons keep the focus, Page Up and Escape work, and reduced motion is honoured", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const shown = yield* onPage({ viewport: PHONE, reducedMotion: "reduce" }, async (page) => {
        await page.goto(deepLink(base, { checkin: daysFromToday(120), nights: "3" }))
        await page.locator("#calendar-open").click()
        await page.locator("#calendar-grid td.day.open, #calendar-grid td.day.closed").first().waitFor()
        const first = await page.locator("#calendar-month").textContent()
        await page.locator("#calendar-next").focus()
        await page.keyboard.press("Enter")
        await page.locator("#calendar-grid td.day.open, #calendar-grid td.day.closed").first().waitFor()
        const afterNext = { month: await page.locator("#calendar-month").textContent(), focus: await page.evaluate<string>("document.activeElement.id") }
        await page.locator("#calendar-grid td[tabindex='0']").focus()
        await page.keyboard.press("PageUp")
        const back = await page.locator("#calendar-month").textContent()
        const transitions = await page.evaluate<string>("getComputedStyle(document.querySelector('#calendar-grid td')).transitionDuration")
        await page.keyboard.press("Escape")
        return { first, afterNext, back, transitions, focus: await page.evaluate<string>("document.activeElement.id"), open: await page.locator("#calendar").count() }
      })
      expect(shown.afterNext.month).not.toBe(shown.first)
      expect(shown.afterNext.focus).toBe("calendar-next")
      expect(shown.back).toBe(shown.first)
      expect(shown.transitions).toBe("0s")
      expect(shown.focus).toBe("calendar-open")
      expect(shown.open).toBe(0)
    }))

  it.effect("a sold-out stay: the reasons per room type in words, and the nearest stays as links that book", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const soldOut = daysFromToday(300)
      yield* hotelSets({ from: soldOut, to: soldOut, rooms_to_sell: 0 })
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        await onTestServerFor(page, base)
        await page.goto(deepLink(base, { checkin: soldOut, nights: "2", lang: "fr" }))
        await page.locator("#nothing-fits h2:focus").waitFor()
        await page.locator("#alternatives a").first().waitFor()
        const reasons = await page.locator("#reasons li").allTextContents()
        const links = await page.locator("#alternatives a").evaluateAll((els) => els.map((e) => e.getAttribute("href")))
        const texts = await page.locator("#alternatives a").allTextContents()
        const axe = await axeViolations(page)
        recordAxe("book-nothing-fits", axe)
        await page.locator("#alternatives a").first().click()
        await page.locator(".offer").first().waitFor()
        await page.locator("button.choose").first().click()
        await page.waitForURL(/\/complete/)
        return { reasons, links, texts, axe, number: await complete(page, "fr") }
      })
      expect(shown.reasons).toHaveLength(3)
      for (const reason of shown.reasons) expect(reason).toContain(GUEST_CATALOG.fr.changeReason_sold_out)
      expect(shown.links[0]).toContain(`checkin=${daysFromToday(301)}&checkout=${daysFromToday(303)}`)
      expect(shown.links[0]).toContain("lang=fr")
      expect(shown.texts[0]).toContain("2 nuits")
      expect(shown.links).toHaveLength(3)
      expect(shown.axe).toEqual([])
      expect(shown.number).toMatch(/^BR-[A-Z0-9]{6}$/)
    }))

  it.effect("a failed call is said with a Try again that makes only that call again", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const { checkin, checkout } = stay()
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        let failing = true
        let quotes = 0
        await page.route("**/v1/quotes", (route) => {
          quotes++
          return failing && route.request().postData()?.includes("\"twin\"") ? route.abort() : route.continue()
        })
        await page.goto(deepLink(base, { checkin, checkout }))
        await page.locator("#call-failure button").waitFor()
        const said = await page.locator("#call-failure").innerText()
        const axe = await axeViolations(page)
        recordAxe("book-error", axe)
        const before = quotes
        failing = false
        await page.locator("#call-failure button").click()
        await page.locator(".offer").first().waitFor()
        return { said, axe, again: quotes - before, groups: await page.locator(".room-group").count() }
      })
      expect(shown.said).toContain(GUEST_CATALOG.en.callFailed)
      expect(shown.axe).toEqual([])
      expect(shown.again).toBe(1)
      expect(shown.groups).toBe(3)
    }))

  it.effect("a script of /book refused is said in the page's language; Try again loads it and the deep link's offers follow", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const { checkin, checkout } = stay()
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        let refusing = true
        await page.route("**/assets/ru/book-offers.js", (route) => (refusing ? route.abort() : route.continue()))
        await page.goto(deepLink(base, { checkin, checkout, lang: "ru" }))
        await page.locator("#page-failure button").waitFor()
        const said = await page.locator("#page-failure").innerText()
        const axe = await axeViolations(page)
        refusing = false
        await page.locator("#page-failure button").click()
        await page.locator(".offer").first().waitFor()
        return { said, axe, groups: await page.locator(".room-group").count() }
      })
      expect(shown.said).toContain(GUEST_CATALOG.ru.pageFailed)
      expect(shown.axe).toEqual([])
      expect(shown.groups).toBe(3)
    }))

  it.effect("when the calendar's script cannot be had, the browser's own date inputs still search; pressed again, the calendar opens", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const { checkin, checkout } = stay()
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        let refusing = true
        await page.route("**/assets/en/book-calendar.js*", (route) => (refusing ? route.abort() : route.continue()))
        await page.goto(`${base}/book`)
        await page.locator("#calendar-open").click()
        await page.locator("#search-message p").waitFor()
        const said = await page.locator("#search-message").innerText()
        const focus = await page.evaluate<string>("document.activeElement.id")
        await page.locator("#checkin").fill(checkin)
        await page.locator("#checkout").fill(checkout)
        await page.locator("#search-submit").click()
        await page.locator(".offer").first().waitFor()
        refusing = false
        await page.locator("#calendar-open").click()
        await page.locator("#calendar-grid").waitFor()
        return { said, focus, url: page.url() }
      })
      expect(shown.said).toBe(GUEST_CATALOG.en.pageFailed)
      expect(shown.focus).toBe("checkin")
      expect(shown.url).toContain(`checkin=${checkin}&checkout=${checkout}`)
    }))

  it.effect("an unknown promo code is said on the form, in words, and the search is kept", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const { checkin, checkout } = stay()
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        await page.goto(deepLink(base, { checkin, checkout, promo: "NOSUCHCODE", lang: "fr" }))
        await page.locator("#search-message p").waitFor()
        return {
          said: await page.locator("#search-message").innerText(),
          invalid: await page.$$eval("[aria-invalid=true]", (els) => els.map((e) => e.id)),
          checkin: await page.locator("#checkin").inputValue(),
          axe: await axeViolations(page)
        }
      })
      expect(shown.said).toBe(GUEST_CATALOG.fr.invalidPromo_unknown)
      expect(shown.invalid).toEqual(["promo"])
      expect(shown.checkin).toBe(checkin)
      expect(shown.axe).toEqual([])
    }))
})

const clock = makeTestClock(new Date().toISOString())

layerWithChromium(TestApp().pipe(Layer.provide(clock.layer)))("booking page, when the offer has changed", (it) => {
  it.effect("a 409 at the intent (the quote lapsed) shows the offers as they are now and keeps the search; one of them books", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const { checkin, checkout } = stay(2)
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        await onTestServerFor(page, base)
        const intents: Array<number> = []
        page.on("response", (r) => r.url().endsWith("/v1/reservation-intents") && intents.push(r.status()))
        await page.goto(deepLink(base, { checkin, checkout, adults: "1", children: "4", promo: "DIRECT12" }))
        await page.locator(".offer").first().waitFor()
        // the guest lingers past the quote's lifetime
        clock.advance(60 * 60 * 1000)
        await page.locator("#offer-double-FLEX button.choose").click()
        await page.locator("#offers-changed").waitFor()
        const kept = {
          checkin: await page.locator("#checkin").inputValue(),
          children: await page.locator("#children-0").inputValue(),
          promo: await page.locator("#promo").inputValue(),
          focused: await page.evaluate<string>("document.activeElement.id")
        }
        await page.locator("#offer-double-FLEX button.choose").click()
        await page.waitForURL(/\/complete/)
        return { kept, intents, number: await complete(page, "en") }
      })
      expect(shown.intents).toEqual([409, 200])
      expect(shown.kept).toEqual({ checkin, children: "4", promo: "DIRECT12", focused: "offers-title" })
      expect(shown.number).toMatch(/^BR-[A-Z0-9]{6}$/)
    }))
})
