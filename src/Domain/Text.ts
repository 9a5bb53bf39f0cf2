import { Schema } from "effect"
import { rule } from "./Documentation.js"

/** A NUL character, or a UTF-16 surrogate without its pair. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Text the service keeps as it was sent. PostgreSQL refuses a NUL character in text and JSON, and
 * an unpaired surrogate has no UTF-8 form (it would be stored as U+FFFD, changed): both are
 * refused here, as a 400 naming the field, before anything is stored or echoed.
 */
export const Text = Schema.String.check(
  rule((text: string) => !UNSTORABLE.test(text), "must not contain a NUL character (\\u0000) or an unpaired surrogate").abort()
)

/**
 * What lets guest text pass for the hotel's (docs/decisions.md#guest-text): control characters (C0, DEL, C1) break
 * or hide lines, line and paragraph separators break them, bidirectional controls reorder what a
 * reader sees (a name that reads "Dupont" while its characters say otherwise).
 */
const DISGUISING = /[\p{Cc}\u2028\u2029\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u
const DISGUISING_ALL = new RegExp(DISGUISING.source, "gu")
/** The only line breaks guest text may hold, and only where it may hold several lines. */
const LINE_BREAK = /\r?\n/

/** Guest text of one line: a name, an email address. */
export const oneLine = <S extends Schema.Top & { readonly Type: string }>(self: S): S["Rebuild"] =>
  self.check(rule((text: string) => !DISGUISING.test(text),
    "must be one line: no control character, line or paragraph separator, or bidirectional control"))

/** Guest text of several lines (special requests): line breaks, but none of the rest of `oneLine`'s characters. */
export const guestLines = <S extends Schema.Top & { readonly Type: string }>(self: S): S["Rebuild"] =>
  self.check(rule((text: string) => text.split(LINE_BREAK).every((line) => !DISGUISING.test(line)),
    "may hold line breaks (\\n or \\r\\n) but no other control character, line or paragraph separator, or bidirectional control"))

/**
 * Guest text as a document shows it: reservations made before the rule above may still hold such
 * characters, each shown as a space, so that the text stays on its line and in its order.
 */
export const asOneLine = (text: string): string => text.replace(DISGUISING_ALL, " ")

/** Several lines of guest text as a document shows them: each as `asOneLine`. */
export const asLines = (text: string): ReadonlyArray<string> => text.split(LINE_BREAK).map(asOneLine)
