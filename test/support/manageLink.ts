import { Effect, Option } from "effect"
import type { ReservationId } from "../../src/Domain/Ids.js"
import { AppConfig } from "../../src/Services/AppConfig.js"
import { Tokens } from "../../src/Services/Tokens.js"

/**
 * The manage link the confirmation email gives the guest: `PUBLIC_BASE_URL/manage#token=…`.
 *
 * The one place tests get it. Today it is built as the confirmation email builds it (the email's
 * delivery is on another branch); once the outbox worker delivers to the in-process SMTP server,
 * this reads the link from the email that server received for the reservation.
 */
export const manageLinkOf = (reservationId: ReservationId) =>
  Effect.gen(function*() {
    const { publicBaseUrl } = yield* AppConfig
    const token = yield* (yield* Tokens).reveal(reservationId, "manage")
    if (Option.isNone(token)) return yield* Effect.dieMessage(`reservation ${reservationId} has no manage link`)
    return `${publicBaseUrl}/manage#token=${token.value}`
  })
