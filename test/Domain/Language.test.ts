import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { acceptedLanguage, localized, LocalizedText } from "../../src/Domain/Language.js"

const decode = Schema.decodeUnknownResult(LocalizedText)

describe("localized texts", () => {
  it("a language with no text falls back to English", () => {
    const text = { en: "Double Room", ru: "Номер с двуспальной кроватью" }
    expect(localized(text, "en")).toBe("Double Room")
    expect(localized(text, "ru")).toBe("Номер с двуспальной кроватью")
    expect(localized(text, "fr")).toBe("Double Room")
  })

  it("the schema requires a non-empty English text; the other languages are optional", () => {
    expect(Result.isSuccess(decode({ en: "Twin Room" }))).toBe(true)
    expect(Result.isSuccess(decode({ en: "Twin Room", fr: "Chambre Twin", ru: "Номер твин" }))).toBe(true)
    expect(Result.isFailure(decode({ fr: "Chambre Twin", ru: "Номер твин" }))).toBe(true)
    expect(Result.isFailure(decode({ en: "", fr: "Chambre Twin" }))).toBe(true)
    expect(Result.isFailure(decode({ en: "Twin Room", fr: "" }))).toBe(true)
    expect(Result.isFailure(decode("Twin Room"))).toBe(true)
  })
})

describe("the browser's language (Accept-Language)", () => {
  it("is the first the pages speak by its q-value, in the header's order on a tie; English when none", () => {
    expect(acceptedLanguage(undefined)).toBe("en")
    expect(acceptedLanguage("fr-CA")).toBe("fr")
    expect(acceptedLanguage("en;q=0.3, ru;q=0.8")).toBe("ru")
    expect(acceptedLanguage("RU, fr")).toBe("ru")
    expect(acceptedLanguage("ru;q=0, fr")).toBe("fr")
    expect(acceptedLanguage("*, de")).toBe("en")
  })
})
