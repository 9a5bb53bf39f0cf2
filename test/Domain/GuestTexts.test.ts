import { describe, expect, it } from "@effect/vitest"
import { GUEST_CATALOG, REFUSAL_TEXTS, say } from "../../src/Domain/GuestTexts.js"
import type { Language } from "../../src/Domain/Language.js"

const LANGUAGES: ReadonlyArray<Language> = ["en", "fr", "ru"]

/** The placeholders of an entry, of every form, e.g. ["n"] or ["date", "time"]. */
const placeholders = (entry: unknown): ReadonlyArray<string> => {
  const texts = typeof entry === "string" ? [entry] : Object.values(entry as Record<string, string>)
  return [...new Set(texts.flatMap((text) => [...text.matchAll(/\{(\w+)\}/g)].map(([, name]) => name!)))].sort()
}

describe("the guest text catalog", () => {
  it.each(["fr", "ru"] as const)("%s has every key of English, each with the same placeholders, no text left empty", (language) => {
    const en = GUEST_CATALOG.en as Record<string, unknown>
    const other = GUEST_CATALOG[language] as Record<string, unknown>
    expect(Object.keys(other)).toEqual(Object.keys(en))
    for (const key of Object.keys(en)) {
      expect([key, placeholders(other[key])]).toEqual([key, placeholders(en[key])])
      expect([key, JSON.stringify(other[key]).includes('""')]).toEqual([key, false])
    }
  })

  it("the service's rules are written into the texts that state them, in every language", () => {
    for (const language of LANGUAGES) {
      expect(GUEST_CATALOG[language].invalidComplete).toContain("24")
      expect(GUEST_CATALOG[language].change_occupancy_exceeded).toMatch(/2.*2/)
      expect(JSON.stringify(GUEST_CATALOG[language])).not.toMatch(/\{(hours|adults|infantAge)\}/)
    }
  })

  it("plural forms are chosen by the language's rules", () => {
    expect([1, 2, 5, 21, 22].map((n) => say("ru", "nights", { n }))).toEqual(["1 ночь", "2 ночи", "5 ночей", "21 ночь", "22 ночи"])
    expect([1, 2].map((n) => say("fr", "roomCountLabel", { n }))).toEqual(["1 chambre", "2 chambres"])
    expect(say("en", "page", { page: 1, pages: 2 })).toBe("Page 1 of 2")
  })

  it("every refusal code the API gives has the guest's words, in every language", () => {
    const codes = { cancel: ["non_refundable", "deadline_passed"], change_stay: ["non_refundable", "deadline_passed", "not_completed", "group_booking"] }
    for (const [action, reasons] of Object.entries(codes)) {
      for (const reason of reasons) {
        const key = REFUSAL_TEXTS[action as keyof typeof REFUSAL_TEXTS][reason as "non_refundable"]
        expect([action, reason, key !== undefined]).toEqual([action, reason, true])
        for (const language of LANGUAGES) expect(say(language, key!, { when: "X" })).not.toMatch(/\{\w+\}/)
      }
    }
    // a non-refundable rate is refused as the confirmation words it
    expect(REFUSAL_TEXTS.cancel.non_refundable).toBe("nonRefundablePolicy")
    expect(REFUSAL_TEXTS.change_stay.non_refundable).toBe("nonRefundablePolicy")
  })
})
