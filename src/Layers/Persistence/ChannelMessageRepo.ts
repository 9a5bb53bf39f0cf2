import { Context, Effect, Layer, Option, Ref } from "effect"
import { SqlClient } from "effect/sql"
import type { AriAnswer } from "../../Domain/Channel.js"
import * as Tracing from "../Platform/Tracing.js"

/** The channel messages applied, by id: the same id again answers the first answer (DESIGN §12.1). */
export class ChannelMessageRepo extends Context.Service<ChannelMessageRepo, {
  /**
   * Inside a transaction: claims a message id, or answers the answer of the message that holds it.
   * A concurrent claim of the same id waits until this transaction ends: it then finds the answer,
   * or, when this one rolled back (a refused message uses up nothing), claims the id itself.
   */
  readonly claim: (messageId: string, receivedAt: Date) => Effect.Effect<Option.Option<AriAnswer>>
  /** Inside the claiming transaction: the message's answer. */
  readonly answer: (answer: AriAnswer) => Effect.Effect<void>
}>()("ChannelMessageRepo") {
  static readonly layer = Layer.effect(
    ChannelMessageRepo,
    Effect.map(SqlClient.SqlClient, (sql) => ({
      claim: (messageId, receivedAt) =>
        Effect.gen(function*() {
          const claimed = yield* sql`
            INSERT INTO channel_messages (message_id, applied, stale, received_at) VALUES (${messageId}, 0, 0, ${receivedAt})
            ON CONFLICT (message_id) DO NOTHING
            RETURNING message_id`
          if (claimed.length > 0) return Option.none()
          const rows = yield* sql<AriAnswer>`SELECT message_id, applied, stale FROM channel_messages WHERE message_id = ${messageId}`
          return Option.fromNullishOr(rows[0])
        }).pipe(Effect.orDie, Tracing.withSpan("ChannelMessageRepo.claim")),
      answer: ({ applied, message_id, stale }) =>
        sql`UPDATE channel_messages SET applied = ${applied}, stale = ${stale} WHERE message_id = ${message_id}`.pipe(
          Effect.asVoid,
          Effect.orDie,
          Tracing.withSpan("ChannelMessageRepo.answer")
        )
    }))
  )

  /** In memory; the in-memory transactions run one at a time, which is the claim's wait. */
  static readonly InMemory = Layer.effect(
    ChannelMessageRepo,
    Effect.map(Ref.make(new Map<string, AriAnswer>()), (answers) => ({
      claim: (messageId) => Effect.map(Ref.get(answers), (all) => Option.fromNullishOr(all.get(messageId))),
      answer: (answer) => Ref.update(answers, (all) => new Map(all).set(answer.message_id, answer))
    }))
  )
}
