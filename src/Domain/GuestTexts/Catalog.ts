import type { en } from "./en.js"

/** A text's forms by plural category of the language (`other` when the category has none). */
export type PluralForms = Partial<Record<Intl.LDMLPluralRule, string>> & { readonly other: string }

export type TextKey = keyof typeof en
type Entry<T> = T extends string ? string : T extends { readonly other: string } ? PluralForms : { readonly [K in keyof T]: string }
/** Every language has every key of the English catalog, each of the same kind. */
export type Catalog = { readonly [K in TextKey]: Entry<typeof en[K]> }
