import { type AriMessage, MAX_AS_OF_AHEAD_MS } from "./Message.js"

/* What a figure of the hotel's knows of this service's reservation changes. */

/**
 * What the hotel's figure counts of this service's reservation changes (docs/decisions.md#what-may-be-sold, amended
 * 2026-11-28): the changes up to the feed cursor `through`, and those whose PMS push was
 * acknowledged at or before `ackedBy` (epoch ms). A change neither covers is unknown to the hotel:
 * the rooms it took are held back from the figure until a later message counts them.
 */
export interface Knowledge {
  readonly through: bigint | null
  readonly ackedBy: number | null
}

/** A reservation change as the feed keeps it: its cursor, and when the hotel acknowledged its PMS push. */
export interface KnowableChange {
  readonly seq: bigint
  readonly acked_at: number | null
}

/** Whether a figure of this knowledge counts the change. */
export const knows = (knowledge: Knowledge, change: KnowableChange): boolean =>
  (knowledge.through !== null && change.seq <= knowledge.through) ||
  (knowledge.ackedBy !== null && change.acked_at !== null && change.acked_at <= knowledge.ackedBy)

/**
 * What a message's figures count. With `reservations_through`, exactly the changes up to it. Without,
 * the changes that an earlier message's cursor covered (`watermark`: the hotel's system that counted
 * them once still counts them), and those whose push was acknowledged before the figure was
 * computed. When it was computed is known only from the hotel's clock, trusted to be at most
 * `MAX_AS_OF_AHEAD_MS` ahead (further is refused): a push counts when acknowledged that long before
 * min(as_of, arrival), so a clock ahead, or a message slow to arrive, never makes a booking known early.
 */
export const knowledgeOf = (message: AriMessage, arrivedAt: number, watermark: bigint | null): Knowledge =>
  message.reservations_through === undefined
    ? { through: watermark, ackedBy: Math.min(Date.parse(message.as_of), arrivedAt) - MAX_AS_OF_AHEAD_MS }
    : { through: BigInt(message.reservations_through), ackedBy: null }

/** Names a knowledge, so that the nights whose figures share one read what they know once. */
export const knowledgeKey = (knowledge: Knowledge): string => `${knowledge.through}/${knowledge.ackedBy}`
