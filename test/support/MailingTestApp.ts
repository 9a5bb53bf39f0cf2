import * as NodeServices from "@effect/platform-node/NodeServices"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import * as path from "node:path"
import { HttpLive } from "../../src/Api/Transport/Http.js"
import { AppSecret } from "../../src/Layers/Platform/AppSecret.js"
import { Repositories, Services } from "../../src/Composition.js"
import { TracingLive, untracedWithoutCollector } from "../../src/Layers/Platform/Tracing.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { Mailer } from "../../src/Services/Mailer.js"
import { defaultOutboxWorkerOptions } from "../../src/Domain/Outbox.js"
import { OutboxWorker } from "../../src/Services/OutboxWorker.js"
import { Pms } from "../../src/Services/Pms.js"
import { TestDatabase } from "./database.js"
import { type Received, smtpServer } from "./smtp.js"
import { testServer, UNLIMITED } from "./TestApp.js"

/** What the in-process SMTP server of `MailingTestApp` has received. */
export class Inbox extends Context.Service<Inbox, ReadonlyArray<Received>>()("test/Inbox") {}

/** The sender of the emails of the tests that deliver them. */
export const mailFrom = "Hôtel Belle Rive <reservations@belle-rive-nice.example>"

/** The demo hotel's configuration (`config` overriding it), with the platform and the test secret: what the mailing tests run on. */
export const mailingConfig = (config: Partial<typeof AppConfig.Service> = {}) =>
  Layer.mergeAll(
    AppConfig.InMemory({ hotelFile: path.resolve("data/hotel.json"), publicBaseUrl: "http://hotel.test", mailFrom: Option.some(mailFrom), ...UNLIMITED, ...config }),
    NodeServices.layer,
    AppSecret.InMemory
  )

/**
 * The whole HTTP API as it runs in production, on a database of its own, with the outbox worker
 * delivering every email to an in-process SMTP server (`Inbox`): what a guest receives is real mail.
 */
export const mailingTestApp = (
  config: Partial<typeof AppConfig.Service> = {},
  server: Parameters<typeof testServer>[0] = {}
) => Layer.unwrap(Effect.gen(function*() {
  const smtp = yield* smtpServer()
  const delivery = Layer.mergeAll(Mailer.smtp({ url: Redacted.make(smtp.url), from: mailFrom }), Pms.disabled)
  // spans (to config.otlpEndpoint, if set) as in production: none at all without a collector
  const services = untracedWithoutCollector(OutboxWorker.layerWith({ ...defaultOutboxWorkerOptions, pollMs: 500 }).pipe(
    Layer.provideMerge(Services),
    Layer.provide(delivery),
    Layer.provideMerge(Repositories),
    Layer.provideMerge(TestDatabase),
    Layer.provideMerge(TracingLive)
  )).pipe(
    Layer.provideMerge(mailingConfig(config))
  )
  return HttpLive.pipe(
    Layer.provideMerge(services),
    Layer.provideMerge(testServer(server)),
    Layer.provideMerge(Layer.succeed(Inbox, smtp.received))
  )
}))

export const MailingTestApp = mailingTestApp()
