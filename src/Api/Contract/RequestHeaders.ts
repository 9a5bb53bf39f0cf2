import { Schema } from "effect"
import { IDEMPOTENCY_KEY_HOURS } from "../../Domain/Lifetimes.js"
import type { ClientInfo } from "../../Domain/Quote.js"
import { Text } from "../../Domain/Text.js"
import type { UsageDimension } from "../../Domain/Usage.js"

/**
 * The request headers of the public API, declared here beside the endpoints that read them: the
 * domain knows who asks (`ClientInfo`) and an idempotency key, never the headers they arrive in.
 */

/** The optional analytics request headers, as the API declares them (lower-case names). */
export const AnalyticsHeaders = Schema.Struct({
  "x-hotel-client": Schema.optionalKey(Text.check(Schema.isMaxLength(200)).annotate({
    description: "Optional: the calling application, for usage measurement; not a credential"
  })),
  "x-ai-agent": Schema.optionalKey(Text.check(Schema.isMaxLength(200)).annotate({
    description: "Optional: the AI agent acting for a user, for usage measurement; not a credential"
  })),
  "x-hotel-session": Schema.optionalKey(Text.check(Schema.isMaxLength(200)).annotate({
    description: "Optional: the caller's session, for usage measurement; not a credential"
  }))
})
export type AnalyticsHeaders = typeof AnalyticsHeaders.Type

/** Who asks, read off the analytics headers. */
export const clientInfo = (headers: AnalyticsHeaders): ClientInfo => ({
  client: headers["x-hotel-client"] ?? null,
  ai_agent: headers["x-ai-agent"] ?? null,
  session: headers["x-hotel-session"] ?? null
})

/** The header each usage figure is counted by, as a client spells it (the usage report names it). */
export const USAGE_HEADERS: Record<UsageDimension, string> = { client: "X-Hotel-Client", ai_agent: "X-AI-Agent" }

export const IdempotencyKey = Text.check(Schema.isMinLength(1), Schema.isMaxLength(160)).annotate({
  description: `Optional: repeat a request safely. Same key and body within ${IDEMPOTENCY_KEY_HOURS} h: the first answer is replayed ` +
    "(header Idempotent-Replayed: true); same key, other body: 422; while the first is still running: 409."
})

export const IntentHeaders = Schema.Struct({
  ...AnalyticsHeaders.fields,
  "idempotency-key": Schema.optionalKey(IdempotencyKey)
})
