import { Schema } from "effect"

export const Language = Schema.Literals(["en", "fr", "ru"]).annotate({
  identifier: "Language",
  description: "Language of the guest pages, emails and documents"
})
export type Language = typeof Language.Type

const Text = Schema.String.check(Schema.isMinLength(1))

/**
 * A text of the hotel file that guests read, by language. English is required: it is what a
 * language without its own text shows, and what the public API shows.
 */
export const LocalizedText = Schema.Struct({
  en: Text.annotate({ description: "English: required, the fallback of every other language" }),
  fr: Schema.optionalKey(Text.annotate({ description: "French; English when absent" })),
  ru: Schema.optionalKey(Text.annotate({ description: "Russian; English when absent" }))
}).annotate({
  identifier: "LocalizedText",
  description: "A guest-facing text by language: en is required; a missing fr or ru falls back to en"
})
export type LocalizedText = typeof LocalizedText.Type

/** The text in `language`, or in English when the hotel file has none in it. */
export const localized = (text: LocalizedText, language: Language): string => text[language] ?? text.en

/**
 * The language a guest's browser asks for first (`Accept-Language`, by its q-values; `fr-CA` is
 * French), among those the pages speak; English when it names none of them.
 */
export const acceptedLanguage = (header: string | undefined): Language => {
  const ranked = (header ?? "").split(",").flatMap((part, index) => {
    const [tag = "", ...parameters] = part.split(";").map((s) => s.trim().toLowerCase())
    const q = parameters.find((p) => p.startsWith("q="))
    const weight = q === undefined ? 1 : Number(q.slice(2))
    const language = tag.split("-")[0]
    return Schema.is(Language)(language) && weight > 0 ? [{ language, weight, index }] : []
  })
  ranked.sort((a, b) => b.weight - a.weight || a.index - b.index)
  return ranked[0]?.language ?? "en"
}

/** A guest page's language: `asked` (its `lang` parameter) when it is one of ours, else the browser's (`acceptedLanguage`). */
export const chooseLanguage = (asked: string | undefined, acceptLanguage: string | undefined): Language =>
  Schema.is(Language)(asked) ? asked : acceptedLanguage(acceptLanguage)
