import * as NodeContext from "@effect/platform-node/NodeContext"
import { Layer } from "effect"
import { AppConfig } from "./Platform/AppConfig.js"
import { Deliveries } from "../Services/Deliveries.js"
import { Mailer } from "../Services/Mailer.js"
import { OutboxWorker } from "../Services/OutboxWorker.js"
import { Pms } from "../Services/Pms.js"
import { DatabaseLive, DatabasePing } from "./Persistence/Database.js"
import { Housekeeping } from "../Services/Housekeeping.js"
import { HotelRepo } from "./Persistence/HotelRepo.js"
import { HousekeepingRepo } from "./Persistence/HousekeepingRepo.js"
import { InventoryRepo } from "./Persistence/InventoryRepo.js"
import { MigrationsLive } from "./Persistence/Migrations.js"
import { AppSecret } from "./Platform/AppSecret.js"
import { IdempotencyRepo } from "./Persistence/IdempotencyRepo.js"
import { OutboxRepo } from "./Persistence/OutboxRepo.js"
import { QuoteRepo } from "./Persistence/QuoteRepo.js"
import { ReservationRepo } from "./Persistence/ReservationRepo.js"
import { TokenRepo } from "./Persistence/TokenRepo.js"
import { Transactions } from "./Persistence/Transactions.js"
import { ServicesLayer } from "./Services.js"
import { TracingLive, untracedWithoutCollector } from "./Platform/Tracing.js"

/** The repositories on the SQL client provided, after the schema is brought up to date. */
export const Repositories = Layer.mergeAll(
  HotelRepo.Default,
  InventoryRepo.Default,
  QuoteRepo.Default,
  ReservationRepo.Default,
  TokenRepo.Default,
  OutboxRepo.Default,
  HousekeepingRepo.Default,
  IdempotencyRepo.Default,
  Transactions.Default,
  DatabasePing.Default
).pipe(
  Layer.provideMerge(MigrationsLive)
)

/** The repositories on `DATABASE_URL`, or the embedded database. */
export const RepositoriesLive = Repositories.pipe(Layer.provideMerge(DatabaseLive))

/** The outbox worker on the services, delivering through the mailer and the PMS provided. */
export const withOutboxWorker = <E, R>(worker: Layer.Layer<never, E, R>) =>
  worker.pipe(Layer.provide(Deliveries.Default), Layer.provideMerge(ServicesLayer))

/** What runs beside the requests for the life of the service: the outbox worker and the housekeeping sweep. */
const BackgroundLive = Layer.merge(withOutboxWorker(OutboxWorker.Default), Housekeeping.periodic.pipe(Layer.provide(Housekeeping.Default)))

/** Every service on its live infrastructure, with the work beside the requests. */
export const ServicesLive = untracedWithoutCollector(BackgroundLive.pipe(
  Layer.provide(Layer.mergeAll(Mailer.Default, Pms.Default)),
  // the secret is checked against the migrated database's fingerprint
  Layer.provide(AppSecret.Default.pipe(Layer.provideMerge(RepositoriesLive))),
  Layer.provideMerge(TracingLive)
)).pipe(
  Layer.provideMerge(AppConfig.Default),
  Layer.provideMerge(NodeContext.layer)
)
