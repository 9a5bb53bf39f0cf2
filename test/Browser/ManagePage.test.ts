import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { type HttpClient, HttpClientRequest } from "effect/http"
import * as fs from "node:fs"
import type { Page } from "playwright-core"
import { GUEST_PAGE_CSP } from "../../src/Api/Handlers/GuestPages.js"
import type { ReservationId, RoomTypeId } from "../../src/Domain/Ids.js"
import { formatStayDay } from "../../src/Domain/GuestFormats.js"
import type { Language } from "../../src/Domain/Language.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import {
  axeViolations,
  baseUrl,
  DESKTOP,
  layerWithChromium,
  onPage,
  onTestServer,
  pageWords,
  PHONE,
  recordAxe,
  screenshot
} from "../support/browser.js"
import { daysFromToday } from "../support/clock.js"
import { completeWith, get, guest, hotelSets, pendingReservation, post } from "../support/flow.js"
import { demoHotel } from "../support/hotel.js"
import { manageLinkOf } from "../support/manageLink.js"
import { mailingTestApp } from "../support/MailingTestApp.js"
import { request } from "../support/TestApp.js"
import { englishLeftovers, ui } from "../support/wording.js"

const GUEST = { first_name: "Jeanne", last_name: "Dupont", email: "jeanne.dupont@example.com", phone: "+33 6 12 34 56 78" }

/** A quote and an intent in `language`, `days` from today: continue_url, its token and the reservation's id. */
const guestLink = (language: Language, days: number, rateCode = "FLEX", roomTypeId = "double") =>
  Effect.map(
    pendingReservation(daysFromToday(days), daysFromToday(days + 2), [{ room_type_id: roomTypeId, adults: 2 }], rateCode, language),
    ({ intent, token, total }) => ({
      continueUrl: intent.continue_url as string,
      token,
      id: intent.reservation_id as ReservationId,
      total
    })
  )

const text = async (page: Page, selector: string) => ((await page.locator(selector).textContent()) ?? "").trim()
const noHorizontalScroll = (page: Page) =>
  page.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth")

/** Serious and critical violations only: the bar the pages must pass. */
const serious = <V extends { readonly impact: string | null }>(violations: ReadonlyArray<V>) =>
  violations.filter((v) => v.impact === "serious" || v.impact === "critical")

/**
 * A guest's whole path in one language and window: the continue_url's page, completed; then the
 * confirmation email's manage link: change the phone, download the PDF, ask for the email again,
 * cancel. Screenshots, axe (once per page and language, on the phone) and leftover English on the way.
 */
const journey = (language: Language, viewport: typeof PHONE | typeof DESKTOP, days: number) =>
  Effect.gen(function*() {
    const width = viewport.width
    const audit = width === PHONE.width
    const link = yield* guestLink(language, days)
    const completeUrl = yield* onTestServer(link.continueUrl)

    const completed = yield* onPage({ viewport }, async (page) => {
      await page.goto(completeUrl)
      await page.locator("#guest-form").waitFor()
      await page.locator("#hotel .hotel-name").waitFor()
      const shown = {
        lang: await page.getAttribute("html", "lang"),
        title: await text(page, "h1"),
        hotel: await text(page, "#hotel"),
        rooms: await text(page, "#summary ul.rooms"),
        pkg: await text(page, "#package"),
        fits: await noHorizontalScroll(page),
        shot: await screenshot(page, `complete-${language}-${width}`),
        axe: audit ? await axeViolations(page) : [],
        leftovers: audit && language !== "en" ? englishLeftovers(await pageWords(page), language, [GUEST.first_name, GUEST.last_name]) : []
      }
      await page.locator("[name=first_name]").fill(GUEST.first_name)
      await page.locator("[name=last_name]").fill(GUEST.last_name)
      await page.locator("[name=email]").fill(GUEST.email)
      await page.locator("[name=phone]").fill(GUEST.phone)
      await page.locator("[name=accept_terms]").check()
      await page.locator("#submit").click()
      await page.locator("#reservation-number").waitFor()
      return { ...shown, number: await text(page, "#reservation-number") }
    })

    const manageUrl = yield* onTestServer(yield* manageLinkOf(link.id))
    const managed = yield* onPage({ viewport }, async (page) => {
      await page.goto(manageUrl)
      await page.locator("#reservation-number").waitFor()
      await page.locator("#hotel .hotel-name").waitFor()
      // names: the guest's and the reservation number
      const names = [GUEST.first_name, GUEST.last_name, await text(page, "#reservation-number")]
      const shown = {
        url: page.url(),
        lang: await page.getAttribute("html", "lang"),
        title: await text(page, "h1"),
        hotel: await text(page, "#hotel"),
        number: await text(page, "#reservation-number"),
        status: await text(page, "#reservation-status"),
        pms: await text(page, "#pms-status"),
        freeUntil: await text(page, "#cancellation"),
        fits: await noHorizontalScroll(page),
        shot: await screenshot(page, `manage-${language}-${width}`),
        axe: audit ? await axeViolations(page) : [],
        leftovers: audit && language !== "en" ? englishLeftovers(await pageWords(page), language, names) : []
      }

      // change the phone
      await page.locator("#f-phone").fill("+33 7 00 11 22 33")
      await page.locator("#save").click()
      await page.locator("#edit-message p").waitFor()
      const changed = { message: await text(page, "#edit-message"), phone: await text(page, "#guest-phone") }

      // the PDF: fetched with the token header, saved from a blob URL
      const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#download-pdf").click()])
      const pdf = { name: download.suggestedFilename(), head: fs.readFileSync((await download.path())!).subarray(0, 5).toString("latin1") }

      // the confirmation email was sent at completion: asking again so soon is refused, and said so
      await page.locator("#resend").click()
      await page.locator("#documents-message p").waitFor()
      const resend = await text(page, "#documents-message")

      // cancel: a confirmation step that can be stepped back from, then the new state
      await page.locator("#cancel").click()
      const confirmShown = await page.locator("#cancel-confirm").isVisible()
      await page.locator("#cancel-no").click()
      const confirmClosed = !(await page.locator("#cancel-confirm").isVisible()) &&
        (await page.evaluate<string>("document.activeElement.id")) === "cancel"
      await page.locator("#cancel").click()
      await page.locator("#cancel-yes").click()
      await page.locator("#notice-error").waitFor()
      await page.locator("#status:not(:empty)").waitFor()
      const cancelled = {
        status: await text(page, "#reservation-status"),
        said: await text(page, "#status"),
        forms: await page.locator("form, #cancel, #download-pdf").count(),
        shot: await screenshot(page, `manage-cancelled-${language}-${width}`),
        leftovers: audit && language !== "en" ? englishLeftovers(await pageWords(page), language, names) : []
      }
      return { ...shown, changed, pdf, resend, confirmShown, confirmClosed, cancelled }
    })
    return { language, width, completed, managed }
  })


// ---- stay changes ----

/** A completed FLEX reservation of one double for 2 adults, `days` from today for `nights`: its manage link on the test server and token. */
const completedStay = (language: Language, days: number, nights = 2) =>
  Effect.gen(function*() {
    const pending = yield* pendingReservation(daysFromToday(days), daysFromToday(days + nights), [{ room_type_id: "double", adults: 2 }], "FLEX", language)
    expect((yield* completeWith(pending.token, pending.total)).status).toBe(200)
    const link = yield* manageLinkOf(pending.intent.reservation_id as ReservationId)
    return { url: yield* onTestServer(link), token: new URL(link).hash.replace("#token=", ""), total: pending.total }
  })

/** What POST /v1/reservation-manage answers with this token. */
const manage = (token: string, body: Record<string, unknown>) => post("/v1/reservation-manage", body, { "x-reservation-token": token })

/** Others complete `quantity` rooms of a type for a stay: the hotel fills up while the guest's page is open. */
const othersBook = (checkin: string, checkout: string, room_type_id: string, quantity: number) =>
  Effect.gen(function*() {
    const others = yield* pendingReservation(checkin, checkout, [{ room_type_id, adults: 2, quantity }])
    expect((yield* completeWith(others.token, others.total)).status).toBe(200)
  })

const LOCALES: Record<Language, string> = { en: "en-GB", fr: "fr-FR", ru: "ru-RU" }
/** Spaces of any kind as one: Node and Chromium may space currency amounts with different characters. */
const spaced = (s: string) => s.replace(/\s+/g, " ").trim()
const moneyIn = (language: Language, amount: number) =>
  spaced(new Intl.NumberFormat(LOCALES[language], { style: "currency", currency: "EUR" }).format(amount))
const activeId = (page: Page) => page.evaluate<string>("document.activeElement.id")
/** Once the page has drawn twice: a message gets its text on the next frame and focus on the one after. */
const settled = (page: Page) => page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")

/**
 * On a phone in `language`: the change section prefilled from the reservation; new dates and a
 * second room; See the new price shows the API's new total and difference; axe and leftover
 * English with the price shown; Confirm shows the changed reservation and says so.
 */
const changeJourney = (language: Language, days: number) =>
  Effect.gen(function*() {
    const stay = yield* completedStay(language, days)
    const change = {
      checkin: daysFromToday(days + 1),
      checkout: daysFromToday(days + 4),
      rooms: [
        { room_type_id: "double", quantity: 1, adults: 2, children_ages: [] },
        { room_type_id: "twin", quantity: 1, adults: 1, children_ages: [8] }
      ]
    }
    // the API's own answer, for the figures the page must show (quote_change changes nothing)
    const quoted = yield* manage(stay.token, { action: "quote_change", ...change })
    expect(quoted.status, `${language}: ${quoted.text}`).toBe(200)
    const shown = yield* onPage({ viewport: PHONE }, async (page) => {
      await page.goto(stay.url)
      await page.locator("#change-form").waitFor()
      await page.locator("#hotel .hotel-name").waitFor()
      const number = await text(page, "#reservation-number")
      const prefilled = {
        checkin: await page.locator("#change-checkin").inputValue(),
        checkout: await page.locator("#change-checkout").inputValue(),
        type: await page.locator("#change-type-0").inputValue(),
        typeName: await text(page, "#change-type-0 option:checked"),
        adults: await page.locator("#change-adults-0").inputValue(),
        removable: await page.locator("#change-remove-0").isVisible(),
        until: await text(page, "#change-until")
      }
      await page.locator("#change-checkin").fill(change.checkin)
      await page.locator("#change-checkout").fill(change.checkout)
      await page.locator("#change-add-room").click()
      const focusAfterAdd = await activeId(page)
      await page.locator("#change-type-1").selectOption("twin")
      await page.locator("#change-adults-1").selectOption("1")
      await page.locator("#change-ages-1").fill("8")
      await page.locator("#change-quote").click()
      await page.locator("#change-confirm").waitFor()
      await page.locator("#change-result-title:focus").waitFor()
      const quote = {
        newTotal: spaced(await text(page, "#change-new-total")),
        previousTotal: spaced(await text(page, "#change-previous-total")),
        difference: spaced(await text(page, "#change-difference")),
        said: spaced(await text(page, "#change-difference-text")),
        live: await page.getAttribute("#change-result", "role"),
        fits: await noHorizontalScroll(page),
        shot: await screenshot(page, `manage-change-quote-${language}`),
        axe: await axeViolations(page),
        leftovers: language === "en" ? [] : englishLeftovers(await pageWords(page), language, [guest.first_name, guest.last_name, number])
      }
      const summaryBefore = await text(page, "#summary")
      await page.locator("#change-confirm").click()
      await page.locator("#change-message p").waitFor()
      await settled(page)
      const changed = {
        said: await text(page, "#change-message"),
        focus: await activeId(page),
        summaryChanged: (await text(page, "#summary")) !== summaryBefore,
        length: await text(page, "#summary dl.facts dd:nth-of-type(3)"),
        arrival: await text(page, "#summary dl.facts dd:nth-of-type(1)"),
        // the arrival as the PDF and the emails write it
        arrivalWanted: formatStayDay("arrivalOn", change.checkin as LocalDate, demoHotel.check_in, language),
        rooms: await page.locator("#summary ul.rooms li").count(),
        total: spaced(await text(page, "#total")),
        formCheckin: await page.locator("#change-checkin").inputValue(),
        lines: await page.locator("#change-rooms fieldset").count(),
        fits: await noHorizontalScroll(page),
        axe: await axeViolations(page),
        leftovers: language === "en" ? [] : englishLeftovers(await pageWords(page), language, [guest.first_name, guest.last_name, number])
      }
      return { prefilled, focusAfterAdd, quote, changed }
    })
    const after = yield* manage(stay.token, { action: "quote_change", ...change })
    return { language, stay, quoted: quoted.body, shown, after }
  })

const LANGUAGES: ReadonlyArray<Language> = ["en", "fr", "ru"]
const axeSummary: Record<string, string> = {}

// the stay-change tests complete more reservations from one address than the limits per address let through
// every test books and mails from one address to one guest: more than a day's limits of each
layerWithChromium(mailingTestApp({ bookingLimitPerHour: 0, roomNightsPerAddressPerDay: 0, mailLimitPerRecipientPerDay: 0 }), { timeout: 60_000 })("manage page", (it) => {
  it.effect("is served like /complete: its CSP, no-store, allow-listed scripts", () =>
    Effect.gen(function*() {
      const page = yield* request(HttpClientRequest.get("/manage"))
      expect(page.status).toBe(200)
      expect(page.headers["content-type"]).toBe("text/html; charset=utf-8")
      expect(page.headers["cache-control"]).toBe("no-store")
      expect(page.headers["content-security-policy"]).toBe(GUEST_PAGE_CSP)
      // loaded by the boot script, which says so when it cannot be
      expect(page.text).toContain(`<script src="/assets/guest-boot.js" data-page="/assets/en/manage.js"`)
      for (const asset of ["manage.js", "guest.js", "guest-i18n.js"]) {
        const script = yield* request(HttpClientRequest.get(`/assets/${asset}`))
        expect([script.status, script.headers["content-type"]]).toEqual([200, "text/javascript; charset=utf-8"])
        expect(script.headers["content-security-policy"]).toBe(GUEST_PAGE_CSP)
      }
      expect((yield* request(HttpClientRequest.get("/assets/manage.html"))).status).toBe(404)
    }))

  it.effect(
    "en, fr, ru on a phone and a desktop: complete from continue_url, then from the email's link change the phone, download the PDF, cancel",
    () =>
      Effect.gen(function*() {
        const runs = yield* Effect.forEach(
          LANGUAGES.flatMap((language, i) => [
            [language, PHONE, 20 + i * 4] as const,
            [language, DESKTOP, 22 + i * 4] as const
          ]),
          ([language, viewport, days]) => journey(language, viewport, days),
          { concurrency: 3 }
        )
        for (const { language, width, completed, managed } of runs) {
          const at = `${language} at ${width}px`
          // /complete: the reservation's language, the hotel's texts in it, the hotel at the top
          expect(completed.lang, at).toBe(language)
          expect(completed.title, at).toBe(ui(language, "titleComplete"))
          expect(completed.hotel, at).toContain(demoHotel.name)
          expect(completed.hotel, at).toContain(demoHotel.contact.phone)
          expect(completed.rooms, at).toContain(demoHotel.room_types.find((r) => r.id === "double")!.name[language])
          expect(completed.pkg, at).toContain(demoHotel.rate_plans.find((p) => p.code === "FLEX")!.name[language])
          expect(completed.fits, at).toBe(true)
          expect(completed.number, at).toMatch(/^BR-[A-Z0-9]{6}$/)

          // /manage: the token gone from the address bar, the reservation as it is, in its language
          expect(managed.url, at).not.toContain("token")
          expect(managed.lang, at).toBe(language)
          expect(managed.title, at).toBe(ui(language, "titleManage"))
          expect(managed.hotel, at).toContain(demoHotel.contact.email)
          expect(managed.number, at).toBe(completed.number)
          expect(managed.status, at).toBe(ui(language, "statuses", "GUEST_COMPLETED"))
          expect(managed.pms, at).toBe(ui(language, "pmsStatuses", "PENDING"))
          expect(managed.freeUntil, at).toContain("14:00")
          expect(managed.fits, at).toBe(true)

          expect(managed.changed, at).toEqual({ message: ui(language, "saved"), phone: "+33 7 00 11 22 33" })
          expect(managed.pdf, at).toEqual({ name: `${completed.number}.pdf`, head: "%PDF-" })
          const fiveMinutes = ui(language, "rateLimited", new Intl.PluralRules(language).select(5)).replace("{n}", "5")
          expect(managed.resend, at).toBe(fiveMinutes)
          expect(managed.confirmShown && managed.confirmClosed, at).toBe(true)
          expect(managed.cancelled, at).toMatchObject({
            status: ui(language, "statuses", "CANCELLED"),
            said: ui(language, "cancelledNow"),
            forms: 0
          })
          if (width === PHONE.width) {
            for (const [page, result] of [["complete", completed], ["manage", managed]] as const) {
              recordAxe(`${page}-${language}`, result.axe)
              axeSummary[`${page}-${language}`] = result.axe.length === 0
                ? "no violation"
                : result.axe.map((v) => `${v.id} (${v.impact})`).join(", ")
              expect(serious(result.axe), `${page} ${at}`).toEqual([])
            }
            expect([completed.leftovers, managed.leftovers, managed.cancelled.leftovers], at).toEqual([[], [], []])
          }
        }
        fs.writeFileSync(new URL("../../test-artifacts/axe/summary.json", import.meta.url), JSON.stringify(axeSummary, null, 2))
      }),
    120_000
  )

  it.effect("the axe check itself finds what it must: an unlabelled input is a critical violation", () =>
    Effect.gen(function*() {
      const found = yield* onPage({}, async (page) => {
        await page.setContent(`<!doctype html><html lang="en"><title>t</title><main><input type="text"></main></html>`)
        return axeViolations(page)
      })
      expect(serious(found).map((v) => v.id)).toContain("label")
    }))

  it.effect("a non-refundable rate: no cancel button nor stay change, the reasons and whom to ask instead; a wrong phone is named in French", () =>
    Effect.gen(function*() {
      const link = yield* guestLink("fr", 40, "NRF", "deluxe")
      expect((yield* completeWith(link.token, link.total)).status).toBe(200)
      const url = yield* onTestServer(yield* manageLinkOf(link.id))
      const shown = yield* onPage({}, async (page) => {
        await page.goto(url)
        await page.locator("#cannot-cancel").waitFor()
        await page.locator("#f-phone").fill("appelez-moi")
        await page.locator("#save").click()
        await page.locator("#edit-message p").waitFor()
        return {
          why: await text(page, "#cannot-cancel"),
          cancel: await page.locator("#cancel").count(),
          change: { why: await text(page, "#cannot-change"), form: await page.locator("#change-form").count() },
          phone: { said: await text(page, "#edit-message"), invalid: await page.getAttribute("#f-phone", "aria-invalid") }
        }
      })
      expect(shown).toEqual({
        why: ui("fr", "nonRefundablePolicy"),
        cancel: 0,
        change: { why: ui("fr", "nonRefundablePolicy"), form: 0 },
        phone: { said: ui("fr", "checkFields").replace("{list}", ui("fr", "phone")), invalid: "true" }
      })
    }))

  it.effect("a refundable rate past its deadline: the reasons are the API's refused_actions, deadline_passed, with the deadline", () =>
    Effect.gen(function*() {
      // arriving tomorrow: free cancellation ended two days before, at 14:00
      const link = yield* guestLink("en", 1)
      expect((yield* completeWith(link.token, link.total)).status).toBe(200)
      const url = yield* onTestServer(yield* manageLinkOf(link.id))
      const shown = yield* onPage({}, async (page) => {
        await page.goto(url)
        await page.locator("#cannot-cancel").waitFor()
        return { cancel: await text(page, "#cannot-cancel"), change: await text(page, "#cannot-change") }
      })
      const before = (key: string) => ui("en", key).split("{when}")[0]!
      expect(shown.cancel.startsWith(before("refused_cancel_deadline_passed"))).toBe(true)
      expect(shown.change.startsWith(before("refused_change_stay_deadline_passed"))).toBe(true)
    }))

  it.effect("an invalid link, or none after a reload, is explained in the browser's language with what to do", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const cases = [
        ["en-GB", "/manage#token=not-a-real-token", "en", "invalidManage"],
        ["fr-FR", "/manage#token=not-a-real-token", "fr", "invalidManage"],
        ["ru-RU", "/manage", "ru", "noTokenManage"],
        ["ru-RU", "/complete#token=not-a-real-token", "ru", "invalidComplete"]
      ] as const
      const shown = yield* Effect.forEach(cases, ([locale, path]) =>
        onPage({ locale }, async (page) => {
          await page.goto(`${base}${path}`)
          await page.locator("#invalid-link").waitFor()
          await page.locator("#hotel .hotel-name").waitFor()
          return {
            lang: await page.getAttribute("html", "lang"),
            text: await text(page, "#invalid-link"),
            hotel: await text(page, "#hotel"),
            forms: await page.locator("form").count()
          }
        }), { concurrency: 2 })
      shown.forEach((s, i) => {
        const [, , language, key] = cases[i]!
        expect(s.lang).toBe(language)
        expect(s.text).toContain(ui(language, "invalidTitle"))
        expect(s.text).toContain(ui(language, key))
        expect(s.hotel).toContain(demoHotel.contact.phone) // whom to ask
        expect(s.forms).toBe(0)
      })
    }))

  it.effect("can be used with the keyboard at 320 px: Tab reaches Cancel, Enter asks to confirm, Escape steps back", () =>
    Effect.gen(function*() {
      const link = yield* guestLink("en", 44)
      expect((yield* completeWith(link.token, link.total)).status).toBe(200)
      const url = yield* onTestServer(yield* manageLinkOf(link.id))
      const result = yield* onPage({ viewport: { width: 320, height: 640 } }, async (page) => {
        await page.goto(url)
        await page.locator("#cancel").waitFor()
        let reached = false
        for (let i = 0; i < 60 && !reached; i++) {
          await page.keyboard.press("Tab")
          reached = (await page.evaluate<string>("document.activeElement.id")) === "cancel"
        }
        const outline = await page.evaluate<string>("getComputedStyle(document.activeElement).outlineStyle")
        await page.keyboard.press("Enter")
        const afterEnter = await page.evaluate<string>("document.activeElement.id")
        await page.keyboard.press("Escape")
        return {
          reached,
          outline,
          afterEnter,
          afterEscape: await page.evaluate<string>("document.activeElement.id"),
          fits: await noHorizontalScroll(page)
        }
      })
      expect(result).toEqual({ reached: true, outline: "solid", afterEnter: "cancel-no", afterEscape: "cancel", fits: true })
    }))

  // the stay changes come last: each sends an email with a PDF, which the earlier tests' emails would queue behind
  it.effect("en, fr, ru on a phone: change the dates and add a room, see the new total and the difference, confirm, see the new stay", () =>
    Effect.gen(function*() {
      const runs = yield* Effect.forEach(LANGUAGES, (language, i) => changeJourney(language, 60 + i * 6), { concurrency: 3 })
      for (const { language, quoted, shown } of runs) {
        const roomName = demoHotel.room_types.find((r) => r.id === "double")!.name[language]
        expect(shown.prefilled, language).toMatchObject({
          checkin: daysFromToday(60 + LANGUAGES.indexOf(language) * 6),
          checkout: daysFromToday(62 + LANGUAGES.indexOf(language) * 6),
          type: "double",
          typeName: roomName,
          adults: "2",
          removable: false
        })
        expect(shown.prefilled.until, language).toContain("14:00")
        expect(shown.focusAfterAdd, language).toBe("change-type-1")
        const sign = quoted.difference > 0 ? "+" : quoted.difference < 0 ? "−" : ""
        expect(shown.quote, language).toMatchObject({
          newTotal: moneyIn(language, quoted.new_total),
          previousTotal: moneyIn(language, quoted.previous_total),
          difference: `${sign}${moneyIn(language, Math.abs(quoted.difference))}`,
          live: "status",
          fits: true
        })
        // three nights and a second room instead of two nights: dearer
        expect(quoted.difference, language).toBeGreaterThan(0)
        expect(shown.quote.said, language).toBe(spaced(ui(language, "changeCostsMore").replace("{amount}", moneyIn(language, quoted.difference))))
        recordAxe(`manage-change-${language}`, [...shown.quote.axe, ...shown.changed.axe])
        expect(serious(shown.quote.axe), language).toEqual([])
        expect(serious(shown.changed.axe), language).toEqual([])
        expect([shown.quote.leftovers, shown.changed.leftovers], language).toEqual([[], []])

        const threeNights = ui(language, "nights", new Intl.PluralRules(language).select(3)).replace("{n}", "3")
        expect(shown.changed, language).toMatchObject({
          said: ui(language, "stayChanged"),
          focus: "change-message",
          summaryChanged: true,
          length: threeNights,
          rooms: 2,
          total: moneyIn(language, quoted.new_total),
          formCheckin: daysFromToday(61 + LANGUAGES.indexOf(language) * 6),
          lines: 2,
          fits: true
        })
        expect(shown.changed.arrival, language).toBe(shown.changed.arrivalWanted)
      }
      // the change took: the same change again costs nothing more
      for (const { language, after } of runs) expect([after.status, after.body.difference], language).toEqual([200, 0])
    }), 90_000)

  it.effect("a price that moved between the quote and Confirm: the new total explained in French, accepted with one button", () =>
    Effect.gen(function*() {
      const stay = yield* completedStay("fr", 80, 1)
      // a new single night: 10 of the 12 doubles taken meanwhile raise it (demand surcharge at 80 %)
      const night = [daysFromToday(84), daysFromToday(85)] as const
      const run = Effect.runPromiseWith(yield* Effect.context<HttpClient.HttpClient>())
      // (two reservations of 5, so that two confirmation PDFs, not ten, queue behind this test)
      const fill = Effect.forEach([1, 2], () => othersBook(...night, "double", 5), { discard: true })
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        await page.goto(stay.url)
        await page.locator("#change-form").waitFor()
        await page.locator("#change-checkin").fill(night[0])
        await page.locator("#change-checkout").fill(night[1])
        await page.locator("#change-quote").click()
        await page.locator("#change-confirm").waitFor()
        const quoted = spaced(await text(page, "#change-new-total"))
        await run(fill)
        await page.locator("#change-confirm").click()
        await page.locator("#change-price-changed").waitFor()
        await page.locator("#change-accept-price:focus").waitFor()
        const explained = {
          title: await text(page, "#change-price-changed"),
          text: await text(page, "#change-result"),
          role: await page.getAttribute("#change-result", "role"),
          newTotal: spaced(await text(page, "#change-new-total")),
          axe: serious(await axeViolations(page))
        }
        await page.locator("#change-accept-price").click()
        await page.locator("#change-message p").waitFor()
        await settled(page)
        return { quoted, explained, said: await text(page, "#change-message"), total: spaced(await text(page, "#total")) }
      })
      const now = yield* manage(stay.token, { action: "quote_change", checkin: night[0], checkout: night[1], rooms: [{ room_type_id: "double", quantity: 1, adults: 2, children_ages: [] }] })
      expect(now.body.difference).toBe(0)
      const newTotal = moneyIn("fr", now.body.new_total)
      expect(shown.explained).toMatchObject({ title: ui("fr", "priceTitle"), role: "status", newTotal, axe: [] })
      expect(shown.explained.text).toContain(ui("fr", "changePriceText"))
      expect(shown.quoted).not.toBe(newTotal)
      expect(shown).toMatchObject({ said: ui("fr", "stayChanged"), total: newTotal })
    }), 60_000)

  it.effect("a night sold out between the quote and Confirm, then at the quote: which room and why, in Russian; nothing changed", () =>
    Effect.gen(function*() {
      const stay = yield* completedStay("ru", 90)
      const run = Effect.runPromiseWith(yield* Effect.context<HttpClient.HttpClient>())
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        await page.goto(stay.url)
        await page.locator("#change-form").waitFor()
        await page.locator("#change-type-0").selectOption("deluxe")
        await page.locator("#change-quote").click()
        await page.locator("#change-confirm").waitFor()
        // the five deluxe rooms of the second night go to others
        await run(othersBook(daysFromToday(91), daysFromToday(92), "deluxe", 5))
        await page.locator("#change-confirm").click()
        await page.locator("#change-unavailable").waitFor()
        await page.locator("#change-unavailable:focus").waitFor()
        const atConfirm = await text(page, "#change-result")
        // asking the price again for those dates: the quote itself says the night is gone
        await page.locator("#change-quote").click()
        await page.locator("#change-unavailable").waitFor()
        await page.locator("#change-unavailable:focus").waitFor()
        return {
          atConfirm,
          title: await text(page, "#change-unavailable"),
          text: await text(page, "#change-result"),
          role: await page.getAttribute("#change-result", "role"),
          confirm: await page.locator("#change-confirm").count(),
          type: await text(page, "#summary ul.rooms"),
          axe: serious(await axeViolations(page)),
          leftovers: englishLeftovers(await pageWords(page), "ru", [guest.first_name, guest.last_name, await text(page, "#reservation-number")])
        }
      })
      expect(shown).toMatchObject({ title: ui("ru", "changeUnavailableTitle"), role: "alert", confirm: 0, axe: [], leftovers: [] })
      expect(shown.text).toContain(demoHotel.room_types.find((r) => r.id === "deluxe")!.name.ru)
      expect(shown.text).toContain(ui("ru", "changeReason_sold_out"))
      expect(shown.text).toContain(ui("ru", "changeUnavailableText"))
      expect(shown.atConfirm).toBe(shown.text)
      expect(shown.type).toContain(demoHotel.room_types.find((r) => r.id === "double")!.name.ru)
      const view = yield* manage(stay.token, { action: "quote_change", checkin: daysFromToday(90), checkout: daysFromToday(92), rooms: [{ room_type_id: "double", quantity: 1, adults: 2, children_ages: [] }] })
      expect(view.body.difference).toBe(0)
    }), 60_000)

  it.effect("new dates the hotel's own systems restrict: the price asked says which room and why (a minimum stay, its nights), in French; axe clean", () =>
    Effect.gen(function*() {
      const stay = yield* completedStay("fr", 100)
      // the hotel asks 4 nights of a deluxe stay arriving that day, as its channel manager would say
      yield* hotelSets({ room_type_id: "deluxe" as RoomTypeId, from: daysFromToday(100), to: daysFromToday(100), min_stay: 4 })
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        await page.goto(stay.url)
        await page.locator("#change-form").waitFor()
        await page.locator("#change-type-0").selectOption("deluxe")
        await page.locator("#change-quote").click()
        await page.locator("#change-unavailable:focus").waitFor()
        return {
          title: await text(page, "#change-unavailable"),
          text: await text(page, "#change-result"),
          confirm: await page.locator("#change-confirm").count(),
          axe: await axeViolations(page),
          leftovers: englishLeftovers(await pageWords(page), "fr", [guest.first_name, guest.last_name, await text(page, "#reservation-number")])
        }
      })
      expect(shown).toMatchObject({ title: ui("fr", "changeUnavailableTitle"), confirm: 0, axe: [], leftovers: [] })
      const nights = ui("fr", "nights", "other").replace("{n}", "4")
      expect(shown.text).toContain(`${demoHotel.room_types.find((r) => r.id === "deluxe")!.name.fr} — ${ui("fr", "changeReason_min_stay").replace("{nights}", nights)}`)
      expect(shown.text).toContain(ui("fr", "changeUnavailableText"))
    }), 60_000)

  it.effect("cancelled from another window while the page is open: the change is refused (change_not_allowed), the page shows the cancelled reservation and says why", () =>
    Effect.gen(function*() {
      const stay = yield* completedStay("en", 96)
      const run = Effect.runPromiseWith(yield* Effect.context<HttpClient.HttpClient>())
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        await page.goto(stay.url)
        await page.locator("#change-form").waitFor()
        await page.locator("#change-checkout").fill(daysFromToday(99))
        const cancelled = await run(manage(stay.token, { action: "cancel" }))
        await page.locator("#change-quote").click()
        await page.locator("#notice-error").waitFor()
        await page.locator("#status:not(:empty)").waitFor()
        return {
          cancelled: cancelled.status,
          status: await text(page, "#reservation-status"),
          said: await text(page, "#status"),
          change: await page.locator("#change").count()
        }
      })
      expect(shown).toEqual({ cancelled: 200, status: ui("en", "statuses", "CANCELLED"), said: ui("en", "refused_change_stay_not_completed"), change: 0 })
    }))

  it.effect("a stay change with the keyboard alone at 375 px: Tab to the departure, type it, Enter for the price, Tab to Confirm, Enter", () =>
    Effect.gen(function*() {
      const stay = yield* completedStay("en", 100)
      const departure = daysFromToday(103)
      const result = yield* onPage({ viewport: PHONE }, async (page) => {
        await page.goto(stay.url)
        await page.locator("#change-form").waitFor()
        const tabTo = async (id: string) => {
          for (let i = 0; i < 60; i++) {
            if ((await activeId(page)) === id) return true
            await page.keyboard.press("Tab")
          }
          return false
        }
        const reachedDeparture = await tabTo("change-checkout")
        // the browser's locale is en-US: a date field takes month, day, year
        const [y, m, d] = departure.split("-")
        await page.keyboard.type(`${m}${d}${y}`)
        const reachedQuote = await tabTo("change-quote")
        const outline = await page.evaluate<string>("getComputedStyle(document.activeElement).outlineStyle")
        await page.keyboard.press("Enter")
        await page.locator("#change-result-title:focus").waitFor()
        const reachedConfirm = await tabTo("change-confirm")
        await page.keyboard.press("Enter")
        await page.locator("#change-message p").waitFor()
        await settled(page)
        return {
          reachedDeparture,
          reachedQuote,
          outline,
          reachedConfirm,
          focus: await activeId(page),
          said: await text(page, "#change-message"),
          departure: await page.locator("#change-checkout").inputValue(),
          fits: await noHorizontalScroll(page)
        }
      })
      expect(result).toEqual({
        reachedDeparture: true,
        reachedQuote: true,
        outline: "solid",
        reachedConfirm: true,
        focus: "change-message",
        said: ui("en", "stayChanged"),
        departure,
        fits: true
      })
    }), 60_000)

  it.effect("the change form's checks: the same stay, a departure before the arrival, a child aged 18, and the API's 400s (a past arrival, a group) are said beside it", () =>
    Effect.gen(function*() {
      const stay = yield* completedStay("en", 110)
      const shown = yield* onPage({ viewport: PHONE }, async (page) => {
        await page.goto(stay.url)
        await page.locator("#change-form").waitFor()
        const said = async () => {
          await page.locator("#change-quote").click()
          await page.locator("#change-message p").waitFor()
          await settled(page)
          return { text: await text(page, "#change-message"), focus: await activeId(page) }
        }
        const same = await said()
        await page.locator("#change-checkout").fill(daysFromToday(109))
        const order = await said()
        await page.locator("#change-checkout").fill(daysFromToday(112))
        await page.locator("#change-ages-0").fill("18")
        const age = { ...(await said()), invalid: await page.getAttribute("#change-ages-0", "aria-invalid") }
        await page.locator("#change-ages-0").fill("")
        // what only the API knows: the hotel's today, and how many rooms one reservation may hold
        await page.locator("#change-checkin").fill(daysFromToday(-1))
        const past = { ...(await said()), invalid: await page.getAttribute("#change-checkin", "aria-invalid") }
        await page.locator("#change-checkin").fill(daysFromToday(110))
        await page.locator("#change-quantity-0").fill(String(demoHotel.booking.max_rooms_per_reservation + 1))
        const group = await said()
        return { same, order, age, past, group, result: await page.locator("#change-confirm").count() }
      })
      expect(shown).toEqual({
        same: { text: ui("en", "changeNothing"), focus: "change-quote" },
        order: { text: ui("en", "changeDatesOrder"), focus: "change-checkout" },
        age: { text: ui("en", "checkFields").replace("{list}", ui("en", "childrenAges")), focus: "change-ages-0", invalid: "true" },
        past: { text: ui("en", "change_invalid_dates"), focus: "change-checkin", invalid: "true" },
        group: { text: ui("en", "refused_change_stay_group_booking"), focus: "change-message" },
        result: 0
      })
    }))
})

// the online limit of room-nights from one address: the completion takes 2 of 3, the change 2 more
layerWithChromium(mailingTestApp({ bookingLimitPerHour: 0, roomNightsPerAddressPerDay: 3, mailLimitPerRecipientPerDay: 0 }), { timeout: 60_000 })("manage page, over the online limits", (it) => {
  it.effect("a stay change refused by the online limits (429) says so in the guest's words, with the wait and whom to ask; nothing changed", () =>
    Effect.gen(function*() {
      const stay = yield* completedStay("fr", 110)
      const shown = yield* onPage({ viewport: PHONE, locale: "fr-FR" }, async (page) => {
        await page.goto(stay.url)
        await page.locator("#change-form").waitFor()
        const statuses: Array<number> = []
        page.on("response", (r) => r.url().endsWith("/v1/reservation-manage") && r.request().method() === "POST" && statuses.push(r.status()))
        await page.locator("#change-checkout").fill(daysFromToday(114))
        await page.locator("#change-quote").click()
        await page.locator("#change-confirm").click()
        await page.locator("#change-message p").waitFor()
        await settled(page)
        return { statuses, said: await text(page, "#change-message"), focus: await activeId(page), axe: await axeViolations(page) }
      })
      expect(shown.statuses).toEqual([200, 429])
      expect(shown.said).toMatch(new RegExp(`^${ui("fr", "tooManyChanges", "other").split("{n}")[0]}\\d+`))
      expect(shown.focus).toBe("change-message")
      expect(shown.axe).toEqual([])
      const after = yield* get("/v1/reservation-manage", { "x-reservation-token": stay.token })
      expect(after.body.stay.checkout).toBe(daysFromToday(112))
    }), 60_000)
})
