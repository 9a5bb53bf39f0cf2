import { Schema } from "effect"
import { urlCount } from "./Availability.js"
import { withDefault } from "./Documentation.js"
import { FeedCursor } from "./Ids.js"
import { PmsReservation } from "./Pms.js"

/** The most changes one page of the feed answers, and how many without `limit`. */
export const MAX_FEED_LIMIT = 500
export const DEFAULT_FEED_LIMIT = 100

/** What happened to a reservation; a PMS status change is no change of the reservation. */
export const FeedChange = Schema.Literals(["completed", "guest_updated", "stay_changed", "cancelled"])
export type FeedChange = typeof FeedChange.Type


/** `GET /internal/v1/reservations`'s query. */
export const FeedQuery = Schema.Struct({
  after: Schema.optionalKey(FeedCursor).annotateKey({ description: "The last cursor processed; absent: from the first change" }),
  limit: urlCount(1, MAX_FEED_LIMIT).pipe(withDefault(`Changes per page, 1 to ${MAX_FEED_LIMIT} (default ${DEFAULT_FEED_LIMIT})`, () => DEFAULT_FEED_LIMIT))
}).annotate({ identifier: "FeedQuery" })
export type FeedQuery = typeof FeedQuery.Type

export const FeedEntry = Schema.Struct({
  cursor: FeedCursor,
  change: FeedChange,
  changed_at: Schema.String.annotate({ description: "When the change committed, with the hotel's offset" }),
  reservation: PmsReservation.annotateKey({ description: "The reservation after this change, as the PMS push carries it" })
}).annotate({ identifier: "FeedEntry" })
export type FeedEntry = typeof FeedEntry.Type

export const FeedPage = Schema.Struct({
  changes: Schema.Array(FeedEntry),
  next_cursor: Schema.NullOr(FeedCursor).annotate({
    description: "The cursor to ask after next: the last change's, or the after asked with when the page is empty"
  })
}).annotate({ identifier: "FeedPage" })
export type FeedPage = typeof FeedPage.Type
