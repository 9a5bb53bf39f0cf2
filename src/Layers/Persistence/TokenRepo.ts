import { Context, Effect, Layer, Option, Ref, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { ReservationId } from "../../Domain/Ids.js"
import * as Tracing from "../Platform/Tracing.js"

export const TokenPurpose = Schema.Literals(["guest", "manage"])
export type TokenPurpose = typeof TokenPurpose.Type

export const StoredToken = Schema.Struct({
  token_hash: Schema.String,
  nonce: Schema.String,
  reservation_id: ReservationId,
  purpose: TokenPurpose,
  expires_at: Schema.String
})
export type StoredToken = typeof StoredToken.Type

/** Token hashes and their nonces; never a token itself. */
export class TokenRepo extends Context.Service<TokenRepo, {
  readonly insert: (token: StoredToken) => Effect.Effect<void>
  readonly findByHash: (hash: string) => Effect.Effect<Option.Option<StoredToken>>
  /** The newest token of a purpose issued for a reservation. */
  readonly latest: (reservationId: ReservationId, purpose: TokenPurpose) => Effect.Effect<Option.Option<StoredToken>>
  /** The reservation's tokens of a purpose now expire at `expiresAt` (ISO): the same links, another lifetime. */
  readonly setExpiry: (reservationId: ReservationId, purpose: TokenPurpose, expiresAt: string) => Effect.Effect<void>
}>()("TokenRepo") {
  static readonly layer = Layer.effect(
    TokenRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const insert = SqlSchema.void({
        Request: StoredToken,
        execute: (token) => sql`INSERT INTO reservation_tokens ${sql.insert(token)}`
      })
      const findByHash = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: StoredToken,
        execute: (hash) => sql`
          SELECT token_hash, nonce, reservation_id, purpose, expires_at FROM reservation_tokens WHERE token_hash = ${hash}`
      })
      const latest = SqlSchema.findOneOption({
        Request: Schema.Struct({ reservation_id: ReservationId, purpose: TokenPurpose }),
        Result: StoredToken,
        execute: ({ purpose, reservation_id }) => sql`
          SELECT token_hash, nonce, reservation_id, purpose, expires_at FROM reservation_tokens
          WHERE reservation_id = ${reservation_id} AND purpose = ${purpose}
          ORDER BY created_at DESC LIMIT 1`
      })
      return {
        insert: (token) => insert(token).pipe(Effect.orDie, Tracing.withSpan("TokenRepo.insert")),
        findByHash: (hash) => findByHash(hash).pipe(Effect.orDie, Tracing.withSpan("TokenRepo.findByHash")),
        latest: (reservation_id, purpose) =>
          latest({ reservation_id, purpose }).pipe(Effect.orDie, Tracing.withSpan("TokenRepo.latest")),
        setExpiry: (reservationId, purpose, expiresAt) =>
          sql`
            UPDATE reservation_tokens SET expires_at = ${expiresAt}::timestamptz
            WHERE reservation_id = ${reservationId} AND purpose = ${purpose}`.pipe(
            Effect.asVoid,
            Effect.orDie,
            Tracing.withSpan("TokenRepo.setExpiry")
          )
      }
    })
  )

  static readonly InMemory = Layer.effect(
    TokenRepo,
    Effect.map(Ref.make<ReadonlyArray<StoredToken>>([]), (tokens) => ({
      // the expiry as PostgreSQL answers a timestamptz: an ISO string in UTC
      insert: (token) => Ref.update(tokens, (all) => [...all, { ...token, expires_at: new Date(token.expires_at).toISOString() }]),
      findByHash: (hash) => Effect.map(Ref.get(tokens), (all) => Option.fromNullishOr(all.find((t) => t.token_hash === hash))),
      latest: (reservationId, purpose) =>
        Effect.map(Ref.get(tokens), (all) =>
          Option.fromNullishOr(all.filter((t) => t.reservation_id === reservationId && t.purpose === purpose).at(-1))),
      setExpiry: (reservationId, purpose, expiresAt) =>
        Ref.update(tokens, (all) =>
          all.map((t) =>
            t.reservation_id === reservationId && t.purpose === purpose ? { ...t, expires_at: new Date(expiresAt).toISOString() } : t
          ))
    }))
  )
}
