import { Layer } from "effect"
import { Discovery } from "../Services/Discovery.js"
import { Documents } from "../Services/Documents.js"
import { Health } from "../Services/Health.js"
import { HotelCatalog } from "../Services/HotelCatalog.js"
import { Inventory } from "../Services/Inventory.js"
import { Idempotency } from "../Services/Idempotency.js"
import { Quotes } from "../Services/Quotes.js"
import { RateLimiter } from "../Services/RateLimiter.js"
import { ReservationManagement } from "../Services/ReservationManagement.js"
import { Reservations } from "../Services/Reservations.js"
import { Tokens } from "../Services/Tokens.js"

/**
 * Every service, wired to each other; the infrastructure under them (repositories, database
 * ping, config) is provided by the live composition or by the in-memory one of the tests.
 */
export const ServicesLayer = Layer.mergeAll(
  Discovery.Default,
  Health.Default,
  Inventory.Default,
  Reservations.Default,
  ReservationManagement.Default,
  RateLimiter.Default
).pipe(
  Layer.provideMerge(Layer.mergeAll(Quotes.Default, Tokens.Default, Idempotency.Default, Documents.Default)),
  Layer.provideMerge(HotelCatalog.Default)
)
