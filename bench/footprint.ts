/**
 * `npm run bench:footprint`: what a newcomer's `npm start` costs in time and memory, on the
 * embedded database (no DATABASE_URL), in a temporary DATA_DIR.
 *
 * 1. Start-up: the service as `npm start` runs it (`node` with its arguments, no npm), spawn to the
 *    first healthy /v1/health: once on an empty DATA_DIR (`initdb` included), then
 *    `BENCH_STARTS` times (default 3) on the initialised one, each stopped with SIGTERM; with the
 *    CPU time the service's own process spent until then (PostgreSQL's not counted), which a busy
 *    machine stretches less than the wall time.
 * 2. Memory: resident (RSS) and proportional (PSS, shared pages divided among their sharers) of the
 *    service and of its process tree (the embedded PostgreSQL's processes), idle 3 s after start,
 *    then after `BENCH_QUOTES` quotes (default 100,000; 2 rooms, 3 nights, 50 connections), twice:
 *    what the second batch adds beyond the first is growth beyond the caches' bounds.
 * 3. `npm start` itself (its build included) on the same DATA_DIR: the process tree's memory once
 *    healthy (npm, the shell, the service, PostgreSQL).
 */
import autocannon from "autocannon"
import { spawn } from "node:child_process"
import { chmodSync, readdirSync, readFileSync } from "node:fs"
import { cpuMicros, table, twoRoomQuote } from "./load.js"
import { freePort, runBench, sleep, startArguments, startNode, stop, temporaryDataDir, waitHealthy } from "./service.js"

const STARTS = Number(process.env["BENCH_STARTS"] ?? "3")
const QUOTES = Number(process.env["BENCH_QUOTES"] ?? "100000")

/** Every process under `root` (itself included), from /proc's parent links. */
const treeOf = (root: number): Array<number> => {
  const children = new Map<number, Array<number>>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, "utf8").replace(/^.*\) /, "").split(" ")[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)])
    } catch {
      // gone meanwhile
    }
  }
  const tree: Array<number> = []
  const visit = (pid: number) => {
    tree.push(pid)
    for (const child of children.get(pid) ?? []) visit(child)
  }
  visit(root)
  return tree
}

/** RSS and PSS of some processes together, in MiB (smaps_rollup's Rss and Pss). */
const memoryOf = (pids: ReadonlyArray<number>) => {
  let rss = 0
  let pss = 0
  for (const pid of pids) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8")
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0)
      pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0)
    } catch {
      // gone meanwhile
    }
  }
  return { rss: rss / 1024, pss: pss / 1024, processes: pids.length }
}

const mib = (n: number) => n.toFixed(1)

/** The service on the embedded database in `dataDir`, healthy; how long that took. */
const startEmbedded = async (dataDir: string) => {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const spawnedAt = performance.now()
  const service = startNode(startArguments(), { PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: "0" }, undefined, dataDir)
  await waitHealthy(`${base}/v1/health`, service.child, service.output)
  const startupMs = performance.now() - spawnedAt
  return { ...service, base, startupMs, startupCpuMs: cpuMicros(service.child.pid!) / 1000 }
}

const quotes = (base: string, amount: number) =>
  new Promise<autocannon.Result>((resolve, reject) =>
    autocannon({ ...twoRoomQuote(base), connections: 50, amount }, (error, result) => error ? reject(error) : resolve(result))
  )

runBench(async () => {
  const dataDir = temporaryDataDir()
  // run as root, the service runs PostgreSQL as the user postgres, who must reach DATA_DIR
  chmodSync(dataDir, 0o711)

  // 1. Start-up
  const startRows: Array<Array<string>> = []
  let service = await startEmbedded(dataDir)
  startRows.push(["empty DATA_DIR (initdb included)", service.startupMs.toFixed(0), service.startupCpuMs.toFixed(0)])
  for (let i = 1; i <= STARTS; i++) {
    await stop(service.child)
    service = await startEmbedded(dataDir)
    startRows.push([`initialised DATA_DIR, start ${i}`, service.startupMs.toFixed(0), service.startupCpuMs.toFixed(0)])
  }

  // 2. Memory, idle and after quotes
  const memoryRows: Array<Array<string>> = []
  const sample = (when: string) => {
    const alone = memoryOf([service.child.pid!])
    const tree = memoryOf(treeOf(service.child.pid!))
    memoryRows.push([when, mib(alone.rss), mib(alone.pss), mib(tree.rss), mib(tree.pss), String(tree.processes)])
  }
  await sleep(3000)
  sample("idle, 3 s after start")
  for (const round of [1, 2]) {
    console.error(`${QUOTES} quotes (round ${round})…`)
    const result = await quotes(service.base, QUOTES)
    const non2xx = result.non2xx + result.errors
    if (non2xx > 0) throw new Error(`${non2xx} quotes failed (non-2xx or errors):\n${service.output()}`)
    await sleep(3000)
    sample(`after ${(QUOTES * round).toLocaleString("en")} quotes (${result.requests.average.toFixed(0)} req/s)`)
  }
  await stop(service.child)

  // 3. npm start's whole tree
  const port = await freePort()
  const npm = spawn("npm", ["start"], {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir },
    stdio: "ignore",
    detached: true
  })
  const stopNpm = async () => {
    if (npm.exitCode !== null) return
    const exited = new Promise((r) => npm.once("exit", r))
    process.kill(-npm.pid!, "SIGTERM")
    await exited
  }
  try {
    await waitHealthy(`http://127.0.0.1:${port}/v1/health`, npm, () => "(npm start's output is not kept)", 120_000)
    await sleep(3000)
    const tree = treeOf(npm.pid!)
    const whole = memoryOf(tree)
    memoryRows.push(["npm start, idle: npm, its shell, the service, PostgreSQL", "", "", mib(whole.rss), mib(whole.pss), String(whole.processes)])
    for (const pid of tree) {
      const { pss, rss } = memoryOf([pid])
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim().slice(0, 60)
      memoryRows.push([`  ${command}`, "", "", mib(rss), mib(pss), "1"])
    }
  } finally {
    await stopNpm()
  }

  const starts = table(["start-up on the embedded database", "spawn to healthy (ms)", "the service's CPU (ms)"], startRows)
  const memory = table(["memory", "service RSS (MiB)", "service PSS", "tree RSS", "tree PSS", "processes"], memoryRows)
  console.log(`${starts.text}\n\n${memory.text}\n\n${starts.markdown}\n\n${memory.markdown}`)
})
