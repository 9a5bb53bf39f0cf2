import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, ConfigError, Effect, Option } from "effect"

/**
 * An error's own message; a tagged error without one (the platform's `ServeError` when the port is
 * taken) says what failed only in its cause.
 */
const messageOf = (error: unknown): string => {
  if (typeof error !== "object" || error === null) return String(error)
  const message = "message" in error ? String(error.message) : ""
  if (message !== "") return message
  const tag = "_tag" in error ? `${String(error._tag)}: ` : ""
  return "cause" in error && error.cause !== undefined ? `${tag}${messageOf(error.cause)}` : tag + String(error)
}

/** What a start-up failure means, in one or two lines, without a stack for the expected ones. */
const describe = (cause: Cause.Cause<unknown>): string =>
  Option.match(Cause.failureOption(cause), {
    onNone: () => Cause.pretty(cause),
    onSome: (error) => ConfigError.isConfigError(error) ? `Invalid configuration: ${String(error)}` : messageOf(error)
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
