import { Effect } from "effect"
import { DatabaseDown } from "../Domain/Errors.js"
import { DatabasePing } from "../Layers/Persistence/Database.js"
import * as Tracing from "../Layers/Platform/Tracing.js"

/** Whether the service can answer: the database must take a query within a second (DatabasePing). */
export class Health extends Effect.Service<Health>()("Health", {
  effect: Effect.gen(function*() {
    const ping = yield* DatabasePing
    return {
      check: Tracing.fn("Health.check")(function*() {
        yield* ping.pipe(Effect.mapError((e) => new DatabaseDown({ message: e.message })))
        return { status: "ok" as const, database: "ok" as const }
      })
    }
  })
}) {}
