import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { freePort, freshDatabase, runBench, sleep, startNode, stop, temporaryDataDir, waitHealthy } from "./service.js"
const variants: Array<Array<string>> = [
  ["--enable-source-maps", "--max-semi-space-size=64", "--no-allocation-site-pretenuring"],
  ["--enable-source-maps", "--no-allocation-site-pretenuring"],
  ["--enable-source-maps", "--max-semi-space-size=64", "--no-allocation-site-pretenuring", "--max-old-space-size=256"],
]
runBench(async () => {
  for (let r = 0; r < 2; r++) for (const flags of variants) {
    const port = await freePort()
    const dataDir = temporaryDataDir()
    const s = startNode([...flags, "dist/main.js"], { DATABASE_URL: await freshDatabase(), APP_SECRET: randomBytes(32).toString("base64url"), PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir }, undefined, dataDir)
    await waitHealthy(`http://127.0.0.1:${port}/v1/health`, s.child, s.output)
    await sleep(3000)
    const roll = readFileSync(`/proc/${s.child.pid}/smaps_rollup`, "utf8")
    const f = (k: string) => (Number(new RegExp(`^${k}:\\s+(\\d+)`, "m").exec(roll)?.[1]) / 1024).toFixed(1)
    console.log(flags.join(" "), "rss", f("Rss"), "pss", f("Pss"), "anon", f("Anonymous"), "file", (Number(f("Rss")) - Number(f("Anonymous"))).toFixed(1))
    await stop(s.child)
  }
})
