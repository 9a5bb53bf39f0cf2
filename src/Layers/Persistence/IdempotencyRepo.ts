import { Context, Effect, Layer, Option, Ref, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import * as Tracing from "../Platform/Tracing.js"

export const IdempotencyRecord = Schema.Struct({
  request_hash: Schema.String,
  state: Schema.Literals(["in_progress", "done"]),
  resource_id: Schema.NullOr(Schema.String)
})
export type IdempotencyRecord = typeof IdempotencyRecord.Type

export interface Claim {
  readonly scope: string
  readonly key: string
  readonly requestHash: string
  /** Now, by the service's clock. */
  readonly now: Date
  /** Until when an unfinished claim blocks others; after it, a repeat of the same request may take over. */
  readonly lockedUntil: Date
  readonly expiresAt: Date
}

/** Idempotency keys: claimed atomically, so two instances on one database never both run a request. */
export class IdempotencyRepo extends Context.Service<IdempotencyRepo, {
  /** Claims the key for this request; none when someone holds it: then the record is answered. */
  readonly claim: (claim: Claim) => Effect.Effect<Option.Option<IdempotencyRecord>>
  readonly finish: (scope: string, key: string, resourceId: string) => Effect.Effect<void>
  /** Frees the key of this claim while it is unfinished; a claim that took it over since is kept. */
  readonly release: (claim: Claim) => Effect.Effect<void>
}>()("IdempotencyRepo") {
  static readonly layer = Layer.effect(
    IdempotencyRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const claimKey = SqlSchema.findAll({
        Request: Schema.Struct({
          scope: Schema.String,
          key: Schema.String,
          request_hash: Schema.String,
          now: Schema.Date,
          locked_until: Schema.Date,
          expires_at: Schema.Date
        }),
        Result: Schema.Struct({ claimed: Schema.Boolean }),
        // a new key, an expired one, or an abandoned claim of the same request is ours
        execute: (r) => sql`
          INSERT INTO idempotency_keys (scope, key, request_hash, state, resource_id, created_at, locked_until, expires_at)
          VALUES (${r.scope}, ${r.key}, ${r.request_hash}, 'in_progress', NULL, ${r.now}, ${r.locked_until}, ${r.expires_at})
          ON CONFLICT (scope, key) DO UPDATE SET
            request_hash = EXCLUDED.request_hash, state = 'in_progress', resource_id = NULL,
            created_at = EXCLUDED.created_at, locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at
          WHERE idempotency_keys.expires_at <= EXCLUDED.created_at
             OR (idempotency_keys.state = 'in_progress' AND idempotency_keys.locked_until <= EXCLUDED.created_at
                 AND idempotency_keys.request_hash = EXCLUDED.request_hash)
          RETURNING true AS claimed`
      })
      const find = SqlSchema.findOneOption({
        Request: Schema.Struct({ scope: Schema.String, key: Schema.String }),
        Result: IdempotencyRecord,
        execute: ({ key, scope }) =>
          sql`SELECT request_hash, state, resource_id FROM idempotency_keys WHERE scope = ${scope} AND key = ${key}`
      })
      const claim = (request: Claim): Effect.Effect<Option.Option<IdempotencyRecord>> =>
        claimKey({
          scope: request.scope,
          key: request.key,
          request_hash: request.requestHash,
          now: request.now,
          locked_until: request.lockedUntil,
          expires_at: request.expiresAt
        }).pipe(
          Effect.flatMap((rows) =>
            rows.length > 0
              ? Effect.succeed(Option.none<IdempotencyRecord>())
              : find({ scope: request.scope, key: request.key }).pipe(
                // released between the two statements: try again
                Effect.flatMap(Option.match({ onNone: () => claim(request), onSome: (held) => Effect.succeed(Option.some(held)) }))
              )
          ),
          Effect.orDie,
          Tracing.withSpan("IdempotencyRepo.claim")
        )
      return {
        claim,
        finish: (scope, key, resourceId) =>
          sql`UPDATE idempotency_keys SET state = 'done', resource_id = ${resourceId} WHERE scope = ${scope} AND key = ${key}`.pipe(
            Effect.asVoid,
            Effect.orDie,
            Tracing.withSpan("IdempotencyRepo.finish")
          ),
        // a claim is told from the one that took it over by its lease's end, which each sets anew
        release: ({ key, lockedUntil, scope }) =>
          sql`
            DELETE FROM idempotency_keys
            WHERE scope = ${scope} AND key = ${key} AND state = 'in_progress' AND locked_until = ${lockedUntil}`.pipe(
            Effect.asVoid,
            Effect.orDie,
            Tracing.withSpan("IdempotencyRepo.release")
          )
      }
    })
  )

  static readonly InMemory = Layer.effect(
    IdempotencyRepo,
    Effect.map(
      Ref.make(new Map<string, IdempotencyRecord & { readonly lockedUntil: number; readonly expiresAt: number }>()),
      (records) => ({
        claim: (claim) =>
          Ref.modify(records, (all) => {
            const id = `${claim.scope} ${claim.key}`
            const held = all.get(id)
            const now = claim.now.getTime()
            const free = held === undefined || held.expiresAt <= now ||
              (held.state === "in_progress" && held.lockedUntil <= now && held.request_hash === claim.requestHash)
            // the record alone, as the SQL answers it
            if (!free) {
              return [Option.some({ request_hash: held.request_hash, state: held.state, resource_id: held.resource_id }), all] as const
            }
            const record = {
              request_hash: claim.requestHash,
              state: "in_progress" as const,
              resource_id: null,
              lockedUntil: claim.lockedUntil.getTime(),
              expiresAt: claim.expiresAt.getTime()
            }
            return [Option.none(), new Map(all).set(id, record)] as const
          }),
        finish: (scope, key, resourceId) =>
          Ref.update(records, (all) => {
            const held = all.get(`${scope} ${key}`)
            return held === undefined ? all : new Map(all).set(`${scope} ${key}`, { ...held, state: "done", resource_id: resourceId })
          }),
        release: ({ key, lockedUntil, scope }) =>
          Ref.update(records, (all) => {
            const next = new Map(all)
            const held = next.get(`${scope} ${key}`)
            if (held?.state === "in_progress" && held.lockedUntil === lockedUntil.getTime()) next.delete(`${scope} ${key}`)
            return next
          })
      })
    )
  )
}
