import { describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { bufferedStdout } from "../../../src/Layers/Platform/Logging.js"

/** The stand-in service, its stdout to a file as deployed, once it listens. */
const startStandIn = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hotel-log-"))
  const logFile = path.join(dir, "stdout.log")
  const fd = fs.openSync(logFile, "a")
  const child = spawn(process.execPath, ["--import", "tsx", "test/support/loggingServer.ts"], { stdio: ["ignore", fd, "pipe"] })
  fs.closeSync(fd)
  let stderr = ""
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr!.on("data", (chunk) => {
      stderr += chunk
      const ready = /READY (\d+)/.exec(stderr)
      if (ready !== null) resolve(Number(ready[1]))
    })
    child.once("exit", (code) => reject(new Error(`the stand-in exited (${code}): ${stderr}`)))
  })
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal!)))
  const lines = () =>
    fs.readFileSync(logFile, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Record<string, unknown>)
  return { child, port, exited, lines, remove: () => fs.rmSync(dir, { recursive: true, force: true }) }
}

/** One request, on a connection of its own; resolves once its answer has arrived in full. */
const get = (port: number, query: string) =>
  new Promise<number>((resolve, reject) => {
    http.get({ host: "127.0.0.1", port, path: `/v1/hotel?${query}`, agent: false }, (response) => {
      response.resume()
      response.once("end", () => resolve(response.statusCode!))
    }).once("error", reject)
  })

/** The statuses of the request lines, and of the "answering" lines, in the log's order. */
const sequence = (lines: ReadonlyArray<Record<string, unknown>>) =>
  lines.flatMap((line) =>
    line.msg === "request"
      ? [`request ${line.status} ${line.route}`]
      : typeof line.msg === "string" && line.msg.startsWith("answering")
      ? [line.msg]
      : []
  )

const STATUSES = [201, 202, 203, 204, 205, 206, 207, 208]
const expected = STATUSES.flatMap((status) => [`answering ${status}`, `request ${status} /v1/hotel`])

/** Answers STATUSES in order, the last followed by `then`; the exit, and the log's sequence. */
const answerThen = async (then: string, stop?: (child: ChildProcess) => void) => {
  const standIn = await startStandIn()
  try {
    for (const status of STATUSES.slice(0, -1)) expect(await get(standIn.port, `status=${status}`)).toBe(status)
    expect(await get(standIn.port, `status=${STATUSES.at(-1)}&then=${then}`)).toBe(STATUSES.at(-1))
    stop?.(standIn.child)
    return { exit: await standIn.exited, sequence: sequence(standIn.lines()) }
  } finally {
    standIn.child.kill("SIGKILL")
    standIn.remove()
  }
}

// each crash in a stand-in of its own (a process started by tsx: a few seconds each on a busy machine)
describe("the request log, written in batches", () => {
  it("lines written together are the same lines in the same order, and a lone one is written without another to push it", async () => {
    const writes: Array<string> = []
    const output = bufferedStdout((chunk) => void writes.push(chunk))
    for (let i = 0; i < 100; i++) output.line(`line ${i}`)
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => writes.length > 0 && (clearInterval(poll), resolve()), 1)
    })
    expect(writes).toEqual([Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join("")])
    output.line("alone")
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => writes.length > 1 && (clearInterval(poll), resolve()), 1)
    })
    expect(writes[1]).toBe("alone\n")
  })

  it("a crash by an uncaught error right after an answer: every answer's line is in the file, in order", async () => {
    const { exit, sequence } = await answerThen("throw")
    expect(exit).toBe(1)
    expect(sequence).toEqual(expected)
  }, 60_000)

  it("process.exit right after an answer: every answer's line is in the file, in order", async () => {
    const { exit, sequence } = await answerThen("exit")
    expect(exit).toBe(3)
    expect(sequence).toEqual(expected)
  }, 60_000)

  it("SIGTERM right after an answer: the stop writes every answer's line, in order", async () => {
    const { exit, sequence } = await answerThen("nothing", (child) => child.kill("SIGTERM"))
    expect(exit).toBe(0)
    expect(sequence).toEqual(expected)
  }, 60_000)
})
