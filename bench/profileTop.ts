/**
 * `npx tsx bench/profileTop.ts FILE.cpuprofile [N] [SKIP_SECONDS]`: the top of a V8 CPU profile
 * (from a bench run with `BENCH_PROFILE=DIR`): the N functions (default 30) with the most self
 * time, then the packages and files with the most, each as a share of the samples the process was
 * not idle. The samples of the first SKIP_SECONDS (default 0: the start-up and its module loading)
 * are left out.
 */
import { existsSync, readFileSync } from "node:fs"
import { SourceMap, type SourceMapping } from "node:module"
import { fileURLToPath } from "node:url"

interface ProfileNode {
  readonly id: number
  readonly callFrame: {
    readonly functionName: string
    readonly url: string
    readonly lineNumber: number
    readonly columnNumber: number
  }
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  /** µs between one sample and the one before it. */
  readonly timeDeltas: ReadonlyArray<number>
}

const [file, count = "30", skipSeconds = "0"] = process.argv.slice(2)
if (file === undefined) throw new Error("usage: tsx bench/profileTop.ts FILE.cpuprofile [N] [SKIP_SECONDS]")
const profile: Profile = JSON.parse(readFileSync(file, "utf8"))
const byId = new Map(profile.nodes.map((node) => [node.id, node]))
const selfSamples = new Map<number, number>()
let elapsedMicros = 0
profile.samples.forEach((id, i) => {
  elapsedMicros += profile.timeDeltas[i] ?? 0
  if (elapsedMicros >= Number(skipSeconds) * 1e6) selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1)
})

/** node_modules/<package> (scoped too), or the file's path from src/ or dist/, or V8's own. */
const where = (url: string) => {
  if (url === "") return "(native)"
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg !== null) return pkg[1]!
  const own = /\/(?:src|dist)\/(.+)$/.exec(url)
  return own !== null ? own[1]! : url.replace(/^.*\//, "")
}

/**
 * A bundled file's full source map (`dist/*.js.full.map`, which maps the packages too: the one Node
 * reads maps src/ alone), read once; none for a file without one.
 */
const sourceMaps = new Map<string, SourceMap | undefined>()
const sourceMapOf = (url: string) => {
  if (!sourceMaps.has(url)) {
    const file = `${url.startsWith("file:") ? fileURLToPath(url) : url}.full.map`
    sourceMaps.set(url, existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, "utf8"))) : undefined)
  }
  return sourceMaps.get(url)
}

/** The frame's place in the source it was bundled from (`npm run build` bundles `dist/`), else its own. */
const original = ({ columnNumber, lineNumber, url }: ProfileNode["callFrame"]) => {
  const entry: Partial<SourceMapping> = (url === "" ? undefined : sourceMapOf(url)?.findEntry(lineNumber, columnNumber)) ?? {}
  return entry.originalSource !== undefined && entry.originalLine !== undefined
    ? { url: entry.originalSource, lineNumber: entry.originalLine }
    : { url, lineNumber }
}

const functions = new Map<string, number>()
const places = new Map<string, number>()
let idle = 0
let total = 0
for (const [id, n] of selfSamples) {
  const { callFrame } = byId.get(id)!
  if (callFrame.functionName === "(idle)") {
    idle += n
    continue
  }
  total += n
  const { lineNumber, url } = original(callFrame)
  const name = `${callFrame.functionName || "(anonymous)"} ${where(url)}:${lineNumber + 1}`
  functions.set(name, (functions.get(name) ?? 0) + n)
  places.set(where(url), (places.get(where(url)) ?? 0) + n)
}
const top = (counts: Map<string, number>) =>
  [...counts].sort((a, b) => b[1] - a[1]).slice(0, Number(count)).map(([name, n]) => `${(100 * n / total).toFixed(1).padStart(5)} %  ${name}`)
console.log(`${total} samples busy, ${idle} idle (${(100 * idle / (idle + total)).toFixed(0)} % idle)\n`)
console.log(`functions, self time:\n${top(functions).join("\n")}\n`)
console.log(`packages and files, self time:\n${top(places).join("\n")}`)
