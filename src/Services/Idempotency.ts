import { Clock, Context, Effect, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import { IdempotencyInProgress, IdempotencyKeyReused } from "../Domain/Errors.js"
import { idempotencyKeyExpiresAt } from "../Domain/Lifetimes.js"
import { IdempotencyRepo } from "../Layers/Persistence/IdempotencyRepo.js"
import * as Tracing from "../Layers/Platform/Tracing.js"

/** How long an unfinished first request blocks repeats before a repeat may take over (a crashed instance). */
const LOCK_MS = 30_000

/** Canonical JSON: the same body hashes the same whatever the order of its keys. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : value !== null && typeof value === "object"
    ? `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`
    : JSON.stringify(value)

/** What names a request body: the same body hashes the same whatever the order of its keys. */
export const bodyHash = (body: unknown): string => createHash("sha256").update(canonical(body)).digest("hex")

export interface Outcome<A> {
  readonly response: A
  /** The response is the one given to an earlier request with the same key. */
  readonly replayed: boolean
}

/**
 * `Idempotency-Key` handling: a repeated request with the same key and body gets the first
 * answer again; another body is refused; a repeat while the first runs is told to wait.
 */
export class Idempotency extends Context.Service<Idempotency>()("Idempotency", {
  make: Effect.gen(function*() {
    const repo = yield* IdempotencyRepo
    return {
      /**
       * Runs `create` once per key; its resource id is remembered and every response, the first
       * and the replays, is rendered from it by `render`. A failure forgets the key, so a retry runs again.
       * `create` calls `remember` in the transaction that makes the resource: the key is done exactly
       * when the resource exists, so the database failing between the two cannot leave a made
       * resource whose key a later retry would take over and make again.
       */
      run: Tracing.fn("Idempotency.run")(function*<A, E1, E2, R1, R2>(
        scope: string,
        key: string | undefined,
        body: unknown,
        create: (remember: (resourceId: string) => Effect.Effect<void>) => Effect.Effect<string, E1, R1>,
        render: (resourceId: string) => Effect.Effect<A, E2, R2>
      ) {
        if (key === undefined) return { response: yield* Effect.flatMap(create(() => Effect.void), render), replayed: false } as Outcome<A>
        const requestHash = bodyHash(body)
        const now = yield* Clock.currentTimeMillis
        const held = yield* repo.claim({
          scope,
          key,
          requestHash,
          now: new Date(now),
          lockedUntil: new Date(now + LOCK_MS),
          expiresAt: new Date(idempotencyKeyExpiresAt(now))
        })
        if (Option.isSome(held)) {
          if (held.value.request_hash !== requestHash) {
            return yield* new IdempotencyKeyReused({ message: `Idempotency-Key "${key}" was already used with another request body` })
          }
          if (held.value.state === "in_progress" || held.value.resource_id === null) {
            return yield* new IdempotencyInProgress({
              message: `the first request with Idempotency-Key "${key}" is still being processed: retry in a moment`
            })
          }
          return { response: yield* render(held.value.resource_id), replayed: true } as Outcome<A>
        }
        const resourceId = yield* create((id) => repo.finish(scope, key, id)).pipe(Effect.tapCause(() => repo.release(scope, key)))
        return { response: yield* render(resourceId), replayed: false } as Outcome<A>
      })
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
