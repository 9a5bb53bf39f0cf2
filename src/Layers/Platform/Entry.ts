import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Config, Effect, Exit, Logger, Option, Schedule, Schema, SchemaIssue } from "effect"

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

const issues = SchemaIssue.makeFormatterStandardSchemaV1()

/** A configuration error as one line: the variable and what is wrong with it. */
const configMessage = (error: Config.ConfigError): string => {
  if (!Schema.isSchemaError(error.cause)) return error.cause.message
  const [first] = issues(error.cause.issue).issues
  return first === undefined ? error.message : `(Invalid data at ${(first.path ?? []).map(String).join(".")}: "${first.message}")`
}

/** What a start-up failure means, in one or two lines, without a stack for the expected ones. */
const describe = (cause: Cause.Cause<unknown>): string =>
  Option.match(Cause.findErrorOption(cause), {
    onNone: () => Cause.pretty(cause),
    onSome: (error) => error instanceof Config.ConfigError ? `Invalid configuration: ${configMessage(error)}` : messageOf(error)
  })

/**
 * Completes once `npm start` is gone; never when the service was started otherwise. npm passes a
 * SIGTERM on to the shell that runs the script, and Debian's `sh` dies of it without passing it
 * on: the service went on serving, holding the port and the embedded database, with no npm left to
 * stop it. So under `npm start` (npm names the script in `npm_lifecycle_event`) the service ends
 * when that shell, its parent, has gone, as on SIGTERM. Started otherwise (a supervisor, `nohup`)
 * it may outlive its parent by design.
 */
export const npmStartGone: Effect.Effect<void> = Effect.suspend(() => {
  if (process.env["npm_lifecycle_event"] !== "start") return Effect.never
  const shell = process.ppid
  return Effect.sync(() => process.ppid !== shell).pipe(
    Effect.repeat({ until: (gone) => gone, schedule: Schedule.spaced("1 second") }),
    Effect.andThen(Effect.logInfo("npm start has stopped (its shell is gone): the service stops as on SIGTERM"))
  )
})

/** Until a layer sets the service's own: Effect's pretty logger, as runMain set it in Effect 3. */
const PrettyLogs = Logger.layer([Logger.consolePretty(), Logger.tracerLogger])

/**
 * Runs an entry point: expected failures print a clear message and exit 1; a signal (SIGTERM,
 * SIGINT) interrupts it, and once it has stopped, the process exits 0.
 */
export const runEntry = <A, E>(program: Effect.Effect<A, E>) =>
  program.pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.void
        : Effect.sync(() => {
          console.error(describe(cause))
          process.exitCode = 1
        })
    ),
    Effect.provide(PrettyLogs),
    NodeRuntime.runMain({
      // a stop by a signal is a clean one (Effect 4 would exit 130 after an interruption)
      teardown: (exit, onExit) => onExit(Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause) ? 1 : 0)
    })
  )
