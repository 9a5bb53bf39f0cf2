import { Context, Effect, Layer, Option, Ref } from "effect"
import { SqlClient } from "effect/sql"
import type { AriAnswer } from "../../Domain/Channel/Message.js"
import * as Tracing from "../Platform/Tracing.js"

/** A message as it is claimed: what names its body, when it was computed and the feed cursor it counts. */
export interface ClaimedMessage {
  readonly message_id: string
  readonly body_hash: string
  readonly as_of: Date
  readonly reservations_through: bigint | null
  readonly received_at: Date
}

/** A message already applied under an id: its answer, and the hash of its body (null: applied before bodies were kept). */
export interface AppliedMessage {
  readonly answer: AriAnswer
  readonly body_hash: string | null
}

/** The channel messages applied, by id: the same id again answers the first answer (docs/decisions.md#channel-interface). */
export class ChannelMessageRepo extends Context.Service<ChannelMessageRepo, {
  /**
   * Inside a transaction: claims a message id, or answers the message that holds it. A concurrent
   * claim of the same id waits until this transaction ends: it then finds the answer, or, when this
   * one rolled back (a refused message uses up nothing), claims the id itself.
   */
  readonly claim: (message: ClaimedMessage) => Effect.Effect<Option.Option<AppliedMessage>>
  /** Inside the claiming transaction: the message's answer. */
  readonly answer: (answer: AriAnswer) => Effect.Effect<void>
  /**
   * The highest `reservations_through` of the messages computed at or before `asOf`: the hotel's
   * system that counted those changes then counts them still.
   */
  readonly watermark: (asOf: Date) => Effect.Effect<bigint | null>
  /** When the last message arrived, on any instance (none: never). */
  readonly lastReceivedAt: Effect.Effect<Option.Option<Date>>
}>()("ChannelMessageRepo") {
  static readonly layer = Layer.effect(
    ChannelMessageRepo,
    Effect.map(SqlClient.SqlClient, (sql) => ({
      claim: (message) =>
        Effect.gen(function*() {
          const claimed = yield* sql`
            INSERT INTO channel_messages (message_id, applied, stale, received_at, body_hash, as_of, reservations_through)
            VALUES (${message.message_id}, 0, 0, ${message.received_at}, ${message.body_hash}, ${message.as_of},
              ${message.reservations_through?.toString() ?? null}::bigint)
            ON CONFLICT (message_id) DO NOTHING
            RETURNING message_id`
          if (claimed.length > 0) return Option.none()
          const rows = yield* sql<AriAnswer & { readonly body_hash: string | null }>`
            SELECT message_id, applied, stale, body_hash FROM channel_messages WHERE message_id = ${message.message_id}`
          return Option.map(Option.fromNullishOr(rows[0]), ({ body_hash, ...answer }) => ({ answer, body_hash }))
        }).pipe(Effect.orDie, Tracing.withSpan("ChannelMessageRepo.claim")),
      answer: ({ applied, message_id, stale }) =>
        sql`UPDATE channel_messages SET applied = ${applied}, stale = ${stale} WHERE message_id = ${message_id}`.pipe(
          Effect.asVoid,
          Effect.orDie,
          Tracing.withSpan("ChannelMessageRepo.answer")
        ),
      watermark: (asOf) =>
        sql<{ readonly through: string }>`
          SELECT reservations_through::text AS through FROM channel_messages
          WHERE reservations_through IS NOT NULL AND as_of <= ${asOf}
          ORDER BY reservations_through DESC LIMIT 1`.pipe(
          Effect.map((rows) => rows.length === 0 ? null : BigInt(rows[0]!.through)),
          Effect.orDie,
          Tracing.withSpan("ChannelMessageRepo.watermark")
        ),
      lastReceivedAt: sql<{ readonly at: string | null }>`SELECT max(received_at) AS at FROM channel_messages`.pipe(
        // the driver gives a timestamptz as its text
        Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]?.at), (at) => new Date(at))),
        Effect.orDie,
        Tracing.withSpan("ChannelMessageRepo.lastReceivedAt")
      )
    }))
  )

  /**
   * In memory; the in-memory transactions run one at a time, which is the claim's wait. A claim is
   * kept once answered: a refused message, never answered, uses up nothing, as its rollback does.
   */
  static readonly InMemory = Layer.effect(
    ChannelMessageRepo,
    Effect.gen(function*() {
      const messages = yield* Ref.make(new Map<string, ClaimedMessage & { readonly answer: AriAnswer }>())
      const claimed = yield* Ref.make<ClaimedMessage | undefined>(undefined)
      return {
        claim: (message) =>
          Effect.flatMap(Ref.get(messages), (all) => {
            const applied = all.get(message.message_id)
            return applied === undefined
              ? Effect.as(Ref.set(claimed, message), Option.none())
              : Effect.succeed(Option.some({ answer: applied.answer, body_hash: applied.body_hash }))
          }),
        answer: (answer) =>
          Effect.flatMap(Ref.get(claimed), (message) =>
            message === undefined
              ? Effect.die(new Error(`message ${answer.message_id} answered without a claim`))
              : Ref.update(messages, (all) => new Map(all).set(answer.message_id, { ...message, answer }))),
        watermark: (asOf) =>
          Effect.map(Ref.get(messages), (all) => {
            let highest: bigint | null = null
            for (const m of all.values()) {
              if (m.reservations_through !== null && m.as_of <= asOf && (highest === null || m.reservations_through > highest)) {
                highest = m.reservations_through
              }
            }
            return highest
          }),
        lastReceivedAt: Effect.map(Ref.get(messages), (all) =>
          Option.fromNullishOr([...all.values()].reduce<Date | undefined>((last, m) => last === undefined || m.received_at > last ? m.received_at : last, undefined)))
      }
    })
  )
}
