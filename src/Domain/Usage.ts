import { Schema } from "effect"
import { Cents } from "./Money.js"

/** Who a figure is counted for: the calling application (`ClientInfo.client`), or the AI agent (`ClientInfo.ai_agent`). */
export const UsageDimension = Schema.Literals(["client", "ai_agent"])
export type UsageDimension = typeof UsageDimension.Type

/** What stands for the caller's name when the caller gave none. */
export const UNNAMED = "(none)"

/** One day (hotel time) of one caller's name: what its callers did. */
export const UsageRow = Schema.Struct({
  day: Schema.String,
  dimension: UsageDimension,
  /** The name the callers gave, or `(none)`. */
  value: Schema.String,
  quotes: Schema.Int,
  intents: Schema.Int,
  completions: Schema.Int,
  /** What the completed reservations of the day are worth (cancelled ones count 0). */
  revenue: Cents
})
export type UsageRow = typeof UsageRow.Type

/** Completions per quote: none without a quote. */
export const conversion = (row: UsageRow): number | null => row.quotes === 0 ? null : row.completions / row.quotes
