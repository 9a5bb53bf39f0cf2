import { Clock, Context, Effect, Layer, Schedule } from "effect"
import { completionAddressCutoff, intentHourStart } from "../Domain/BookingLimits.js"
import { channelMessageIdCutoff, expiredReservationPurgeCutoff, quotePurgeCutoff, unusedQuotePurgeCutoff } from "../Domain/Lifetimes.js"
import { HousekeepingRepo } from "../Layers/Persistence/HousekeepingRepo.js"
import { DatabaseOutage } from "./DatabaseOutage.js"
import * as Tracing from "../Layers/Platform/Tracing.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"

/** Rows per statement: short transactions that never hold many row locks. */
const BATCH = 500

/** Repeats a batch until one changes fewer rows than a batch holds; the total. */
const drain = (batch: Effect.Effect<number>) =>
  Effect.gen(function*() {
    let total = 0
    let last = BATCH
    while (last === BATCH) {
      last = yield* batch
      total += last
    }
    return total
  })

/**
 * What lapses is tidied away: pending reservations whose link expired, later the reservations
 * themselves, old quotes, spent idempotency keys, client addresses the limits no longer count, old
 * channel message ids.
 */
export class Housekeeping extends Context.Service<Housekeeping>()("Housekeeping", {
  make: Effect.gen(function*() {
    const repo = yield* HousekeepingRepo
    const { pendingRetentionDays, quoteRetentionDays } = yield* AppConfig
    return {
      sweep: Tracing.fn("Housekeeping.sweep")(function*() {
        const now = new Date(yield* Clock.currentTimeMillis)
        return {
          expiredIntents: yield* drain(repo.expireLapsedIntents(now, BATCH)),
          deletedExpiredReservations: yield* drain(
            repo.deleteExpiredReservationsBefore(new Date(expiredReservationPurgeCutoff(now.getTime(), pendingRetentionDays)), BATCH)
          ),
          // after the reservations: a quote whose only intent was just deleted goes in this same sweep
          deletedQuotes: yield* drain(
            repo.deleteQuotesExpiredBefore({
              used: new Date(quotePurgeCutoff(now.getTime(), quoteRetentionDays)),
              unused: new Date(unusedQuotePurgeCutoff(now.getTime()))
            }, BATCH)
          ),
          deletedIdempotencyKeys: yield* drain(repo.deleteLapsedIdempotencyKeys(now, BATCH)),
          deletedCompletionAddresses: yield* drain(
            repo.deleteCompletionAddressesBefore(new Date(completionAddressCutoff(now.getTime())), BATCH)
          ),
          // the hours before this one are over: no intent is counted in them again
          deletedIntentCounts: yield* drain(repo.deleteIntentCountsBefore(new Date(intentHourStart(now.getTime())), BATCH)),
          deletedChannelMessages: yield* drain(repo.deleteChannelMessagesBefore(new Date(channelMessageIdCutoff(now.getTime())), BATCH))
        }
      })
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)

  /** A sweep a minute after start, then every 10 minutes, for the life of the service; a failed one is logged and the next one runs. */
  static readonly periodic = Layer.effectDiscard(
    Effect.flatMap(Effect.zip(Housekeeping, DatabaseOutage), ([{ sweep }, outage]) =>
      sweep().pipe(
        Effect.tap((counts) =>
          Object.values(counts).some((n) => n > 0) ? Effect.logInfo("housekeeping", counts) : Effect.void
        ),
        Effect.catchCause((cause) =>
          outage.logUnlessDatabase(cause, Effect.logWarning("housekeeping sweep failed; the next one runs as planned", cause))
        ),
        Effect.repeat(Schedule.spaced("10 minutes")),
        Effect.delay("1 minute"),
        Effect.forkScoped
      ))
  )
}
