import { NodeContext } from "@effect/platform-node"
import { Layer } from "effect"
import { AppConfig } from "../Services/AppConfig.js"
import { Discovery } from "../Services/Discovery.js"
import { Health } from "../Services/Health.js"
import { HotelCatalog } from "../Services/HotelCatalog.js"
import { Inventory } from "../Services/Inventory.js"
import { DatabaseLive } from "./Database.js"
import { HotelRepo } from "./HotelRepo.js"
import { MigrationsLive } from "./Migrations.js"
import { TracingLive } from "./Tracing.js"

/** The database, brought up to date before anything else uses it. */
export const DatabaseReady = MigrationsLive.pipe(
  Layer.provide(HotelRepo.Live),
  Layer.provideMerge(DatabaseLive),
  Layer.provide(NodeContext.layer)
)

/** Every service on its live infrastructure. */
export const ServicesLive = Layer.mergeAll(Discovery.Default, Health.Default, HotelCatalog.Default, Inventory.Default).pipe(
  Layer.provide(DatabaseReady),
  Layer.provideMerge(TracingLive),
  Layer.provideMerge(AppConfig.layer),
  Layer.provideMerge(NodeContext.layer)
)
