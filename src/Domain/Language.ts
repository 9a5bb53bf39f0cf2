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

const LANGUAGES: ReadonlyArray<string> = Language.literals

/**
 * A guest page's language: `asked` (its `lang` parameter) when it is one of ours, else the first of
 * the browser's `Accept-Language` that is (by its q order, `fr-CA` counting as `fr`), else English.
 */
export const chooseLanguage = (asked: string | undefined, acceptLanguage: string | undefined): Language => {
  if (asked !== undefined && LANGUAGES.includes(asked)) return asked as Language
  const ranked = (acceptLanguage ?? "").split(",").map((part, index) => {
    const [tag = "", ...params] = part.trim().split(";")
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((value) => value !== undefined)
    return { language: tag.trim().slice(0, 2).toLowerCase(), q: q === undefined ? 1 : Number(q), index }
  }).filter(({ q }) => q > 0).sort((a, b) => b.q - a.q || a.index - b.index)
  return (ranked.find(({ language }) => LANGUAGES.includes(language))?.language ?? "en") as Language
}
