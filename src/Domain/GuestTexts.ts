import type { GroupBooking } from "./BookingLimits.js"
import type { Catalog, PluralForms, TextKey } from "./GuestTexts/Catalog.js"
import { en } from "./GuestTexts/en.js"
import { fr } from "./GuestTexts/fr.js"
import { ru } from "./GuestTexts/ru.js"
import type { Language } from "./Language.js"
import { GUEST_LINK_HOURS } from "./Lifetimes.js"
import { INFANT_AGE_LIMIT, MAX_ADULTS_PER_ROOM } from "./Occupancy.js"
import type { RefusalReason, RefusedAction } from "./Reservation.js"

/*
 * The one catalog of what the service writes to guests (`GuestTexts/en.ts`, `fr.ts`, `ru.ts`), read
 * by the confirmation PDF, the emails, the API's labels and, through the module `/assets/guest-i18n.js`
 * generated from it, by the guest pages. How dates, times, money and guests are written is
 * `GuestFormats.ts`.
 */

export type { Catalog, PluralForms, TextKey }


/** The keys whose entry is a sentence or a plural form, as against a group of words (`statuses`). */
export type SentenceKey = { [K in TextKey]: Catalog[K] extends string | PluralForms ? K : never }[TextKey]
type GroupKey = Exclude<TextKey, SentenceKey>

/** The service's rules some texts state (`{hours}` of the guest link…), filled in once for every medium. */
const RULES: Record<string, number> = {
  hours: GUEST_LINK_HOURS,
  adults: MAX_ADULTS_PER_ROOM,
  infantAge: INFANT_AGE_LIMIT
}
const withRules = (template: string): string => template.replace(/\{(\w+)\}/g, (all, name: string) => String(RULES[name] ?? all))
const fillEntry = (entry: unknown): unknown =>
  typeof entry === "string"
    ? withRules(entry)
    : Object.fromEntries(Object.entries(entry as Record<string, string>).map(([k, v]) => [k, withRules(v)]))

/** The catalog of each guest language, its rules filled in. */
export const GUEST_CATALOG: Record<Language, Catalog> = Object.fromEntries(
  Object.entries({ en, fr, ru } as Record<Language, Catalog>).map(([language, catalog]) => [
    language,
    Object.fromEntries(Object.entries(catalog).map(([key, entry]) => [key, fillEntry(entry)]))
  ])
) as Record<Language, Catalog>

/** The locale of each language: a European hotel writes day-month dates and 24-hour times in all three. */
export const LOCALES: Record<Language, string> = { en: "en-GB", fr: "fr-FR", ru: "ru-RU" }

export type TextValues = Readonly<Record<string, string | number>>

/**
 * A text in `language`, its `{placeholders}` filled from `values`; a text with plural forms takes the
 * form of `values.n`. The guest pages apply the same rule to the same catalog (public/guest-text.js).
 */
export const say = (language: Language, key: SentenceKey, values: TextValues = {}): string => {
  const entry: string | PluralForms = GUEST_CATALOG[language][key]
  const template = typeof entry === "string"
    ? entry
    : entry[new Intl.PluralRules(LOCALES[language]).select(Number(values.n))] ?? entry.other
  return template.replace(/\{(\w+)\}/g, (all, name: string) => name in values ? String(values[name]) : all)
}

/** A word of a group, e.g. `word("fr", "statuses", "CANCELLED")`: "Annulée". */
export const word = <G extends GroupKey>(language: Language, group: G, key: keyof Catalog[G]): string =>
  (GUEST_CATALOG[language][group] as Record<PropertyKey, string>)[key]!

/**
 * The actions the API may refuse with a reason (`refused_actions`), and the codes the guest pages
 * explain: the policies' reasons, and a stay change's refusal of a group (a 400's details).
 */
type RefusableAction = RefusedAction["action"]
type RefusalCode = RefusalReason | GroupBooking["reason"]

/**
 * The guest's words for each refusal code: a non-refundable rate is said as the confirmation says
 * it, whatever the action. `{when}` is the deadline.
 */
export const REFUSAL_TEXTS: Record<RefusableAction, Partial<Record<RefusalCode, SentenceKey>>> = {
  cancel: {
    non_refundable: "nonRefundablePolicy",
    deadline_passed: "refused_cancel_deadline_passed"
  },
  change_stay: {
    non_refundable: "nonRefundablePolicy",
    deadline_passed: "refused_change_stay_deadline_passed",
    not_completed: "refused_change_stay_not_completed",
    group_booking: "refused_change_stay_group_booking"
  }
}
