import { Layer } from "effect"
import { Discovery } from "../Services/Discovery.js"
import { Health } from "../Services/Health.js"
import { HotelCatalog } from "../Services/HotelCatalog.js"
import { Inventory } from "../Services/Inventory.js"
import { Quotes } from "../Services/Quotes.js"

/**
 * Every service, wired to each other; the infrastructure under them (repositories, database
 * ping, config) is provided by the live composition or by the in-memory one of the tests.
 */
export const ServicesLayer = Layer.mergeAll(Discovery.Default, Health.Default, Inventory.Default, Quotes.Default).pipe(
  Layer.provideMerge(HotelCatalog.Default)
)
