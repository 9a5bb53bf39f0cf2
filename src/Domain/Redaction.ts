/**
 * What may never be written to a log line or a span attribute: a guest's token, email address or
 * phone number. Masked wherever it appears in a text.
 */

const EMAIL = /[^\s@<>"'(),;:]+@[^\s@<>"'(),;:]+\.[A-Za-z]{2,}/g
/** A token in a URL (`#token=…`, `?token=…`) or on its own: 32 or more base64url characters. */
const TOKEN = /(token=)[A-Za-z0-9_-]+|[A-Za-z0-9_-]{32,}/g
/** A phone number: 9 or more digits, grouped by spaces, dots, dashes or parentheses, maybe after `+`. */
const PHONE = /\+?\(?\d[\d\s().-]{7,}\d/g
const digits = (text: string) => text.replace(/\D/g, "").length

export const maskSecrets = (text: string): string =>
  text
    .replace(EMAIL, "[email]")
    .replace(TOKEN, (_, prefix: string | undefined) => `${prefix ?? ""}[token]`)
    .replace(PHONE, (match) => digits(match) >= 9 ? "[phone]" : match)
