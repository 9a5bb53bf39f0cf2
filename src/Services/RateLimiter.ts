import { Clock, Context, Effect, Layer, Option } from "effect"
import * as Tracing from "../Layers/Platform/Tracing.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"

/** Where a client stands in the current window (the IETF RateLimit draft's quota, remaining, reset). */
export interface RateDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Seconds until the window ends and the quota is whole again. */
  readonly resetSeconds: number
  readonly windowSeconds: number
}

const WINDOW_MS = 60_000

/**
 * Cost units per key (a client address, a token) and minute, in this instance's memory: behind a
 * load balancer each instance counts its own share. Windows are aligned on the clock, so all keys
 * roll over together and the whole table is dropped at once: memory stays bounded by one minute
 * of clients.
 */
export class RateLimiter extends Context.Service<RateLimiter, {
  /**
   * A request of `cost` units for every key, allowed if each has that much room; a refused request
   * costs `refusalCost`, 1 unless said (a client that keeps asking stays refused). `None` when
   * limiting is off.
   */
  readonly take: Option.Option<(keys: ReadonlyArray<string>, cost: number, refusalCost?: number) => Effect.Effect<RateDecision>>
}>()("RateLimiter") {
  static readonly perMinute = (limit: number) =>
    Layer.sync(RateLimiter, () => {
      const counts = new Map<string, number>()
      let windowStart = 0
      return {
        take: Option.some((keys: ReadonlyArray<string>, cost: number, refusalCost = 1) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            const start = now - (now % WINDOW_MS)
            if (start !== windowStart) {
              counts.clear()
              windowStart = start
            }
            const used = Math.max(...keys.map((key) => counts.get(key) ?? 0))
            const allowed = used + cost <= limit
            const spent = allowed ? cost : refusalCost
            for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + spent)
            return {
              allowed,
              limit,
              remaining: Math.max(0, limit - used - spent),
              resetSeconds: Math.ceil((start + WINDOW_MS - now) / 1000),
              windowSeconds: WINDOW_MS / 1000
            }
          }).pipe(Tracing.withSpan("RateLimiter.take")))
      }
    })

  static readonly off = Layer.succeed(RateLimiter, { take: Option.none() })

  /** `RATE_LIMIT_PER_MINUTE` units, or no limit when it is 0. */
  static readonly layer = Layer.unwrap(
    Effect.map(AppConfig, ({ rateLimitPerMinute }) => rateLimitPerMinute === 0 ? RateLimiter.off : RateLimiter.perMinute(rateLimitPerMinute))
  )
}
