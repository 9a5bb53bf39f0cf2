import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, Effect, Layer, Redacted, Schema } from "effect"
import { InvalidToken } from "../../Domain/Errors.js"
import { InvalidTokenBody } from "./Errors.js"
import { withResponseHeader } from "../Transport/ResponseHeaders.js"
import { MissingToken, MissingTokenBody } from "../Transport/TransportErrors.js"

/** The `X-Reservation-Token` presented with the request (its purpose is checked by the service). */
export class PresentedToken extends Context.Tag("PresentedToken")<PresentedToken, string>() {}

/** A token is 43 characters (32 bytes, base64url); a longer header value is no token, refused before any work. */
const MAX_TOKEN_LENGTH = 64

/** Responses that carry or answer a secret link must never be cached. */
export const noStore = withResponseHeader("cache-control", "no-store")

/** Endpoints reached with a reservation's secure link. */
export class ReservationTokenAuth extends HttpApiMiddleware.Tag<ReservationTokenAuth>()("ReservationTokenAuth", {
  failure: Schema.Union(MissingTokenBody, InvalidTokenBody),
  provides: PresentedToken,
  security: {
    reservationToken: HttpApiSecurity.apiKey({ in: "header", key: "X-Reservation-Token" }).pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "The secure token of a reservation link: the guest link's for a pending reservation, the management link's after completion " +
          `(at most ${MAX_TOKEN_LENGTH} characters).`
      )
    )
  }
}) {}

export const ReservationTokenAuthLive = Layer.succeed(ReservationTokenAuth, {
  reservationToken: (token) => {
    const value = Redacted.value(token).trim()
    const presented: Effect.Effect<string, MissingToken | InvalidToken> = value === ""
      ? Effect.fail(new MissingToken({ message: "the X-Reservation-Token header is required" }))
      : value.length > MAX_TOKEN_LENGTH
      ? Effect.fail(new InvalidToken({ message: `X-Reservation-Token is at most ${MAX_TOKEN_LENGTH} characters` }))
      : Effect.succeed(value)
    return Effect.zipRight(noStore, presented)
  }
})
