import { Schema } from "effect"
import type { RoomTypeId } from "../Ids.js"
import { type LocalDate, nightsOf } from "../LocalDate.js"
import type { NightLookup } from "./Nights.js"

/* The restrictions a stay may break, in order of precedence, and their words. */

/** Why a stay cannot be booked in a room type, before counting rooms (docs/decisions.md#restrictions), in order of precedence. */
export const RestrictionReason = Schema.Literals([
  "channel_stale",
  "stop_sell",
  "closed_to_arrival",
  "closed_to_departure",
  "min_stay",
  "max_stay"
])
export type RestrictionReason = typeof RestrictionReason.Type

export interface Restriction {
  readonly reason: RestrictionReason
  /** The bound broken, for `min_stay` and `max_stay`. */
  readonly nights?: number
}

/**
 * The restriction a stay of a room type breaks, the first in order of precedence, or undefined:
 * a silent channel the hotel stops selling on; stop-sell on any night; closed to arrival on the check-in date, to departure on the check-out
 * date; the minimum and maximum stay of the check-in date (arrival-based, as Apaleo and Mews count).
 */
export const stayRestriction = (
  nights: NightLookup,
  roomTypeId: RoomTypeId,
  checkin: LocalDate,
  checkout: LocalDate
): Restriction | undefined => {
  const stayNights = nightsOf(checkin, checkout)
  if (stayNights.some((night) => nights(roomTypeId, night).channel_stale === true)) return { reason: "channel_stale" }
  if (stayNights.some((night) => nights(roomTypeId, night).cells.stop_sell.value === true)) return { reason: "stop_sell" }
  const arrival = nights(roomTypeId, checkin).cells
  if (arrival.closed_to_arrival.value === true) return { reason: "closed_to_arrival" }
  if (nights(roomTypeId, checkout).cells.closed_to_departure.value === true) return { reason: "closed_to_departure" }
  const min = arrival.min_stay.value
  if (min !== null && stayNights.length < min) return { reason: "min_stay", nights: min }
  const max = arrival.max_stay.value
  if (max !== null && stayNights.length > max) return { reason: "max_stay", nights: max }
  return undefined
}

/** The bound a restriction names, as answers carry it: `min_stay` or `max_stay` with its number, else nothing. */
export const restrictionBound = (
  restriction: Restriction | undefined
): { readonly min_stay?: number; readonly max_stay?: number } =>
  restriction?.reason === "min_stay"
    ? { min_stay: restriction.nights! }
    : restriction?.reason === "max_stay"
    ? { max_stay: restriction.nights! }
    : {}

/** A guest's or agent's words for a restriction. */
export const restrictionMessage = (roomTypeId: RoomTypeId, restriction: Restriction): string => {
  switch (restriction.reason) {
    case "channel_stale":
      return `the hotel's system has not confirmed its ${roomTypeId} rooms for a while, and the hotel sells none meanwhile`
    case "stop_sell":
      return `the hotel has closed ${roomTypeId} rooms on a night of this stay`
    case "closed_to_arrival":
      return `the hotel takes no ${roomTypeId} arrivals on the check-in date`
    case "closed_to_departure":
      return `the hotel takes no ${roomTypeId} departures on the check-out date`
    case "min_stay":
      return `a ${roomTypeId} stay arriving on this date is at least ${restriction.nights} nights`
    case "max_stay":
      return `a ${roomTypeId} stay arriving on this date is at most ${restriction.nights} nights`
  }
}
