import { Data, Effect } from "effect"

/* Why the embedded PostgreSQL could not be started or kept: the service then stops, saying so. */

export class EmbeddedDatabaseError extends Data.TaggedError("EmbeddedDatabaseError")<{ readonly message: string }> {}

export const fail = (message: string) => Effect.fail(new EmbeddedDatabaseError({ message }))
