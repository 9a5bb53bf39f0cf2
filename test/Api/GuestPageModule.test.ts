import { expect, it, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { GUEST_PAGE_LIMITS } from "../../src/Api/Handlers/GuestPageModule.js"
import { FORMATS } from "../../src/Domain/GuestFormats.js"
import { GUEST_CATALOG, REFUSAL_TEXTS } from "../../src/Domain/GuestTexts.js"
import { ChildrenAges } from "../../src/Domain/Quote.js"
import { Phone } from "../../src/Domain/Reservation.js"
import { readFileSync } from "node:fs"
import { escapeHtml } from "../../src/Domain/GuestEmails.js"
import { get } from "../support/flow.js"
import { TestApp } from "../support/TestApp.js"

/** A pattern attribute as a browser compiles it: anchored, with the v flag. */
const asAttribute = (pattern: string) => new RegExp(`^(?:${pattern})$`, "v")

layer(TestApp(), { excludeTestServices: true })("the guest pages' words and limits, from the service", (it) => {
  it.effect("/assets/guest-i18n.js is the catalog, its formats, its refusal texts and the schemas' limits, as a module", () =>
    Effect.gen(function*() {
      const served = yield* get("/assets/guest-i18n.js")
      expect(served.status).toBe(200)
      expect(served.headers["content-type"]).toBe("text/javascript; charset=utf-8")
      const module = yield* Effect.promise(() => import(`data:text/javascript,${encodeURIComponent(served.text)}`))
      expect(module.STRINGS).toEqual(GUEST_CATALOG)
      expect(module.FORMATS).toEqual(FORMATS)
      expect(module.REFUSALS).toEqual(REFUSAL_TEXTS)
      expect(module.LIMITS).toEqual(GUEST_PAGE_LIMITS)
    }))

  it.effect("the shells are served with the catalog's words, none left as a {{key}}", () =>
    Effect.gen(function*() {
      for (const [path, title] of [["/complete", GUEST_CATALOG.en.titleComplete], ["/manage", GUEST_CATALOG.en.titleManage]] as const) {
        const page = yield* get(path)
        expect(page.text).not.toContain("{{")
        expect(page.text).toContain(`<title>${title}</title>`)
        expect(page.text).toContain(`<h1 id="title">${title}</h1>`)
        expect(page.text).toContain(GUEST_CATALOG.en.loading)
      }
    }))

  it.effect("a shell speaks the browser's language (Accept-Language), its words for when the scripts fail included", () =>
    Effect.gen(function*() {
      for (const [header, language] of [["fr-FR,fr;q=0.9,en;q=0.8", "fr"], ["de-DE, ru;q=0.5, fr;q=0.4", "ru"], ["de", "en"]] as const) {
        const page = yield* get("/manage", { "accept-language": header })
        const words = GUEST_CATALOG[language]
        expect(page.headers["vary"]).toContain("Accept-Language")
        expect(page.text).toContain(`<html lang="${language}">`)
        for (const key of ["titleManage", "loading", "pageFailed", "pageSlow", "pageStalled", "retry"] as const) {
          expect(page.text, `${language} ${key}`).toContain(escapeHtml(words[key]))
        }
        // the boot script's wait is the pages' own limit
        expect(page.text).toContain(`data-wait-ms="${GUEST_PAGE_LIMITS.waitMs}"`)
      }
    }))
})

it("the stylesheet's own notice (no script ran) appears after the scripts' wait, LIMITS.waitMs", () => {
  const css = readFileSync(new URL("../../public/guest.css", import.meta.url), "utf8")
  expect(css).toMatch(new RegExp(`\\.stalled \\{[^}]*animation: stalled 0s ${GUEST_PAGE_LIMITS.waitMs / 1000}s`))
})

it("the form's phone pattern takes what the API takes, and refuses what it refuses", () => {
  const pattern = asAttribute(GUEST_PAGE_LIMITS.phonePattern)
  const api = Schema.is(Phone)
  for (const phone of ["+33 4 93 00 12 34", "0493001234", "+1 (555) 010-9999", "+7.495.123.45.67", "12345", "+", "abc 123456", "+33 6 12 34 56 78 90 12 34 56 78"]) {
    expect([phone, pattern.test(phone)]).toEqual([phone, api(phone)])
  }
})

it("the children's ages field takes what a room request takes: up to its number of children, each 0 to the oldest", () => {
  const pattern = asAttribute(GUEST_PAGE_LIMITS.childAgesPattern)
  const api = Schema.is(ChildrenAges)
  for (const ages of ["", "0", "17", "1, 8", " 3 ,4,5 ", "18", "1, 2, 3, 4", "-1", "1.5", "4,, 5"]) {
    const parsed = ages.trim() === "" ? [] : ages.split(",").map((age) => age.trim() === "" ? Number.NaN : Number(age))
    expect([ages, pattern.test(ages)]).toEqual([ages, api(parsed)])
  }
})
