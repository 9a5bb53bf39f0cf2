import { HttpClientRequest } from "@effect/platform"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import type { Page } from "playwright-core"
import { GUEST_PAGE_CSP } from "../../src/Api/GuestPages.js"
import type { ReservationId } from "../../src/Domain/Ids.js"
import type { Language } from "../../src/Domain/Language.js"
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
import { completeWith, pendingReservation } from "../support/flow.js"
import { demoHotel } from "../support/hotel.js"
import { manageLinkOf } from "../support/manageLink.js"
import { MailingTestApp } from "../support/MailingTestApp.js"
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
      await page.waitForFunction("document.getElementById('status').textContent !== ''")
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

const LANGUAGES: ReadonlyArray<Language> = ["en", "fr", "ru"]
const axeSummary: Record<string, string> = {}

layerWithChromium(MailingTestApp, { timeout: 60_000 })("manage page", (it) => {
  it.effect("is served like /complete: its CSP, no-store, allow-listed scripts", () =>
    Effect.gen(function*() {
      const page = yield* request(HttpClientRequest.get("/manage"))
      expect(page.status).toBe(200)
      expect(page.headers["content-type"]).toBe("text/html; charset=utf-8")
      expect(page.headers["cache-control"]).toBe("no-store")
      expect(page.headers["content-security-policy"]).toBe(GUEST_PAGE_CSP)
      expect(page.text).toContain(`src="/assets/manage.js"`)
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
    60_000
  )

  it.effect("the axe check itself finds what it must: an unlabelled input is a critical violation", () =>
    Effect.gen(function*() {
      const found = yield* onPage({}, async (page) => {
        await page.setContent(`<!doctype html><html lang="en"><title>t</title><main><input type="text"></main></html>`)
        return axeViolations(page)
      })
      expect(serious(found).map((v) => v.id)).toContain("label")
    }))

  it.effect("a non-refundable rate: no cancel button, the reason and whom to ask instead; a wrong phone is named in French", () =>
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
          phone: { said: await text(page, "#edit-message"), invalid: await page.getAttribute("#f-phone", "aria-invalid") }
        }
      })
      expect(shown).toEqual({
        why: ui("fr", "cannotCancelNrf"),
        cancel: 0,
        phone: { said: ui("fr", "checkFields").replace("{list}", ui("fr", "phone")), invalid: "true" }
      })
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
})
