import { Layer } from "effect"
import { ChannelMessageRepo } from "./ChannelMessageRepo.js"
import { DatabasePing } from "./Database.js"
import { HotelRepo } from "./HotelRepo.js"
import { HousekeepingRepo } from "./HousekeepingRepo.js"
import { IdempotencyRepo } from "./IdempotencyRepo.js"
import { InventoryRepo } from "./InventoryRepo.js"
import { OutboxRepo } from "./OutboxRepo.js"
import { QuoteRepo } from "./QuoteRepo.js"
import { ReservationFeedRepo } from "./ReservationFeedRepo.js"
import { ReservationRepo } from "./ReservationRepo.js"
import { TokenRepo } from "./TokenRepo.js"
import { Transactions } from "./Transactions.js"

/**
 * The repositories the services stand on, the one list, on PostgreSQL. The tests give each one's
 * in-memory twin under the same name (`RepositoryLayers` makes them give one for each), so a
 * repository added here is added to both.
 */
export const liveRepositories = {
  hotel: HotelRepo.layer,
  inventory: InventoryRepo.layer,
  channelMessages: ChannelMessageRepo.layer,
  quotes: QuoteRepo.layer,
  reservations: ReservationRepo.layer,
  reservationFeed: ReservationFeedRepo.layer,
  tokens: TokenRepo.layer,
  outbox: OutboxRepo.layer,
  housekeeping: HousekeepingRepo.layer,
  idempotency: IdempotencyRepo.layer,
  transactions: Transactions.layer,
  ping: DatabasePing.layer
}
type Live = typeof liveRepositories

/** A layer for each repository of the list (its own, or a twin that provides at least the same service). */
export type RepositoryLayers = { readonly [K in keyof Live]: Layer.Layer<Layer.Success<Live[K]>, any, any> }

/** The repositories of `layers` as one layer: what each provides, needs and may fail with. */
export const mergeRepositories = <L extends RepositoryLayers>(layers: L) =>
  // merged in the list's order; the record's values are typed one by one above, not as a tuple
  Layer.mergeAll(...(Object.values(layers) as [L[keyof Live]]))
