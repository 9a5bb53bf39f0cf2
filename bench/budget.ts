/**
 * `npm run bench:budget`: what a ratio to bare `node:http` allows a request to cost. The bare
 * server of every ratio (`startBare`), made to spend `SPINS` µs of CPU on each request in a busy
 * loop before it answers, under the same load as `npm run bench` (50 connections, 2 s warm-up then
 * `BENCH_SECONDS`): its req/s, its ratio to the bare server that spins none, its CPU µs a request
 * and what of it is not the spin (node:http and the kernel's socket work, which grows as the load
 * generator waits longer between answers). Then, in the same window, the framework alone
 * (`bench/minimalApi.ts`: Effect's HttpApi with one endpoint and no middleware) and the service's
 * GET /v1/hotel and two-room quote (its production limits, the rate limit at a figure no run
 * reaches), each with its CPU µs a request and the spin it runs like; and for each ratio the spin
 * it allows: the CPU a request may spend beyond a bare server's own to reach it, read between the
 * measured spins. Last, a bare server sending GET /v1/hotel's very answer (its body and headers):
 * what of the read's ratio is what it sends, not what makes it. Each row splits its CPU into user
 * space and the kernel (on loopback, each answer's write runs the receiving side's TCP too).
 */
import type autocannon from "autocannon"
import { measureWithCpu, SECONDS, table, twoRoomQuote } from "./load.js"
import { type BareAnswer, runBench, startBare, startHttpChild, startService, stop } from "./service.js"

const SPINS = [0, 10, 20, 40, 80, 160, 320, 640]
const RATIOS = [0.5, 0.1]
/** Headers Node writes itself, or that describe this one connection, not the answer. */
const NOT_THE_ANSWERS = new Set(["date", "connection", "keep-alive", "transfer-encoding"])

/** The service's answer at `url`, as a bare server would send it (`startBare`). */
const answerAt = async (url: string): Promise<BareAnswer> => {
  const response = await fetch(url)
  const headers = Object.fromEntries([...response.headers].filter(([name]) => !NOT_THE_ANSWERS.has(name)))
  return { headers, body: await response.text() }
}

/**
 * The spin at which the bare server answers `rps` a second, read linearly in the time a request
 * takes (1 / rps) between the two measured spins around it; undefined outside them.
 */
const spinForRate = (measured: ReadonlyArray<{ readonly spin: number; readonly rps: number }>, rps: number) => {
  for (let i = 1; i < measured.length; i++) {
    const faster = measured[i - 1]!
    const slower = measured[i]!
    if (rps <= faster.rps && rps >= slower.rps) {
      const share = (1 / rps - 1 / faster.rps) / (1 / slower.rps - 1 / faster.rps)
      return faster.spin + share * (slower.spin - faster.spin)
    }
  }
  return undefined
}

runBench(async () => {
  const rows: Array<Array<string>> = []
  const bare: Array<{ spin: number; rps: number }> = []
  /**
   * The server `name` (process `pid`) under the load `opts`: its row, the last cell `last` of its
   * req/s and CPU µs a request, each ratio to the bare server that spins none (the first). Its req/s.
   */
  const measureRow = async (name: string, pid: number, opts: autocannon.Options, last: (rps: number, micros: number) => string) => {
    console.error(`${name}: ${SECONDS} s…`)
    const { kernelMicros, micros, rps, userMicros } = await measureWithCpu(opts, 50, pid)
    const ratio = rps / (bare[0]?.rps ?? rps)
    rows.push([name, rps.toFixed(0), ratio.toFixed(3), micros.toFixed(0), userMicros.toFixed(0), kernelMicros.toFixed(0), last(rps, micros)])
    return rps
  }
  for (const spin of SPINS) {
    const server = await startBare(spin)
    const rps = await measureRow(`bare node:http, ${spin} µs spin`, server.child.pid!, { url: server.url }, (_, micros) => (micros - spin).toFixed(0))
    await stop(server.child)
    bare.push({ spin, rps })
  }
  const spinAt = (rps: number) => spinForRate(bare, rps)
  const measureServer = (name: string, pid: number, opts: autocannon.Options) =>
    measureRow(name, pid, opts, (rps) => {
      const spin = spinAt(rps)
      return `as a ${spin === undefined ? "?" : spin.toFixed(0)} µs spin`
    })
  const minimal = await startHttpChild((port) => ["--import", "tsx", "bench/minimalApi.ts", String(port)])
  await measureServer("Effect HttpApi, one endpoint, no middleware", minimal.child.pid!, { url: minimal.url })
  await stop(minimal.child)
  const service = await startService({ RATE_LIMIT_PER_MINUTE: "1000000" })
  const hotelAnswer = await answerAt(`${service.base}/v1/hotel`)
  await measureServer("GET /v1/hotel", service.child.pid!, { url: `${service.base}/v1/hotel` })
  await measureServer("POST /v1/quotes (2 rooms)", service.child.pid!, twoRoomQuote(service.base))
  await stop(service.child)
  const sameAnswer = await startBare(0, hotelAnswer)
  await measureServer("bare node:http, GET /v1/hotel's answer", sameAnswer.child.pid!, { url: sameAnswer.url })
  await stop(sameAnswer.child)
  const result = table(["server", "req/s", "vs bare", "CPU µs a request", "user", "kernel", "beyond the spin"], rows)
  console.log(result.text)
  const allowed = RATIOS.map((ratio) => {
    const spin = spinAt(ratio * bare[0]!.rps)
    return `${ratio} of bare: ${spin === undefined ? `more than ${SPINS.at(-1)} µs` : `${spin.toFixed(0)} µs`}`
  })
  console.log(`\nCPU a request may spend beyond a bare server's to reach a ratio (the spin at that rate): ${allowed.join("; ")}.\n`)
  console.log(result.markdown)
})
