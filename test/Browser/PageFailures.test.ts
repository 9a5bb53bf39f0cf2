import { expect } from "@effect/vitest"
import { Effect } from "effect"
import type { Page, Route } from "playwright-core"
import { GUEST_PAGE_LIMITS } from "../../src/Api/Handlers/GuestPageModule.js"
import { defaultConnectionLimits } from "../../src/Layers/Platform/AppConfig.js"
import type { ReservationId } from "../../src/Domain/Ids.js"
import type { Language } from "../../src/Domain/Language.js"
import { axeViolations, layerWithChromium, onPage, onTestServer, PHONE } from "../support/browser.js"
import { daysFromToday } from "../support/clock.js"
import { completeWith, pendingReservation } from "../support/flow.js"
import { mailingTestApp } from "../support/MailingTestApp.js"
import { manageLinkOf } from "../support/manageLink.js"
import { ui } from "../support/wording.js"

/*
 * docs/decisions.md#pages-never-wait: a guest page whose script, style or API call is refused or does not answer
 * says so in the guest's language, with a Try again that fetches only what failed; never a
 * "Loading…" for ever, never what the guest typed lost. Refusals are made in the browser
 * (Playwright's routes), as a connection cap or a network would make them.
 */

const LOCALES: Record<Language, string> = { en: "en-GB", fr: "fr-FR", ru: "ru-RU" }

/** A pending reservation in `language`, `days` from today: its guest link on the test server. */
const completeLink = (language: Language, days: number) =>
  Effect.gen(function*() {
    const pending = yield* pendingReservation(daysFromToday(days), daysFromToday(days + 2), [{ room_type_id: "double", adults: 2 }], "FLEX", language)
    return yield* onTestServer(pending.intent.continue_url)
  })

/** A completed reservation in `language`, `days` from today: its manage link (from the confirmation email) on the test server. */
const manageLink = (language: Language, days: number) =>
  Effect.gen(function*() {
    const pending = yield* pendingReservation(daysFromToday(days), daysFromToday(days + 2), [{ room_type_id: "double", adults: 2 }], "FLEX", language)
    expect((yield* completeWith(pending.token, pending.total)).status).toBe(200)
    return yield* onTestServer(yield* manageLinkOf(pending.intent.reservation_id as ReservationId))
  })

/** On a phone in the browser's `language`, with nothing cached. */
const onPhone = <A>(language: Language, use: (page: Page) => Promise<A>) =>
  onPage({ viewport: PHONE, locale: LOCALES[language] }, use)

/**
 * Refuses the requests of `pattern` (as `how` answers them) while `refusing()`, and counts them
 * all: the count shows that a Try again asked again for what failed, and for nothing else.
 */
const refuse = async (page: Page, pattern: string, how: (route: Route) => Promise<void>) => {
  const state = { refusing: true, seen: 0 }
  await page.route(pattern, async (route) => {
    state.seen++
    if (state.refusing) return how(route).catch(() => {})
    return route.continue().catch(() => {})
  })
  return state
}
const abort = (route: Route) => route.abort("connectionrefused")
const through = (route: Route) => route.continue()
/** An answer that comes after the page's wait: the page says so meanwhile. */
const late = (route: Route) => new Promise((done) => setTimeout(done, GUEST_PAGE_LIMITS.waitMs + 3_000)).then(() => route.continue())

const text = async (page: Page, selector: string) => ((await page.locator(selector).textContent()) ?? "").trim()
const noHorizontalScroll = (page: Page) => page.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth")
const focusedText = (page: Page) => page.evaluate<string>("document.activeElement ? document.activeElement.textContent.trim() : ''")

/** Tab from the top of the page until the focus is on the button named `name`: how many presses (null: never). */
const tabTo = async (page: Page, name: string) => {
  await page.evaluate("document.activeElement && document.activeElement.blur()")
  for (let presses = 1; presses <= 20; presses++) {
    await page.keyboard.press("Tab")
    if ((await focusedText(page)) === name) return presses
  }
  return null
}

/** What a failure shows in `region`: its words, its button, the focus, axe on it, the page's width. */
const failureShown = async (page: Page, region: string) => {
  await page.locator(`${region} button`).waitFor()
  await page.locator(`${region} p:not(:empty)`).waitFor()
  return {
    role: await page.getAttribute(region, "role"),
    said: await text(page, `${region} p`),
    button: await text(page, `${region} button`),
    lang: await page.getAttribute("html", "lang"),
    status: await text(page, "#status"),
    axe: await axeViolations(page),
    fits: await noHorizontalScroll(page)
  }
}

layerWithChromium(mailingTestApp({ bookingLimitPerHour: 0, roomNightsPerAddressPerDay: 0, mailLimitPerRecipientPerDay: 0 }), { timeout: 90_000 })(
  "a guest page whose script, style or call fails",
  (it) => {
    it.effect("/complete in French: a script refused says so in French before any module runs; Try again, by keyboard, loads only it and shows the form", () =>
      Effect.gen(function*() {
        const url = yield* completeLink("fr", 10)
        const shown = yield* onPhone("fr", async (page) => {
          const form = await refuse(page, "**/assets/*/guest-form.js", abort)
          const summary = await refuse(page, "**/assets/*/guest-summary.js", through)
          await page.goto(url)
          const failed = await failureShown(page, "#page-failure")
          const formShownMeanwhile = await page.locator("#guest-form").count()
          form.refusing = false
          const presses = await tabTo(page, failed.button)
          await page.keyboard.press("Enter")
          await page.locator("#guest-form").waitFor()
          return {
            failed,
            formShownMeanwhile,
            presses,
            after: { failure: await text(page, "#page-failure"), lang: await page.getAttribute("html", "lang"), fits: await noHorizontalScroll(page) },
            formAsked: form.seen,
            summaryAsked: summary.seen
          }
        })
        expect(shown.failed).toEqual({
          role: "alert",
          said: ui("fr", "pageFailed"),
          button: ui("fr", "retry"),
          lang: "fr",
          status: "",
          axe: [],
          fits: true
        })
        expect(shown.formShownMeanwhile).toBe(0)
        expect(shown.presses).not.toBeNull()
        expect(shown.after).toEqual({ failure: "", lang: "fr", fits: true })
        // the refused module asked again (its modulepreload, the first import, the retry); the others not
        expect(shown.formAsked).toBeGreaterThanOrEqual(2)
        expect(shown.summaryAsked).toBe(1)
      }))

    it.effect("/manage in Russian: a script refused says so in Russian; Try again shows the reservation", () =>
      Effect.gen(function*() {
        const url = yield* manageLink("ru", 20)
        const shown = yield* onPhone("ru", async (page) => {
          const change = await refuse(page, "**/assets/*/manage-change.js", abort)
          await page.goto(url)
          const failed = await failureShown(page, "#page-failure")
          change.refusing = false
          await page.locator("#page-failure button").click()
          await page.locator("#reservation-number").waitFor()
          return { failed, number: await text(page, "#reservation-number"), failure: await text(page, "#page-failure") }
        })
        expect(shown.failed).toMatchObject({ said: ui("ru", "pageFailed"), button: ui("ru", "retry"), lang: "ru", axe: [], fits: true })
        expect(shown.number).toMatch(/^[A-Z]{2}-/)
        expect(shown.failure).toBe("")
      }))

    it.effect("/manage in French: no script runs at all (the boot's and the page's refused): the stylesheet alone says so after the wait; the boot's alone refused: the page runs", () =>
      Effect.gen(function*() {
        const url = yield* manageLink("fr", 25)
        const stalled = yield* onPhone("fr", async (page) => {
          await refuse(page, "**/assets/guest-boot.js", abort)
          await refuse(page, "**/assets/*/manage.js", abort)
          await page.goto(url)
          const atOnce = await page.locator("#page-stalled").isVisible()
          await page.locator("#page-stalled").waitFor({ timeout: GUEST_PAGE_LIMITS.waitMs + 5_000 })
          return { atOnce, said: await text(page, "#page-stalled"), axe: await axeViolations(page), fits: await noHorizontalScroll(page) }
        })
        expect(stalled).toEqual({ atOnce: false, said: ui("fr", "pageStalled"), axe: [], fits: true })
        const withoutBoot = yield* onPhone("fr", async (page) => {
          await refuse(page, "**/assets/guest-boot.js", abort)
          await page.goto(url)
          await page.locator("#reservation-number").waitFor()
          return { stalled: await page.locator("#page-stalled").count(), failure: await text(page, "#page-failure") }
        })
        expect(withoutBoot).toEqual({ stalled: 0, failure: "" })
      }), 60_000)

    it.effect("/manage: the page's module answered late says 'taking longer', then runs by itself; a stylesheet refused leaves a readable page that says so", () =>
      Effect.gen(function*() {
        const url = yield* manageLink("en", 30)
        const shown = yield* onPhone("en", async (page) => {
          await refuse(page, "**/assets/*/manage.js", late)
          const css = await refuse(page, "**/assets/guest.css", abort)
          // not until its load event: the page's module, which holds that event back, is the one late
          await page.goto(url, { waitUntil: "commit" })
          const slow = await failureShown(page, "#page-failure")
          // the late module comes and runs: the reservation, still unstyled, and said so
          await page.locator("#reservation-number").waitFor()
          await page.locator("#page-failure p:not(:empty)").waitFor()
          const unstyled = {
            said: await text(page, "#page-failure p"),
            number: await page.locator("#reservation-number").isVisible(),
            // without any style, buttons keep the browser's own size: only the stylesheet can size them
            axe: (await axeViolations(page)).map((v) => v.id).filter((id) => id !== "target-size")
          }
          css.refusing = false
          await page.locator("#page-failure button").click()
          await page.locator("#page-failure:empty").waitFor({ state: "attached" })
          return {
            slow,
            unstyled,
            styled: await page.evaluate<string>("getComputedStyle(document.documentElement).getPropertyValue('--guest-styles').trim()"),
            axe: await axeViolations(page)
          }
        })
        expect(shown.slow).toMatchObject({ said: ui("en", "pageSlow"), button: ui("en", "retry"), axe: [], fits: true })
        expect(shown.unstyled).toEqual({ said: ui("en", "pageFailed"), number: true, axe: [] })
        expect(shown.styled).toBe("1")
        expect(shown.axe).toEqual([])
      }), 60_000)

    it.effect("/complete in French: the reservation's call refused, then answered 503 with Retry-After; Try again asks again for it alone", () =>
      Effect.gen(function*() {
        const url = yield* completeLink("fr", 40)
        const BUSY = ui("fr", "callBusy", "other").replace("{n}", "2")
        const shown = yield* onPhone("fr", async (page) => {
          let answers = [abort, (route: Route) => route.fulfill({ status: 503, headers: { "retry-after": "2" }, json: { error: { code: "unavailable" } } })]
          // a call beyond the two refusals goes through, counted: the count below tells it, where a handler that threw would not
          const reservation = await refuse(page, "**/v1/reservation-public", (route) => (answers.shift() ?? through)(route))
          const hotel = await refuse(page, "**/v1/hotel", through)
          await page.goto(url)
          const refused = await failureShown(page, "#call-failure")
          const focus = await focusedText(page)
          await page.keyboard.press("Enter")
          // a locator, not a script: the page's CSP refuses the eval a polled script predicate needs
          await page.locator("#call-failure").getByText(BUSY, { exact: true }).waitFor()
          const busy = await text(page, "#call-failure p")
          reservation.refusing = false
          answers = []
          await page.locator("#call-failure button").click()
          await page.locator("#guest-form").waitFor()
          return { refused, focus, busy, failure: await text(page, "#call-failure"), reservationAsked: reservation.seen, hotelAsked: hotel.seen }
        })
        expect(shown.refused).toEqual({
          role: "alert",
          said: ui("fr", "callFailed"),
          button: ui("fr", "retry"),
          lang: "fr",
          status: "",
          axe: [],
          fits: true
        })
        // nothing else to act on: the focus is on Try again, and Enter presses it
        expect(shown.focus).toBe(ui("fr", "retry"))
        expect(shown.busy).toBe(BUSY)
        expect(shown.failure).toBe("")
        expect([shown.reservationAsked, shown.hotelAsked]).toEqual([3, 1])
      }))

    it.effect("/manage in Russian: a call that does not answer within the wait is said, and Try again abandons it for a new one", () =>
      Effect.gen(function*() {
        const url = yield* manageLink("ru", 50)
        const shown = yield* onPhone("ru", async (page) => {
          const reservation = await refuse(page, "**/v1/reservation-manage", late)
          await page.goto(url)
          const slow = await failureShown(page, "#call-failure")
          reservation.refusing = false
          await page.locator("#call-failure button").click()
          await page.locator("#reservation-number").waitFor()
          return { slow, failure: await text(page, "#call-failure"), asked: reservation.seen }
        })
        expect(shown.slow).toMatchObject({ said: ui("ru", "callSlow"), button: ui("ru", "retry"), lang: "ru", axe: [], fits: true })
        expect(shown.failure).toBe("")
        expect(shown.asked).toBe(2)
      }))

    it.effect("/complete in French: a submit that fails keeps every field as typed; Try again, by keyboard, sends it and the reservation is confirmed", () =>
      Effect.gen(function*() {
        const url = yield* completeLink("fr", 60)
        const typed = { first_name: "Jeanne", last_name: "Dupont", email: "jeanne.dupont@example.com", phone: "+33 6 12 34 56 78", special_requests: "Chambre calme" }
        const shown = yield* onPhone("fr", async (page) => {
          await page.goto(url)
          await page.locator("#guest-form").waitFor()
          for (const [name, value] of Object.entries(typed)) await page.locator(`[name=${name}]`).fill(value)
          await page.locator("[name=accept_terms]").check()
          const submit = await refuse(page, "**/v1/reservation-complete", abort)
          await page.locator("#submit").click()
          const failed = await failureShown(page, "#form-message")
          const kept = Object.fromEntries(await Promise.all(Object.keys(typed).map(async (name) => [name, await page.locator(`[name=${name}]`).inputValue()])))
          const terms = await page.locator("[name=accept_terms]").isChecked()
          submit.refusing = false
          const focus = await focusedText(page)
          await page.keyboard.press("Enter")
          await page.locator("#reservation-number").waitFor()
          return { failed, kept, terms, focus, number: await text(page, "#reservation-number"), asked: submit.seen }
        })
        expect(shown.failed).toMatchObject({ role: "alert", said: ui("fr", "callFailed"), button: ui("fr", "retry"), axe: [], fits: true })
        expect(shown.kept).toEqual(typed)
        expect(shown.terms).toBe(true)
        expect(shown.focus).toBe(ui("fr", "retry"))
        expect(shown.number).toMatch(/^[A-Z]{2}-/)
        expect(shown.asked).toBe(2)
      }))

    it.effect("/manage: a save that fails keeps the new phone in its field; Try again saves it", () =>
      Effect.gen(function*() {
        const url = yield* manageLink("en", 70)
        const shown = yield* onPhone("en", async (page) => {
          await page.goto(url)
          await page.locator("#edit-form").waitFor()
          await page.locator("#f-phone").fill("+33 7 00 11 22 33")
          const save = await refuse(page, "**/v1/reservation-manage", (route) =>
            route.request().method() === "POST" ? route.fulfill({ status: 502, body: "" }) : route.continue())
          await page.locator("#save").click()
          const failed = await failureShown(page, "#edit-message")
          const kept = await page.locator("#f-phone").inputValue()
          save.refusing = false
          await page.locator("#edit-message button").click()
          await page.locator("#edit-message.notice-ok").waitFor()
          return { failed, kept, phone: await text(page, "#guest-phone"), said: await text(page, "#edit-message") }
        })
        expect(shown.failed).toMatchObject({ said: ui("en", "failed"), button: ui("en", "retry"), axe: [], fits: true })
        expect(shown.kept).toBe("+33 7 00 11 22 33")
        expect(shown.phone).toBe("+33 7 00 11 22 33")
        expect(shown.said).toBe(ui("en", "saved"))
      }))
  }
)

/**
 * The many-guests test's server: production's connection limits. MAX_CONNECTIONS_PER_ADDRESS set for
 * the run changes its cap per address, to tell what the pages do from what that cap refuses.
 */
const perAddress = process.env["MAX_CONNECTIONS_PER_ADDRESS"]
const serverLimits = perAddress === undefined ? {} : { maxConnectionsPerAddress: Number(perAddress) }
/**
 * A browser opens at most 6 connections to a host, and each counts as busy from the moment it is
 * accepted: the most guests that the cap lets load pages at the very same moment. One more can
 * meet it when the browsers are slow to use what they opened (12 on one busy machine held 41
 * connections that had not sent a byte).
 */
const BROWSER_CONNECTIONS_PER_HOST = 6
const GUESTS = Math.floor(defaultConnectionLimits.maxConnectionsPerAddress / BROWSER_CONNECTIONS_PER_HOST)

layerWithChromium(
  mailingTestApp({ bookingLimitPerHour: 0, roomNightsPerAddressPerDay: 0, mailLimitPerRecipientPerDay: 0 }, serverLimits),
  { timeout: 120_000 }
)("guests behind one address (a carrier's NAT, the hotel's Wi-Fi)", (it) => {
  it.effect(`${GUESTS} browsers open /complete and /manage at once: every one shows its reservation, without a Try again`, () =>
    Effect.gen(function*() {
      const links = yield* Effect.forEach(Array.from({ length: GUESTS }, (_, i) => i), (i) =>
        Effect.all({ complete: completeLink("en", 100 + 3 * i), manage: manageLink("en", 150 + 3 * i) }))
      // how fast 20 pages render on the machine is not what this test is about (a busy one takes
      // 20 s): what is, is that no request of theirs failed, and so none shows a Try again
      const patience = { timeout: 90_000 }
      const shown = yield* Effect.forEach(links, (link) =>
        onPhone("en", async (complete) => {
          const manage = await complete.context().newPage()
          const failed: Array<string> = []
          complete.context().on("requestfailed", (request) => failed.push(`${request.url()}: ${request.failure()?.errorText}`))
          await Promise.all([complete.goto(link.complete), manage.goto(link.manage)])
          const [form, number] = await Promise.all([
            complete.locator("#guest-form").waitFor(patience).then(() => true, () => false),
            manage.locator("#reservation-number").waitFor(patience).then(() => true, () => false)
          ])
          const failures = async (page: Page) =>
            (await page.locator("#page-failure, #call-failure, #page-stalled:visible").allTextContents()).join(" ").trim()
          return { form, number, said: `${await failures(complete)} ${await failures(manage)}`.trim(), failed }
        }), { concurrency: "unbounded" })
      expect(shown).toEqual(Array.from({ length: GUESTS }, () => ({ form: true, number: true, said: "", failed: [] })))
    }), 240_000)
})
