/* The guest pages' language: which one is shown, and its words (guest-i18n.js) with their
   placeholders and plural forms. */
import { STRINGS } from "./guest-i18n.js"

/** The locale of each language: day-month dates and 24-hour times, as in the emails and the PDF. */
const LOCALES = { en: "en-GB", fr: "fr-FR", ru: "ru-RU" }

const browserLanguage = () =>
  (navigator.languages || [navigator.language || "en"]).map((l) => l.slice(0, 2).toLowerCase()).find((l) => l in STRINGS) || "en"
let lang = browserLanguage()

/** Shows `language` from now on, when the pages have its words; answers the language shown. */
export const setLanguage = (language) => {
  if (language in STRINGS) lang = language
  return lang
}
/** The locale dates, times, money and country names are written in. */
export const locale = () => LOCALES[lang]

/** A UI string, with {placeholders} filled and plural forms chosen by the language's rules. */
export const t = (key, vars = {}) => {
  let s = STRINGS[lang][key] ?? STRINGS.en[key] ?? key
  if (typeof s === "object") s = s[new Intl.PluralRules(locale()).select(vars.n)] ?? s.other
  return s.replace(/\{(\w+)\}/g, (_, k) => String(vars[k]))
}
/** A word of a group by its key, e.g. statuses.CANCELLED. */
export const word = (group, key) => (STRINGS[lang][group] || STRINGS.en[group] || {})[key] ?? key
export const hasText = (key) => key in STRINGS[lang]
