import { Redacted } from "effect"
import type { HttpServerRequest } from "effect/http"
import { createHash, timingSafeEqual } from "node:crypto"
import { InvalidToken } from "../../Domain/Errors.js"
import { clientAddress } from "./ClientAddress.js"
import { Forbidden, MissingToken } from "./TransportErrors.js"

const BEARER = "Bearer "

/** Digests of equal length whatever was sent: compared in constant time, not even the token's length shows in the time taken. */
const digest = (text: string) => createHash("sha256").update(text).digest()

/** An interface of the hotel's own systems behind a bearer token (the channel's, the metrics'), and how a refusal words it. */
export interface BearerInterface {
  readonly token: Redacted.Redacted
  /** The only client addresses that may call it; empty: any. */
  readonly allowedAddresses: ReadonlyArray<string>
  readonly trustedProxies: ReadonlyArray<string>
  readonly forbidden: string
  readonly missing: string
  readonly invalid: string
}

/**
 * Why a request may not call the interface, if it may not: the caller's address first (outside
 * the allowed addresses, it learns nothing of the token), then the token. `presented` is the
 * token as the framework read it, when it did; otherwise the header's.
 */
export const bearerRefusal = (options: BearerInterface) => {
  const expected = digest(Redacted.value(options.token))
  const allowed = new Set(options.allowedAddresses)
  const addressOf = clientAddress(options.trustedProxies)
  return (request: HttpServerRequest.HttpServerRequest, presented = ""): Forbidden | MissingToken | InvalidToken | undefined => {
    // another scheme (Basic …) is no bearer token, yet a wrong token rather than none
    const value = presented || (request.headers.authorization ?? "").slice(BEARER.length)
    return allowed.size > 0 && !allowed.has(addressOf(request))
      ? new Forbidden({ message: options.forbidden })
      : value === ""
      ? new MissingToken({ message: options.missing })
      : !timingSafeEqual(digest(value), expected)
      ? new InvalidToken({ message: options.invalid })
      : undefined
  }
}
