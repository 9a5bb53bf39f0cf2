import { expect } from "@effect/vitest"
import { Effect } from "effect"
import type { BrowserContextOptions, Page } from "playwright-core"
import { GUEST_PAGE_LIMITS } from "../../src/Api/Handlers/GuestPageModule.js"
import type { ReservationId } from "../../src/Domain/Ids.js"
import { axeViolations, baseUrl, layerWithChromium, onPage, onTestServer } from "../support/browser.js"
import { daysFromToday } from "../support/clock.js"
import { completeWith, pendingReservation } from "../support/flow.js"
import { manageLinkOf } from "../support/manageLink.js"
import { mailingTestApp } from "../support/MailingTestApp.js"

/**
 * WCAG 2.2 AA's 200 % (1.4.4, 1.4.10) on the guest's whole journey, both ways a browser zooms: the
 * page zoomed (a 1280 × 800 window at device scale factor 2: 640 CSS px), and the text alone at
 * 200 % in a 1280 px window (the browser's default font size doubled: the pages size in rem).
 */
const ZOOMS: ReadonlyArray<readonly [name: string, options: BrowserContextOptions, textScale: boolean]> = [
  ["page zoom 200 %", { viewport: { width: 640, height: 400 }, deviceScaleFactor: 2 }, false],
  ["text at 200 %", { viewport: { width: 1280, height: 800 } }, true]
]

/** The default font size doubled, as a browser's text-only zoom does (through the CSSOM, which the pages' CSP allows). */
const scaleText = (page: Page) => page.evaluate(`document.documentElement.style.fontSize = "200%"`)

/**
 * What does not fit: the page scrolls sideways, or an element's box reaches past the window's
 * right edge, or its content is cut off by its own box (hidden overflow); the selectors of each.
 */
const misfits = (page: Page) =>
  page.evaluate<{ sideways: boolean; outside: Array<string>; cut: Array<string> }>(`(() => {
    const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\\s+/).join(".") : "")
    const shown = [...document.body.querySelectorAll("*")].filter((e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden")
    const width = document.documentElement.clientWidth
    return {
      sideways: document.documentElement.scrollWidth > width,
      outside: shown.filter((e) => e.getBoundingClientRect().right > width + 1).map(name),
      cut: shown.filter((e) => {
        const style = getComputedStyle(e)
        // the screen readers' words (.sr) are a 1 px box on purpose
        return ["hidden", "clip"].includes(style.overflowX) && e.clientWidth > 1 && e.scrollWidth > e.clientWidth + 1
      }).map(name)
    }
  })()`)

const fits = { sideways: false, outside: [], cut: [] }

let days = 30
/** A stay of its own for each test: the in-memory inventory is shared in a file. */
const nextStay = () => {
  days += 5
  return { checkin: daysFromToday(days), checkout: daysFromToday(days + 2) }
}

layerWithChromium(mailingTestApp({ bookingLimitPerHour: 0, roomNightsPerAddressPerDay: 0, mailLimitPerRecipientPerDay: 0 }))(
  "the guest's pages at 200 %",
  (it) => {
    for (const [zoom, options, textScale] of ZOOMS) {
      it.effect(`/book at ${zoom}: the search, the calendar open and the offers fit, and axe finds nothing`, () =>
        Effect.gen(function*() {
          const base = yield* baseUrl
          const { checkin, checkout } = nextStay()
          const shown = yield* onPage(options, async (page) => {
            await page.goto(`${base}/book?checkin=${checkin}&checkout=${checkout}&rooms=2&adults=2&adults=1&children=&children=4`)
            if (textScale) await scaleText(page)
            await page.locator(".offer").first().waitFor()
            const offers = { fit: await misfits(page), axe: await axeViolations(page) }
            await page.locator("#calendar-open").click()
            await page.locator("#calendar-grid td.day.open, #calendar-grid td.day.closed").first().waitFor()
            const calendar = { fit: await misfits(page), axe: await axeViolations(page) }
            await page.goto(`${base}/book`)
            if (textScale) await scaleText(page)
            await page.locator("#search-form.enhanced").waitFor()
            const search = { fit: await misfits(page), axe: await axeViolations(page) }
            return { search, calendar, offers }
          })
          expect(shown).toEqual({ search: { fit: fits, axe: [] }, calendar: { fit: fits, axe: [] }, offers: { fit: fits, axe: [] } })
        }), 60_000)

      it.effect(`/complete and /manage at ${zoom}: they fit, and axe finds nothing`, () =>
        Effect.gen(function*() {
          const { checkin, checkout } = nextStay()
          const pending = yield* pendingReservation(checkin, checkout, [{ room_type_id: "double", adults: 2 }])
          const later = nextStay()
          const done = yield* pendingReservation(later.checkin, later.checkout, [{ room_type_id: "twin", adults: 1, children_ages: [5] }])
          expect((yield* completeWith(done.token, done.total)).status).toBe(200)
          const completeUrl = yield* onTestServer(pending.intent.continue_url)
          const manageUrl = yield* onTestServer(yield* manageLinkOf(done.intent.reservation_id as ReservationId))
          const shown = yield* onPage(options, async (page) => {
            await page.goto(completeUrl)
            if (textScale) await scaleText(page)
            await page.locator("#guest-form").waitFor()
            const complete = { fit: await misfits(page), axe: await axeViolations(page) }
            await page.goto(manageUrl)
            if (textScale) await scaleText(page)
            await page.locator("#reservation-number").waitFor()
            const manage = { fit: await misfits(page), axe: await axeViolations(page) }
            return { complete, manage }
          })
          expect(shown).toEqual({ complete: { fit: fits, axe: [] }, manage: { fit: fits, axe: [] } })
        }), 60_000)
    }

    it.effect("reduced motion: nothing moves, and the notice of a page whose scripts never ran still comes after the wait", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        const shown = yield* onPage({ reducedMotion: "reduce" }, async (page) => {
          for (const script of ["**/assets/guest-boot.js", "**/assets/en/book.js"]) await page.route(script, (route) => route.abort())
          await page.goto(`${base}/book?lang=en`)
          await page.locator("#page-stalled").waitFor({ timeout: GUEST_PAGE_LIMITS.waitMs + 5_000 })
          const moving = await page.evaluate<Array<string>>(`[...document.querySelectorAll("*")]
            .filter((e) => !e.classList.contains("stalled"))
            .filter((e) => { const s = getComputedStyle(e); return s.transitionDuration.split(",").some((d) => parseFloat(d) > 0) || s.animationName !== "none" })
            .map((e) => e.tagName)`)
          return { moving, stalled: await page.locator("#page-stalled").isVisible() }
        })
        expect(shown).toEqual({ moving: [], stalled: true })
      }))
  }
)
