import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option, Redacted } from "effect"
import type { ReservationId } from "../../src/Domain/Ids.js"
import { AppSecret } from "../../src/Layers/Platform/AppSecret.js"
import { TokenRepo } from "../../src/Layers/Persistence/TokenRepo.js"
import { Tokens } from "../../src/Services/Tokens.js"

const TestTokens = Tokens.layer.pipe(Layer.provideMerge(Layer.merge(TokenRepo.InMemory, AppSecret.InMemory)))
const id = "r_test" as ReservationId
const future = new Date(Date.now() + 3_600_000)

describe("Tokens", () => {
  it.effect("a token is 32 random bytes in base64url, stored only as a hash, and verifies for its purpose only", () =>
    Effect.gen(function*() {
      const tokens = yield* Tokens
      const token = yield* tokens.issue(id, "guest", future)
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(Buffer.from(token, "base64url")).toHaveLength(32)
      expect(yield* tokens.verify(token, "guest")).toEqual({ reservationId: id, expired: false })
      expect((yield* tokens.verify(token, "manage").pipe(Effect.flip))._tag).toBe("InvalidToken")
      expect((yield* tokens.verify(`${token}x`, "guest").pipe(Effect.flip))._tag).toBe("InvalidToken")
      const stored = Option.getOrThrow(yield* (yield* TokenRepo).latest(id, "guest"))
      expect(JSON.stringify(stored)).not.toContain(token)
      expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/)
    }).pipe(Effect.provide(TestTokens)))

  it.effect("the same link can be given again from the stored nonce, but only with the server secret that issued it", () =>
    Effect.gen(function*() {
      const token = yield* Effect.flatMap(Tokens, (t) => t.issue(id, "guest", future))
      expect(Option.getOrThrow(yield* Effect.flatMap(Tokens, (t) => t.reveal(id, "guest")))).toBe(token)
      expect(yield* Effect.flatMap(Tokens, (t) => t.reveal("r_none" as ReservationId, "guest"))).toEqual(Option.none())
      // under another secret the derived token would not match its stored hash: a fault, never a dead link
      const otherSecret = Tokens.layer.pipe(Layer.provide(Layer.succeed(AppSecret, Redacted.make("another-secret"))))
      // built apart (`local`): v4 would otherwise reuse the Tokens memoized by the enclosing provide
      const revealed = yield* Effect.flatMap(Tokens, (t) => t.reveal(id, "guest")).pipe(Effect.provide(otherSecret, { local: true }), Effect.exit)
      expect(Exit.isFailure(revealed) && Cause.hasDies(revealed.cause)).toBe(true)
      expect(String(revealed)).toContain("APP_SECRET")
    }).pipe(Effect.provide(TestTokens)))

  it.live("a token past its expiry verifies as expired", () =>
    Effect.gen(function*() {
      const tokens = yield* Tokens
      const token = yield* tokens.issue(id, "manage", new Date(Date.now() - 1000))
      expect(yield* tokens.verify(token, "manage")).toEqual({ reservationId: id, expired: true })
    }).pipe(Effect.provide(TestTokens)))
})
