import { Effect } from "effect"
import { ServiceUnavailable } from "../Domain/Errors.js"
import { DatabasePing } from "../Layers/Persistence/Database.js"
import * as Tracing from "../Layers/Platform/Tracing.js"

/** Whether the service can answer: the database must take a query within two seconds. */
export class Health extends Effect.Service<Health>()("Health", {
  effect: Effect.gen(function*() {
    const ping = yield* DatabasePing
    return {
      check: Tracing.fn("Health.check")(function*() {
        yield* ping.pipe(
          Effect.timeout("2 seconds"),
          Effect.catchAll(() => new ServiceUnavailable({ message: "the database does not answer" }))
        )
        return { status: "ok" as const, database: "ok" as const }
      })
    }
  })
}) {}
