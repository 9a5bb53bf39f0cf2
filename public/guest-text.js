/* The guest pages' language: which one is shown, and its words, from the service's one catalog
   (/assets/guest-i18n.js, generated from src/Domain/GuestTexts), with their placeholders and
   plural forms chosen as the service chooses them (src/Domain/GuestTexts.ts `say`). */
import { LOCALES, REFUSALS, STRINGS } from "./guest-i18n.js"

// the shell's, which the service chose from the browser's Accept-Language
let lang = document.documentElement.lang in STRINGS ? document.documentElement.lang : "en"

/** Shows `language` from now on, when the pages have its words; answers the language shown. */
export const setLanguage = (language) => {
  if (language in STRINGS) lang = language
  return lang
}
/**
 * Has the words of `language` fetched when the page has not got them: a page is served with its
 * shell's language alone (/assets/<language>/), and a reservation may be in another. Answers once
 * they are here, or could not be had: the page then stays in its language.
 */
export const loadLanguage = (language) =>
  language in STRINGS
    ? Promise.resolve()
    : import(`../${language}/guest-i18n.js`).then((more) => {
      Object.assign(STRINGS, more.STRINGS)
      Object.assign(LOCALES, more.LOCALES)
    }, () => {})

/** The language shown, and the locale dates, times, money and country names are written in. */
export const language = () => lang
export const locale = () => LOCALES[lang]

/** A UI string, with {placeholders} filled and plural forms chosen by the language's rules. */
export const t = (key, vars = {}) => {
  let s = STRINGS[lang][key] ?? key
  if (typeof s === "object") s = s[new Intl.PluralRules(locale()).select(vars.n)] ?? s.other
  return s.replace(/\{(\w+)\}/g, (all, k) => (k in vars ? String(vars[k]) : all))
}
/** A word of a group by its key, e.g. statuses.CANCELLED. */
export const word = (group, key) => (STRINGS[lang][group] || {})[key] ?? key
export const hasText = (key) => key in STRINGS[lang]
/** Why the API refuses `action` (a refused_actions reason code), or null when the catalog has no words for it. */
export const refusal = (action, reason, vars = {}) => {
  const key = (REFUSALS[action] || {})[reason]
  return key ? t(key, vars) : null
}
