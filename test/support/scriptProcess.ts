import { Data, Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"

export class ScriptExited extends Data.TaggedError("ScriptExited")<{ readonly message: string }> {}

/**
 * A TypeScript script of the tests in a process of its own (a service stand-in, for the crash
 * tests), once it has printed `ready`; it fails with what it printed if it exits before.
 */
export const startScript = (script: string, args: ReadonlyArray<string>, ready: string) =>
  Effect.callback<ChildProcess, ScriptExited>((resume) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    const collect = (chunk: Buffer) => {
      output += chunk
      if (output.includes(ready)) resume(Effect.succeed(child))
    }
    child.stdout!.on("data", collect)
    child.stderr!.on("data", collect)
    child.once("exit", (code) => resume(Effect.fail(new ScriptExited({ message: `${script} exited (${code}): ${output}` }))))
  })

/** Kills the process as a crash would (`kill -9`), once it has exited. */
export const killHard = (child: ChildProcess) =>
  Effect.callback<void>((resume) => {
    child.once("exit", () => resume(Effect.void))
    child.kill("SIGKILL")
  })
