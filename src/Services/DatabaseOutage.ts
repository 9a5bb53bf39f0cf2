import { type Cause, Clock, Context, Effect, Layer, Option, Schedule } from "effect"
import { ServiceUnavailable } from "../Domain/Errors.js"
import { DatabasePing } from "../Layers/Persistence/Database.js"
import { databaseFault, databaseFaultIn } from "../Layers/Persistence/DatabaseFaults.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"
import * as Tracing from "../Layers/Platform/Tracing.js"

const MAX_RETRY_AFTER_SECONDS = 30
const clampRetry = (seconds: number) => Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(seconds)))

/** How often the watch pings a database that is gone. */
const WATCH_EVERY = "250 millis"

/**
 * What the service says when its database fails under a request (docs/decisions.md#database-failures): a 503 with
 * `Retry-After`, never a 500, and one log line per outage, not a stack per request. The first
 * failure of an outage is logged and starts a watch that pings the database (on the ping's own
 * connections) until it answers, then logs the outage's end and length. A passed deadline (a lock
 * held, a statement too slow, no connection free in time) is no outage: the database answers, so
 * it is logged as a warning of one line, and the caller is asked to retry after about as long.
 */
export class DatabaseOutage extends Context.Service<DatabaseOutage>()("DatabaseOutage", {
  make: Effect.gen(function*() {
    const ping = yield* DatabasePing
    const { databaseTimeoutMs } = yield* AppConfig
    const scope = yield* Effect.scope
    let since: number | undefined

    const watch = (started: number) =>
      ping.pipe(
        Effect.retry(Schedule.spaced(WATCH_EVERY)),
        Effect.andThen(Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          since = undefined
          yield* Effect.logInfo(`database available again after ${((now - started) / 1000).toFixed(1)} s`)
        })),
        Tracing.withSpan("DatabaseOutage.watch")
      )

    /** The 503 for a defect or failure that is the database's fault; none for any other (a fault of ours: 500). */
    const unavailable = (error: unknown): Effect.Effect<Option.Option<ServiceUnavailable>> =>
      Option.match(databaseFault(error), {
        onNone: () => Effect.succeedNone,
        onSome: (fault) =>
          Effect.gen(function*() {
            const now = yield* Clock.currentTimeMillis
            if (fault.kind === "deadline") {
              yield* Effect.logWarning(`database deadline of ${databaseTimeoutMs} ms passed: ${fault.reason}`)
              return Option.some(
                new ServiceUnavailable({
                  message: `the database did not answer within ${databaseTimeoutMs} ms: nothing was changed; retry in a moment`,
                  retry_after_seconds: clampRetry(databaseTimeoutMs / 1000)
                })
              )
            }
            if (since === undefined) {
              since = now
              yield* Effect.logError(`database unavailable: ${fault.reason}`)
              yield* Effect.forkIn(watch(now), scope)
            }
            // the longer the outage so far, the longer a client is asked to wait
            const seconds = clampRetry((now - since) / 1000)
            return Option.some(
              new ServiceUnavailable({
                message: `the database is unavailable just now: nothing was changed; retry in ${seconds} s`,
                retry_after_seconds: seconds
              })
            )
          })
      })

    return {
      unavailable,
      /**
       * For a background loop (the outbox worker, housekeeping): logs its failure with `log`, unless
       * it is the database's, said here once per outage; the loop simply tries again later.
       */
      logUnlessDatabase: (cause: Cause.Cause<unknown>, log: Effect.Effect<void>) =>
        Option.match(databaseFaultIn(cause), { onNone: () => log, onSome: (error) => Effect.asVoid(unavailable(error)) })
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
