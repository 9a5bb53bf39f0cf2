import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** The service as `npm start` runs it: the compiled JavaScript, on the embedded database of a data folder of its own. */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "hotel-main-"))
fs.chmodSync(dataDir, 0o755)
const port = 20_000 + Math.floor(Math.random() * 20_000)
const base = `http://127.0.0.1:${port}`

const start = async () => {
  const { DATABASE_URL: _, ...inherited } = process.env
  const child = spawn(process.execPath, ["--enable-source-maps", "dist/main.js"], {
    env: { ...inherited, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  const until = Date.now() + 30_000
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}):\n${output}`)
    if (await fetch(`${base}/v1/health`).then((r) => r.ok, () => false)) return { child, output: () => output }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`the service did not answer within 30 s:\n${output}`)
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal!)))

interface Json {
  readonly [key: string]: string
}

const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${url}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })

/** A date `days` after today in the hotel's time. */
const inDays = (days: number) => {
  const today = new Date(`${new Date().toLocaleDateString("en-CA", { timeZone: "Europe/Paris" })}T00:00:00Z`)
  return new Date(today.getTime() + days * 86_400_000).toISOString().slice(0, 10)
}

const intent = (quoteId: string | undefined) =>
  postJson("/v1/reservation-intents", { quote_id: quoteId, package_code: "FLEX" }, { "idempotency-key": "main-test-intent" })

const postmasterAlive = () => {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0])
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe("the service on its embedded database", () => {
  beforeAll(() => void execFileSync("npm", ["run", "build"], { stdio: "ignore" }), 60_000)
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }))

  it("serves, survives a kill -9 with its data, and stops its database on SIGTERM", async () => {
    const first = await start()
    expect((await fetch(`${base}/v1/hotel`)).status).toBe(200)
    const quote = (await (await postJson("/v1/quotes", { checkin: inDays(40), checkout: inDays(42), rooms: [{ room_type_id: "double", adults: 2 }] })).json()) as Json
    const created = await intent(quote.quote_id)
    expect(created.status).toBe(200)
    const { reservation_id } = (await created.json()) as Json

    first.child.kill("SIGKILL")
    await exitOf(first.child)
    expect(postmasterAlive()).toBe(true) // its database outlived it

    const second = await start()
    expect(second.output()).toMatch(/stopped the embedded PostgreSQL \(pid \d+\) left running by a service that was killed/)
    const replayed = await intent(quote.quote_id)
    expect(replayed.headers.get("idempotent-replayed")).toBe("true")
    expect(((await replayed.json()) as Json).reservation_id).toBe(reservation_id)

    second.child.kill("SIGTERM")
    expect(await exitOf(second.child)).toBe(0)
    expect(postmasterAlive()).toBe(false)
    expect(fs.existsSync(path.join(dataDir, "service.pid"))).toBe(false)
  }, 90_000)
})
