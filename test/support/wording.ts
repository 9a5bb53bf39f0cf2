import { GUEST_CATALOG } from "../../src/Domain/GuestTexts.js"
import type { Language } from "../../src/Domain/Language.js"
import { demoHotel } from "./hotel.js"

type Dictionary = Record<Language, Record<string, unknown>>

/** The service's words (the catalog the pages, emails and PDF read). */
const STRINGS = GUEST_CATALOG as unknown as Dictionary

const texts = (value: unknown): ReadonlyArray<string> =>
  typeof value === "string" ? [value] : value !== null && typeof value === "object" ? Object.values(value).flatMap(texts) : []

/** Everything the service and the hotel write to a guest in `language`. */
const written = (language: Language): ReadonlyArray<string> => {
  const pick = (t: { readonly en: string; readonly fr?: string | undefined; readonly ru?: string | undefined }) => t[language] ?? t.en
  return [
    ...texts(STRINGS[language]),
    ...demoHotel.room_types.map((r) => pick(r.name)),
    ...demoHotel.rate_plans.flatMap((p) => [pick(p.name), pick(p.description)]),
    ...Object.values(demoHotel.policies).map(pick),
    demoHotel.terms.text[language]
  ]
}

const words = (text: string) =>
  new Set(
    text
      .replace(/\{\w+\}/g, " ")
      .replace(/\S+@\S+|https?:\/\/\S+|\b[\w-]+\.example\b/g, " ")
      .toLowerCase()
      .match(/\p{L}{3,}/gu) ?? []
  )

/** English words any leftover sentence would have, besides those of the pages' and hotel's texts. */
const COMMON_ENGLISH = "the and your you are with for this that has have been not must please from will can cannot here link booking"

const ENGLISH_ONLY = (() => {
  const english = words([...written("en"), COMMON_ENGLISH].join(" "))
  const others = words([...written("fr"), ...written("ru")].join(" "))
  return new Set([...english].filter((w) => !others.has(w)))
})()

/**
 * The words of `text` that are English and not the language's own: the English of the pages' and
 * the hotel's texts that the French ones lack; in Russian, every Latin word. Names (of the hotel,
 * its address, the guest) are allowed.
 */
export const englishLeftovers = (text: string, language: Exclude<Language, "en">, names: ReadonlyArray<string>) => {
  const allowed = words([demoHotel.name, demoHotel.address.street, demoHotel.address.city, ...names, "PDF"].join(" "))
  return [...words(text)].filter((w) =>
    !allowed.has(w) && (language === "ru" ? /[a-z]/.test(w) : ENGLISH_ONLY.has(w))
  )
}

/** A word of the catalog, e.g. ui("fr", "statuses", "CANCELLED"). */
export const ui = (language: Language, key: string, sub?: string): string => {
  const value = STRINGS[language][key]
  const text = sub !== undefined && value !== null && typeof value === "object" ? (value as Record<string, unknown>)[sub] : value
  if (typeof text !== "string") throw new Error(`no text ${key}${sub ? `.${sub}` : ""} in ${language}`)
  return text
}
