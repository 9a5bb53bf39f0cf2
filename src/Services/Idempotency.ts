import { Clock, Context, Effect, Layer, Option, Schedule } from "effect"
import { createHash } from "node:crypto"
import { IdempotencyInProgress, IdempotencyKeyReused } from "../Domain/Errors.js"
import { idempotencyKeyExpiresAt } from "../Domain/Lifetimes.js"
import { type Claim, IdempotencyRepo } from "../Layers/Persistence/IdempotencyRepo.js"
import * as Tracing from "../Layers/Platform/Tracing.js"

/** How long an unfinished first request blocks repeats before a repeat may take over (a crashed instance). */
const LOCK_MS = 30_000

/**
 * A release the database refused (it failed the attempt, and was still gone when the key was to be
 * freed) is tried again this often until it is done, for as long as the lease would hold the key.
 */
const RELEASE_EVERY_MS = 250
const releaseAgain = Schedule.spaced(RELEASE_EVERY_MS).pipe(Schedule.upTo({ times: LOCK_MS / RELEASE_EVERY_MS }))

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
    const background = yield* Effect.scope
    /**
     * The claims of attempts that failed whose key the database could not free then, by scope and
     * key. The key is freed as soon as the database answers again, not when the lease ends (a
     * retry was told 409 `idempotency_in_progress` for up to 13 s after an outage): by a release
     * tried again in the background, for any instance's retry, and first of all by the next request
     * with that key on this instance, which cannot then arrive before it. Each release frees only
     * its own claim, so an attempt of the same key running meanwhile still holds it.
     */
    const unreleased = new Map<string, Claim>()
    const idOf = (scope: string, key: string) => `${scope} ${key}`
    const forget = (claim: Claim) =>
      Effect.sync(() => {
        if (unreleased.get(idOf(claim.scope, claim.key)) === claim) unreleased.delete(idOf(claim.scope, claim.key))
      })
    const releaseNow = (claim: Claim) => Effect.andThen(repo.release(claim), forget(claim))
    const release = (claim: Claim) =>
      releaseNow(claim).pipe(
        Effect.catchCause(() =>
          Effect.sync(() => unreleased.set(idOf(claim.scope, claim.key), claim)).pipe(
            Effect.andThen(
              releaseNow(claim).pipe(
                Effect.sandbox,
                Effect.retry(releaseAgain),
                Effect.ignore,
                // given up when the lease ends: from then on any retry takes the key over anyway
                Effect.ensuring(forget(claim)),
                Effect.forkIn(background)
              )
            )
          )
        )
      )
    return {
      /**
       * Runs `create` once per key; its resource id is remembered and every response, the first
       * and the replays, is rendered from it by `render`. A failure forgets the key, so a retry runs
       * again, the database's own failure too (`unreleased`).
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
        const failed = unreleased.get(idOf(scope, key))
        if (failed !== undefined) yield* releaseNow(failed)
        const now = yield* Clock.currentTimeMillis
        const claim: Claim = {
          scope,
          key,
          requestHash,
          now: new Date(now),
          lockedUntil: new Date(now + LOCK_MS),
          expiresAt: new Date(idempotencyKeyExpiresAt(now))
        }
        const held = yield* repo.claim(claim)
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
        const resourceId = yield* create((id) => repo.finish(scope, key, id)).pipe(Effect.tapCause(() => release(claim)))
        return { response: yield* render(resourceId), replayed: false } as Outcome<A>
      })
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
