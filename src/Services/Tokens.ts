import { Clock, Context, Effect, Layer, Option, Redacted } from "effect"
import { createHash, createHmac, randomBytes } from "node:crypto"
import { InvalidToken } from "../Domain/Errors.js"
import type { ReservationId } from "../Domain/Ids.js"
import { hasLapsed } from "../Domain/Lifetimes.js"
import { AppSecret } from "../Layers/Platform/AppSecret.js"
import { TokenRepo, type TokenPurpose } from "../Layers/Persistence/TokenRepo.js"
import * as Tracing from "../Layers/Platform/Tracing.js"

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

export interface VerifiedToken {
  readonly reservationId: ReservationId
  /** The token was real but its time is over. */
  readonly expired: boolean
}

/**
 * Secure bearer tokens for the guest and management links: 32 bytes derived from the server
 * secret and a random nonce, base64url. Only a SHA-256 hash and the nonce are stored, so the
 * database never holds a usable token, yet the same link can be given again (idempotent replay).
 */
export class Tokens extends Context.Service<Tokens>()("Tokens", {
  make: Effect.gen(function*() {
    const secret = yield* AppSecret
    const repo = yield* TokenRepo
    const derive = (purpose: TokenPurpose, nonce: string) =>
      createHmac("sha256", Redacted.value(secret)).update(`${purpose}:${nonce}`).digest("base64url")
    return {
      issue: Tracing.fn("Tokens.issue")(function*(reservationId: ReservationId, purpose: TokenPurpose, expiresAt: Date) {
        const nonce = randomBytes(32).toString("base64url")
        const token = derive(purpose, nonce)
        yield* repo.insert({
          token_hash: sha256(token),
          nonce,
          reservation_id: reservationId,
          purpose,
          expires_at: expiresAt.toISOString()
        })
        return token
      }),
      /**
       * The newest token of a purpose for a reservation, derived again from its nonce; only when it
       * matches its stored hash. A token issued under another secret dies loudly: the start refuses
       * a secret other than the database's, so this is a fault, never a link to hand out dead.
       */
      reveal: Tracing.fn("Tokens.reveal")(function*(reservationId: ReservationId, purpose: TokenPurpose) {
        const stored = yield* repo.latest(reservationId, purpose)
        if (Option.isNone(stored)) return Option.none()
        const token = derive(purpose, stored.value.nonce)
        if (sha256(token) !== stored.value.token_hash) {
          return yield* Effect.die(
            new Error(`the ${purpose} token of reservation ${reservationId} was issued with another APP_SECRET than this instance's`)
          )
        }
        return Option.some(token)
      }),
      /** The reservation's links of a purpose stay the same links, working until `expiresAt` now. */
      setExpiry: Tracing.fn("Tokens.setExpiry")(function*(reservationId: ReservationId, purpose: TokenPurpose, expiresAt: Date) {
        yield* repo.setExpiry(reservationId, purpose, expiresAt.toISOString())
      }),
      verify: Tracing.fn("Tokens.verify")(function*(token: string, purpose: TokenPurpose) {
        const stored = yield* repo.findByHash(sha256(token))
        if (Option.isNone(stored) || stored.value.purpose !== purpose) {
          return yield* new InvalidToken({ message: "X-Reservation-Token is not valid for this resource" })
        }
        const verified: VerifiedToken = {
          reservationId: stored.value.reservation_id,
          expired: hasLapsed(stored.value.expires_at, yield* Clock.currentTimeMillis)
        }
        return verified
      })
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
