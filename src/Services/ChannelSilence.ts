import { Clock, Context, Effect, Layer, Option, Ref } from "effect"
import { closedWhileSilent, type NightLookup } from "../Domain/Channel/Nights.js"
import { ChannelMessageRepo } from "../Layers/Persistence/ChannelMessageRepo.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"
import * as Tracing from "../Layers/Platform/Tracing.js"

/** What health says of the channel: it spoke within `CHANNEL_STALE_AFTER_MINUTES`, or it fell silent. */
export type ChannelState = "ok" | "stale"

/**
 * How long an instance trusts its reading of the last message's arrival: a message to another
 * instance is seen here this much later at most, and the database is asked once in that time
 * however many quotes, probes and scrapes ask.
 */
const READ_EVERY_MS = 10_000

interface Reading {
  /** The last message's arrival on any instance, or this instance's start when none ever came. */
  readonly lastAt: number
  readonly readAt: number
  /** The silence already logged: one WARN per silence, not per question. */
  readonly warnedFor: number | undefined
}

/**
 * Whether the hotel's system still speaks to the channel interface (docs/decisions.md#operators): with
 * `CHANNEL_TOKEN` set, a channel that sent nothing, a heartbeat included, for
 * `CHANNEL_STALE_AFTER_MINUTES` is silent: its figures may be old. The last arrival is the
 * database's (shared by the instances), read at most every `READ_EVERY_MS`; a message this
 * instance applies is known at once. A silence is logged once, as a WARN, when first seen.
 */
export class ChannelSilence extends Context.Service<ChannelSilence, {
  /** None while the channel interface is off. */
  readonly state: Effect.Effect<Option.Option<ChannelState>>
  /** Seconds since the last message (since this instance started when none came); none while the channel is off. */
  readonly ageSeconds: Effect.Effect<Option.Option<number>>
  /**
   * `nights` as they may be sold now: every night closed (reason `channel_stale`) while the channel
   * is silent and `CHANNEL_STALE_ACTION=stop_selling`; as they are otherwise.
   */
  readonly sellable: (nights: NightLookup) => Effect.Effect<NightLookup>
  /** A message arrived at `at` on this instance. */
  readonly heard: (at: Date) => Effect.Effect<void>
}>()("ChannelSilence") {
  static readonly make = Effect.gen(function*() {
    const { channelStaleAction, channelStaleAfterMinutes, channelToken } = yield* AppConfig
    const messages = yield* ChannelMessageRepo
    const staleAfterMs = channelStaleAfterMinutes * 60_000
    const startedAt = yield* Clock.currentTimeMillis
    const reading = yield* Ref.make<Reading>({ lastAt: startedAt, readAt: Number.NEGATIVE_INFINITY, warnedFor: undefined })

    const current = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const known = yield* Ref.get(reading)
      if (now - known.readAt < READ_EVERY_MS) return { now, lastAt: known.lastAt }
      const stored = yield* messages.lastReceivedAt
      const lastAt = Math.max(known.lastAt, Option.match(stored, { onNone: () => startedAt, onSome: (at) => at.getTime() }))
      yield* Ref.update(reading, (r) => ({ ...r, lastAt: Math.max(r.lastAt, lastAt), readAt: now }))
      return { now, lastAt }
    })

    const state = Tracing.fn("ChannelSilence.state")(function*() {
      const { lastAt, now } = yield* current
      if (now - lastAt < staleAfterMs) return "ok" as const
      const warn = yield* Ref.modify(reading, (r) => [r.warnedFor !== lastAt, { ...r, warnedFor: lastAt }] as const)
      if (warn) {
        yield* Effect.logWarning(
          `channel: no message from the hotel's system for ${channelStaleAfterMinutes} minutes (CHANNEL_STALE_AFTER_MINUTES): ` +
            (channelStaleAction === "stop_selling" ? "nothing more is sold until the next one" : "selling on its last figures")
        ).pipe(Effect.annotateLogs({ "channel.last_message_at": new Date(lastAt).toISOString() }))
      }
      return "stale" as const
    })

    if (Option.isNone(channelToken)) {
      return {
        state: Effect.succeedNone,
        ageSeconds: Effect.succeedNone,
        sellable: Effect.succeed,
        heard: () => Effect.void
      }
    }
    return {
      state: Effect.map(state(), Option.some),
      ageSeconds: Effect.map(current, ({ lastAt, now }) => Option.some(Math.max(0, now - lastAt) / 1000)),
      sellable: channelStaleAction === "stop_selling"
        ? (nights: NightLookup) => Effect.map(state(), (s) => s === "stale" ? closedWhileSilent(nights) : nights)
        : Effect.succeed,
      heard: (at: Date) => Ref.update(reading, (r) => ({ ...r, lastAt: Math.max(r.lastAt, at.getTime()) }))
    }
  })

  static readonly layer = Layer.effect(this, this.make)
}
