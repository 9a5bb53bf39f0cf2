import { Schema } from "effect"

/** A NUL character, or a UTF-16 surrogate without its pair. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Text the service keeps as it was sent. PostgreSQL refuses a NUL character in text and JSON, and
 * an unpaired surrogate has no UTF-8 form (it would be stored as U+FFFD, changed): both are
 * refused here, as a 400 naming the field, before anything is stored or echoed.
 */
export const Text = Schema.String.pipe(
  Schema.filter((text) => !UNSTORABLE.test(text), {
    message: () => "must not contain a NUL character (\\u0000) or an unpaired surrogate"
  })
)
