/** Load runs with autocannon, and their tables, shared by the benches. */
import autocannon from "autocannon"
import { readdirSync, readFileSync } from "node:fs"
import { isoDate, percentile } from "./service.js"

export const SECONDS = Number(process.env["BENCH_SECONDS"] ?? "10")
export const CONNECTIONS = 50
export const WARMUP_SECONDS = 2

export interface Measured {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  /** The whole run's, warm-up included: errors, timeouts, status codes. */
  readonly result: autocannon.Result
}

/**
 * One autocannon run keeps the same connections through the warm-up and the measurement, and
 * only the responses after the warm-up count. A separate warm-up run would let the measurement
 * open its 50 connections at once, a burst that steady load never has; that burst alone lifted
 * a quote's p99 by up to 20 ms.
 */
export const measure = (opts: autocannon.Options, connections: number) =>
  new Promise<Measured>((resolve, reject) => {
    const latencies: Array<number> = []
    let non2xx = 0
    let measuringSince: number | undefined
    const warmUp = setTimeout(() => (measuringSince = performance.now()), WARMUP_SECONDS * 1000)
    const instance = autocannon({ ...opts, connections, duration: WARMUP_SECONDS + SECONDS }, (error, result) => {
      clearTimeout(warmUp)
      if (error) return reject(error)
      const seconds = (performance.now() - (measuringSince ?? performance.now())) / 1000
      resolve({ rps: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), non2xx, result })
    })
    instance.on("response", (_client, status, _bytes, ms) => {
      if (measuringSince === undefined) return
      latencies.push(ms)
      if (status < 200 || status > 299) non2xx++
    })
  })

/** The quote every bench asks: a double for 2 adults and a twin for 1 adult and a child of 5, in 30 days, 3 nights. */
export const twoRoomQuoteBody = () =>
  JSON.stringify({
    checkin: isoDate(30),
    checkout: isoDate(33),
    rooms: [{ room_type_id: "double", adults: 2 }, { room_type_id: "twin", adults: 1, children_ages: [5] }]
  })

/** POST /v1/quotes of `twoRoomQuoteBody` on the service at `base`, as autocannon sends it. */
export const twoRoomQuote = (base: string): autocannon.Options => ({
  url: `${base}/v1/quotes`,
  method: "POST",
  headers: { "content-type": "application/json" },
  body: twoRoomQuoteBody()
})

/**
 * `measure`, with the CPU µs a request of the server process `pid` (warm-up included): unlike
 * req/s, not set by how fast the bare server happens to be; in all, in user space and in the
 * kernel (its socket work).
 */
export const measureWithCpu = async (
  opts: autocannon.Options,
  connections: number,
  pid: number
): Promise<Measured & { readonly micros: number; readonly userMicros: number; readonly kernelMicros: number }> => {
  const before = processCpu(pid)
  const measured = await measure(opts, connections)
  const after = processCpu(pid)
  const requests = measured.result.requests.total
  const userMicros = (after.userMicros - before.userMicros) / requests
  const kernelMicros = (after.kernelMicros - before.kernelMicros) / requests
  return { ...measured, micros: userMicros + kernelMicros, userMicros, kernelMicros }
}

/** A table as aligned text (first column to the left) and as Markdown. */
export const table = (header: Array<string>, rows: Array<Array<string>>) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: Array<string>) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")
  const md = (cells: Array<string>) => `| ${cells.join(" | ")} |`
  return {
    text: [header, ...rows].map(line).join("\n"),
    markdown: [md(header), `|${header.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`, ...rows.map(md)].join("\n")
  }
}

/** Linux counts a process's CPU time in ticks of 1/100 s (USER_HZ). */
const MICROS_PER_TICK = 10_000

/** A process's name and its user and system CPU time so far, in µs (/proc/PID/stat: fields 2, 14 and 15). */
const processCpu = (pid: number | string) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ")
  const userMicros = Number(fields[11]) * MICROS_PER_TICK
  const kernelMicros = Number(fields[12]) * MICROS_PER_TICK
  return { name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), userMicros, kernelMicros, micros: userMicros + kernelMicros }
}

/** User and system CPU time of a process so far, in µs. */
export const cpuMicros = (pid: number) => processCpu(pid).micros

/**
 * The machine's CPU time so far (/proc/stat's first line, in ticks): in all, and `steal`, what the
 * hypervisor gave this machine's virtual cores to other machines. A stolen share of 15 % took an open
 * loop's p99 from 9 to 60 ms, the service unchanged: it tells the host's drift from the service's.
 */
export const machineCpu = () => {
  const ticks = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1).map(Number)
  // user nice system idle iowait irq softirq steal …
  return { total: ticks.slice(0, 8).reduce((sum, n) => sum + n, 0), steal: ticks[7]! }
}

/** The share of the machine's CPU time stolen between two readings, in %. */
export const stolenPercent = (before: ReturnType<typeof machineCpu>, after: ReturnType<typeof machineCpu>) =>
  after.total === before.total ? 0 : (100 * (after.steal - before.steal)) / (after.total - before.total)

/**
 * The CPU time so far, in µs, of this machine's PostgreSQL processes (its backends, WAL writer,
 * checkpointer…): a database server elsewhere counts 0. A process that ends between two readings
 * takes its time with it: the bench's services keep their connections open.
 */
export const databaseCpuMicros = () =>
  readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).reduce((sum, pid) => {
    try {
      const { micros, name } = processCpu(pid)
      return name === "postgres" ? sum + micros : sum
    } catch {
      return sum // gone since the listing
    }
  }, 0)
