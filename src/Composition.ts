import * as NodeServices from "@effect/platform-node/NodeServices"
import { Layer } from "effect"
import { DatabaseLive } from "./Layers/Persistence/Database.js"
import { MigrationsLive } from "./Layers/Persistence/Migrations.js"
import { liveRepositories, mergeRepositories } from "./Layers/Persistence/Repositories.js"
import { AppConfig } from "./Layers/Platform/AppConfig.js"
import { AppSecret } from "./Layers/Platform/AppSecret.js"
import { TracingLive, untracedWithoutCollector } from "./Layers/Platform/Tracing.js"
import { Channel } from "./Services/Channel.js"
import { Documents } from "./Services/Documents.js"
import { DatabaseOutage } from "./Services/DatabaseOutage.js"
import { Health } from "./Services/Health.js"
import { HotelCatalog } from "./Services/HotelCatalog.js"
import { Housekeeping } from "./Services/Housekeeping.js"
import { Idempotency } from "./Services/Idempotency.js"
import { Inventory } from "./Services/Inventory.js"
import { Mailer } from "./Services/Mailer.js"
import { MetricGauges } from "./Services/MetricGauges.js"
import { OutboxWorker } from "./Services/OutboxWorker.js"
import { Pms } from "./Services/Pms.js"
import { PriceCalendar } from "./Services/PriceCalendar.js"
import { PromoCodes } from "./Services/PromoCodes.js"
import { Quotes } from "./Services/Quotes.js"
import { RateLimiter } from "./Services/RateLimiter.js"
import { ReservationFeed } from "./Services/ReservationFeed.js"
import { ReservationManagement } from "./Services/ReservationManagement.js"
import { Reservations } from "./Services/Reservations.js"
import { Tokens } from "./Services/Tokens.js"

/**
 * Every service the requests use. Each `layer` brings the services it is built on, built once
 * however many layers bring them; the infrastructure under them (repositories, database ping,
 * config, secret) is provided by the live composition below or by the in-memory one of the tests.
 */
export const Services = Layer.mergeAll(
  HotelCatalog.layer,
  Inventory.layer,
  Channel.layer,
  Quotes.layer,
  PriceCalendar.layer,
  PromoCodes.layer,
  Reservations.layer,
  ReservationManagement.layer,
  ReservationFeed.layer,
  Tokens.layer,
  Idempotency.layer,
  Documents.layer,
  Health.layer,
  MetricGauges.layer,
  DatabaseOutage.layer,
  RateLimiter.layer
)

/** The repositories (`liveRepositories`, the one list) on the SQL client provided, after the schema is brought up to date. */
export const Repositories = mergeRepositories(liveRepositories).pipe(Layer.provideMerge(MigrationsLive))

/** The repositories on `DATABASE_URL`, or the embedded database. */
export const RepositoriesLive = Repositories.pipe(Layer.provideMerge(DatabaseLive))

/** What runs beside the requests for the life of the service: the outbox worker and the housekeeping sweep. */
const BackgroundLive = Layer.merge(OutboxWorker.layer, Housekeeping.periodic.pipe(Layer.provide(Housekeeping.layer)))

/**
 * Every service on its live infrastructure, which it exposes too (the API's own services, such as
 * the discovery documents, are built on it), with the work beside the requests.
 */
export const ServicesLive = untracedWithoutCollector(BackgroundLive.pipe(
  // the work beside the requests uses the services too, built once for both
  Layer.provideMerge(Services),
  Layer.provide(Layer.mergeAll(Mailer.layer, Pms.layer)),
  // the secret is checked against the migrated database's fingerprint
  Layer.provideMerge(AppSecret.layer.pipe(Layer.provideMerge(RepositoriesLive))),
  Layer.provideMerge(TracingLive)
)).pipe(
  Layer.provideMerge(AppConfig.layer),
  Layer.provideMerge(NodeServices.layer)
)
