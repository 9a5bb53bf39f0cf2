import { Context, Effect, Layer, Redacted } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { InvalidToken } from "../../Domain/Errors.js"
import { withResponseHeader } from "../Transport/ResponseHeaders.js"
import { MissingToken, MissingTokenBody } from "../Transport/TransportErrors.js"
import { InvalidTokenBody } from "./Errors.js"

/** The `X-Reservation-Token` presented with the request (its purpose is checked by the service). */
export class PresentedToken extends Context.Service<PresentedToken, string>()("PresentedToken") {}

/** A token is 43 characters (32 bytes, base64url); a longer header value is no token, refused before any work. */
const MAX_TOKEN_LENGTH = 64

/** Responses that carry or answer a secret link must never be cached. */
export const noStore = withResponseHeader("cache-control", "no-store")

/** Endpoints reached with a reservation's secure link. */
export class ReservationTokenAuth extends HttpApiMiddleware.Service<ReservationTokenAuth, { provides: PresentedToken }>()(
  "ReservationTokenAuth",
  {
    error: [MissingTokenBody, InvalidTokenBody],
    security: {
      reservationToken: HttpApiSecurity.apiKey({ in: "header", key: "X-Reservation-Token" }).pipe(
        HttpApiSecurity.annotate(
          OpenApi.Description,
          "The secure token of a reservation link: the guest link's for a pending reservation, the management link's after completion " +
            `(at most ${MAX_TOKEN_LENGTH} characters).`
        )
      )
    }
  }
) {}

export const ReservationTokenAuthLive = Layer.succeed(ReservationTokenAuth, {
  reservationToken: (handler, { credential }) => {
    const value = Redacted.value(credential).trim()
    const presented: Effect.Effect<string, MissingToken | InvalidToken> = value === ""
      ? Effect.fail(new MissingToken({ message: "the X-Reservation-Token header is required" }))
      : value.length > MAX_TOKEN_LENGTH
      ? Effect.fail(new InvalidToken({ message: `X-Reservation-Token is at most ${MAX_TOKEN_LENGTH} characters` }))
      : Effect.succeed(value)
    return noStore.pipe(
      Effect.andThen(presented),
      Effect.flatMap((token) => Effect.provideService(handler, PresentedToken, token))
    )
  }
})
