/*
 * How long what the service hands out stays valid (a quote, the guest link of a pending
 * reservation, the manage link of a completed one) and how long what lapsed is kept. Instants are
 * epoch milliseconds.
 */

import type { HotelDefinition } from "./Hotel.js"
import { type LocalDate, localInstant } from "./LocalDate.js"

/** An hour and a day in milliseconds, for every window and lifetime the Domain counts. */
export const HOUR_MS = 3_600_000
export const DAY_MS = 24 * HOUR_MS
const daysBefore = (now: number, days: number): number => now - days * DAY_MS

/** Whether something valid until `expiresAt` (an ISO date-time) has lapsed at `now`: at that instant it already has. */
export const hasLapsed = (expiresAt: string, now: number): boolean => Date.parse(expiresAt) <= now

/** The rule as clients and agents are told it. */
export const QUOTE_EXPIRY_RULE = "A quote can be reserved only until its expires_at."

/** A quote can be reserved for `ttlSeconds` (QUOTE_TTL_SECONDS) after it is issued. */
export const quoteExpiresAt = (issuedAt: number, ttlSeconds: number): number => issuedAt + ttlSeconds * 1000

/**
 * A lapsed quote an intent was made from is kept `retentionDays` (QUOTE_RETENTION_DAYS): those that
 * expired before this instant are deleted.
 */
export const quotePurgeCutoff = (now: number, retentionDays: number): number => daysBefore(now, retentionDays)

/**
 * A lapsed quote no intent was made from is kept one day: nothing can be made from it any more, and
 * a client asking for quotes by the thousand would otherwise leave 30 days of them (docs/decisions.md#leftovers).
 */
export const unusedQuotePurgeCutoff = (now: number): number => daysBefore(now, 1)

/**
 * A reservation never completed (EXPIRED) is kept `retentionDays` (PENDING_RETENTION_DAYS) after its
 * guest link lapsed: those whose link lapsed before this instant are deleted, with their tokens.
 */
export const expiredReservationPurgeCutoff = (now: number, retentionDays: number): number => daysBefore(now, retentionDays)

/**
 * A channel message's id answers the first answer for 7 days: a channel manager resends within hours,
 * and a week of ids is a few thousand rows. The ids of messages received before this instant are forgotten.
 */
export const channelMessageIdCutoff = (now: number): number => daysBefore(now, 7)

/** Hours an Idempotency-Key is remembered (the API's descriptions say it): a repeat within them answers the first answer. */
export const IDEMPOTENCY_KEY_HOURS = 24

export const idempotencyKeyExpiresAt = (firstUsedAt: number): number => firstUsedAt + IDEMPOTENCY_KEY_HOURS * HOUR_MS

/** Hours a guest link works (the guest pages say it). */
export const GUEST_LINK_HOURS = 24

/** A guest link works `GUEST_LINK_HOURS`, and never past check-in. */
export const guestLinkExpiresAt = (issuedAt: number, checkIn: number): number =>
  Math.min(issuedAt + GUEST_LINK_HOURS * HOUR_MS, checkIn)

/** The manage link works until 30 days after check-out. */
export const manageLinkExpiresAt = (checkOut: number): number => checkOut + 30 * DAY_MS

type HotelTimes = Pick<HotelDefinition, "check_in" | "check_out" | "timezone">

/** The guest link of a stay arriving on `checkin`, issued at `issuedAt`: 24 hours, and never past the hotel's check-in time. */
export const guestLinkExpiry = (hotel: HotelTimes, issuedAt: number, checkin: LocalDate): number =>
  guestLinkExpiresAt(issuedAt, localInstant(checkin, hotel.check_in, hotel.timezone).getTime())

/** The manage link of a stay leaving on `checkout`: 30 days after the hotel's check-out time that day. */
export const manageLinkExpiry = (hotel: HotelTimes, checkout: LocalDate): number =>
  manageLinkExpiresAt(localInstant(checkout, hotel.check_out, hotel.timezone).getTime())
