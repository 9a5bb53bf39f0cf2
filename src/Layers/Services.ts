import { Layer } from "effect"
import { Discovery } from "../Services/Discovery.js"
import { Health } from "../Services/Health.js"
import { HotelCatalog } from "../Services/HotelCatalog.js"
import { Inventory } from "../Services/Inventory.js"
import { Idempotency } from "../Services/Idempotency.js"
import { Quotes } from "../Services/Quotes.js"
import { Reservations } from "../Services/Reservations.js"
import { Tokens } from "../Services/Tokens.js"

/**
 * Every service, wired to each other; the infrastructure under them (repositories, database
 * ping, config) is provided by the live composition or by the in-memory one of the tests.
 */
export const ServicesLayer = Layer.mergeAll(Discovery.Default, Health.Default, Inventory.Default, Reservations.Default).pipe(
  Layer.provideMerge(Layer.mergeAll(Quotes.Default, Tokens.Default, Idempotency.Default)),
  Layer.provideMerge(HotelCatalog.Default)
)
