import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import { SourceMap, type SourceMapping } from "node:module"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { daysFromToday } from "./support/clock.js"
import { eventually } from "./support/eventually.js"
import { guest, tokenOf } from "./support/flow.js"

/** The service as `npm start` runs it: the compiled JavaScript, on the embedded database of a data folder of its own. */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "hotel-main-"))
fs.chmodSync(dataDir, 0o755)
// below Linux's ephemeral ports (32768 and up), where the suite's own connections and port-0 servers
// take theirs: a port there can be in use, and the service then cannot listen
const port = 20_000 + Math.floor(Math.random() * 12_000)
const base = `http://127.0.0.1:${port}`
/** Its temporary directory, where its starts keep their modules compiled (V8's compile cache, src/main.ts). */
const temporary = fs.mkdtempSync(path.join(os.tmpdir(), "hotel-main-tmp-"))

/**
 * Started in a process group of its own, as a supervisor runs it (the group is `-pid`); by
 * `command`, the built service itself unless told.
 */
const start = async ([command, ...args]: ReadonlyArray<string> = [process.execPath, "--enable-source-maps", "dist/main.js"]) => {
  const { DATABASE_URL: _, ...inherited } = process.env
  const child = spawn(command!, args, {
    // the load below comes from one address, beyond the default rate limit (tested in Limits.test.ts)
    env: {
      ...inherited,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      RATE_LIMIT_PER_MINUTE: "0",
      TMPDIR: temporary
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true
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

const intent = (quoteId: string | undefined, idempotencyKey = "main-test-intent") =>
  postJson("/v1/reservation-intents", { quote_id: quoteId, package_code: "FLEX" }, { "idempotency-key": idempotencyKey })

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
  afterAll(() => [dataDir, temporary].forEach((folder) => fs.rmSync(folder, { recursive: true, force: true })))

  it("npm start builds only when needed: not while dist/ is newer than all it was made of, again once one of them changed", () => {
    const builtAt = () => fs.statSync("dist/inputs.json").mtimeMs
    const built = builtAt()
    execFileSync(process.execPath, ["src/bin/build.mjs", "--if-stale"])
    expect(builtAt()).toBe(built)
    const now = new Date()
    fs.utimesSync("src/Domain/Money.ts", now, now)
    execFileSync(process.execPath, ["src/bin/build.mjs", "--if-stale"])
    expect(builtAt()).toBeGreaterThan(built)
  }, 60_000)

  it("dist's source maps, as Node reads them, map src/ alone: a place in src/ is found, a package's is left unmapped, its full map beside", () => {
    const mapped = fs.readdirSync("dist").filter((file) => file.endsWith(".js.map"))
    expect(mapped.length).toBeGreaterThan(0)
    for (const file of mapped) {
      const { mappings, sources } = JSON.parse(fs.readFileSync(`dist/${file}`, "utf8"))
      expect({ file, packages: sources.filter((source: string) => source.includes("node_modules/")) }).toEqual({ file, packages: [] })
      // Node parses a map at the first stack through its chunk, as effect's modules make at load
      if (sources.length === 0) expect({ file, mappings }).toEqual({ file, mappings: "" })
    }
    // a place in src/ and one in effect's code, in the bundled service
    const placeOf = (text: string) => {
      const file = mapped.map((map) => map.replace(/\.map$/, "")).find((js) => fs.readFileSync(`dist/${js}`, "utf8").includes(text))!
      const lines = fs.readFileSync(`dist/${file}`, "utf8").split("\n")
      const line = lines.findIndex((candidate) => candidate.includes(text))
      return { file, line, column: lines[line]!.indexOf(text) }
    }
    const sourceOf = (map: string, { column, line }: { readonly line: number; readonly column: number }): Partial<SourceMapping> =>
      new SourceMap(JSON.parse(fs.readFileSync(`dist/${map}`, "utf8"))).findEntry(line, column)
    const ours = placeOf("npm start has stopped")
    const effects = placeOf("All fibers interrupted without error")
    expect(sourceOf(`${ours.file}.map`, ours)).toMatchObject({ originalSource: "../src/Layers/Platform/Entry.ts" })
    expect(sourceOf(`${effects.file}.map`, effects).originalSource).toBeUndefined()
    expect(sourceOf(effects.file.replace(/\.js$/, ".js.full.map"), effects)).toMatchObject({ originalSource: expect.stringContaining("node_modules/effect/") })
  })

  it("a port already in use stops the start with a message naming it, and exit code 1", async () => {
    const holder = net.createServer()
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve))
    const taken = (holder.address() as net.AddressInfo).port
    const otherDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "hotel-main-port-"))
    fs.chmodSync(otherDataDir, 0o755)
    try {
      const { DATABASE_URL: _, ...inherited } = process.env
      const child = spawn(process.execPath, ["dist/main.js"], {
        env: { ...inherited, PORT: String(taken), HOST: "127.0.0.1", DATA_DIR: otherDataDir },
        stdio: ["ignore", "ignore", "pipe"]
      })
      let errors = ""
      child.stderr!.on("data", (chunk) => (errors += chunk))
      expect(await exitOf(child)).toBe(1)
      expect(errors).toContain(`EADDRINUSE: address already in use 127.0.0.1:${taken}`)
    } finally {
      holder.close()
      fs.rmSync(otherDataDir, { recursive: true, force: true })
    }
  }, 30_000)

  it("serves, survives a kill -9 with its data, and stops its database on SIGTERM", async () => {
    const first = await start()
    expect((await fetch(`${base}/v1/hotel`)).status).toBe(200)
    const quote = (await (await postJson("/v1/quotes", { checkin: daysFromToday(40), checkout: daysFromToday(42), rooms: [{ room_type_id: "double", adults: 2 }] })).json()) as Json
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
    // a clean exit leaves the service's modules compiled for the next start: the bundle's entry
    // and the chunks it loaded (src/bin/build.mjs), every one of them a module of dist/
    const compiled = fs.readdirSync(path.join(temporary, "node-compile-cache"), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
    const loaded = fs.readdirSync("dist").filter((file) => file.endsWith(".js") && file !== "ConfirmationPdfWorker.js")
    expect(compiled.length).toBeGreaterThanOrEqual(3)
    expect(compiled.length).toBeLessThanOrEqual(loaded.length)
  }, 90_000)

  it("the built bundle finds its own files: a guest page of public/, the confirmation PDF drawn on its thread", async () => {
    const service = await start()
    try {
      const page = await fetch(`${base}/book`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain("<form")
      const quote = (await (await postJson("/v1/quotes", { checkin: daysFromToday(30), checkout: daysFromToday(31), rooms: [{ room_type_id: "double", adults: 2 }] })).json()) as {
        readonly quote_id: string
        readonly package_offers: ReadonlyArray<{ readonly package_code: string; readonly price: { readonly total: number } }>
      }
      const offer = quote.package_offers.find((o) => o.package_code === "FLEX")!
      const created = (await (await intent(quote.quote_id, "main-test-pdf")).json()) as Json
      const completed = await postJson("/v1/reservation-complete", { ...guest, expected_total: offer.price.total }, {
        "x-reservation-token": tokenOf(created["continue_url"]!)
      })
      expect(completed.status).toBe(200)
      // the confirmation email, written as a file without SMTP_URL, carries the PDF the thread drew
      const mailDir = path.join(dataDir, "mail")
      const emailFile = () =>
        fs.existsSync(mailDir) ? fs.readdirSync(mailDir, { recursive: true }).map(String).find((name) => name.endsWith(".eml")) : undefined
      await Effect.runPromise(eventually(Effect.sync(() => emailFile() !== undefined), 20_000))
      expect(fs.readFileSync(path.join(mailDir, emailFile()!), "utf8")).toMatch(/Content-Type: application\/pdf/)
    } finally {
      service.child.kill("SIGTERM")
      await exitOf(service.child)
    }
  }, 60_000)

  it("under npm start, a SIGTERM to npm alone (which npm's shell does not pass on) stops the service and its database", async () => {
    const npm = await start(["npm", "start"])
    try {
      process.kill(npm.child.pid!, "SIGTERM")
      await exitOf(npm.child)
      const serving = () => fetch(`${base}/v1/health`).then(() => true, () => false)
      await Effect.runPromise(eventually(Effect.promise(async () => !(await serving()) && !postmasterAlive()), 20_000))
      expect(npm.output()).toContain("npm start has stopped (its shell is gone): the service stops as on SIGTERM")
    } finally {
      // the service and npm's shell, had they outlived npm
      try {
        process.kill(-npm.child.pid!, "SIGKILL")
      } catch {
        // none left
      }
    }
  }, 60_000)

  it("SIGTERM to its process group under keep-alive load: every request in flight is answered, the exit is clean and quick", async () => {
    const service = await start()
    const agents = Array.from({ length: 16 }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }))
    const outcomes: Array<{ readonly sentAt: number; readonly answeredAt: number; readonly outcome: string }> = []
    let signalledAt = Number.POSITIVE_INFINITY
    const one = (agent: http.Agent, i: number) =>
      new Promise<string>((resolve) => {
        const quote = i % 2 === 0
        const body = JSON.stringify({ checkin: daysFromToday(50), checkout: daysFromToday(52), rooms: [{ room_type_id: "twin", adults: 1 }] })
        const request = http.request(`${base}${quote ? "/v1/quotes" : "/v1/hotel"}`, {
          agent,
          method: quote ? "POST" : "GET",
          headers: quote ? { "content-type": "application/json" } : {}
        }, (response) => {
          response.resume()
          response.on("end", () => resolve(String(response.statusCode)))
        })
        request.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
        request.end(quote ? body : undefined)
      })
    const loop = async (agent: http.Agent) => {
      for (let i = 0;; i++) {
        const sentAt = Date.now()
        const outcome = await one(agent, i)
        outcomes.push({ sentAt, answeredAt: Date.now(), outcome })
        if (outcome === "ECONNREFUSED") return // the server has stopped listening: nothing more to send
      }
    }
    const loops = Promise.all(agents.map(loop))
    await new Promise((resolve) => setTimeout(resolve, 1500))
    signalledAt = Date.now()
    process.kill(-service.child.pid!, "SIGTERM")
    const exit = await exitOf(service.child)
    const exitedAfter = Date.now() - signalledAt
    await loops
    agents.forEach((agent) => agent.destroy())

    const count = (keep: (o: typeof outcomes[number]) => boolean) => outcomes.filter(keep).length
    const inFlightAtSignal = count((o) => o.sentAt < signalledAt && o.answeredAt >= signalledAt)
    // every request sent was answered 200, until the server stopped listening
    expect([...new Set(outcomes.map((o) => o.outcome))].sort()).toEqual(["200", "ECONNREFUSED"])
    expect(inFlightAtSignal).toBeGreaterThan(0)
    expect(exit).toBe(0)
    expect(exitedAfter).toBeLessThan(10_000)
    expect(postmasterAlive()).toBe(false)
    console.log(`shutdown under load: ${outcomes.length} requests, ${inFlightAtSignal} in flight at SIGTERM, ` +
      `${count((o) => o.sentAt >= signalledAt && o.outcome === "200")} sent after it and answered, ` +
      `${count((o) => o.outcome === "ECONNREFUSED")} refused at connect once it stopped listening, ` +
      `lost ${count((o) => o.outcome !== "200" && o.outcome !== "ECONNREFUSED")}; exit ${exit} after ${exitedAfter} ms`)
  }, 60_000)
})

describe("npm start on a Node older than `engines`", () => {
  /** `npm start`'s first step, run on this Node made to say it is `version`. */
  const checkAs = (version: string) => {
    const claim = `Object.defineProperty(process, "versions", { value: { ...process.versions, node: ${JSON.stringify(version)} } });` +
      `Object.defineProperty(process, "version", { value: ${JSON.stringify(`v${version}`)} });` +
      `require("./src/bin/check-node.cjs")`
    try {
      return { status: 0, output: execFileSync(process.execPath, ["-e", claim], { encoding: "utf8", stdio: "pipe" }) }
    } catch (e) {
      const failed = e as { status: number; stderr: string }
      return { status: failed.status, output: failed.stderr }
    }
  }

  it("Node 20 and 22.18 are told in one line which Node they need, exit 1; 22.19, 24 and 25 go on", () => {
    for (const old of ["20.20.2", "22.18.0", "18.20.8"]) {
      const { status, output } = checkAs(old)
      expect(status).toBe(1)
      expect(output).toBe(`hotel-booking-api needs Node.js >=22.19.0; this is Node.js v${old}: install Node.js 24 LTS (or 22.19+) and run npm start again\n`)
    }
    for (const recent of ["22.19.0", "24.21.0", "25.0.0"]) expect(checkAs(recent)).toEqual({ status: 0, output: "" })
    // the check comes first, before the build and before any Effect module is loaded
    expect(JSON.parse(fs.readFileSync("package.json", "utf8")).scripts.prestart).toMatch(/^node src\/bin\/check-node\.cjs && /)
  })
})
