import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, ConfigError, Effect, Option } from "effect"

/** What a start-up failure means, in one or two lines, without a stack for the expected ones. */
const describe = (cause: Cause.Cause<unknown>): string =>
  Option.match(Cause.failureOption(cause), {
    onNone: () => Cause.pretty(cause),
    onSome: (error) => {
      if (ConfigError.isConfigError(error)) return `Invalid configuration: ${String(error)}`
      if (typeof error === "object" && error !== null && "message" in error) return String(error.message)
      return String(error)
    }
  })

/** Runs an entry point: expected failures print a clear message and exit 1. */
export const runEntry = <A, E>(program: Effect.Effect<A, E>) =>
  program.pipe(
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.void
        : Effect.sync(() => {
          console.error(describe(cause))
          process.exitCode = 1
        })
    ),
    NodeRuntime.runMain
  )
