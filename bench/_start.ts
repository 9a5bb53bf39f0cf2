import { chmodSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { freePort, runBench, startArguments, startNode, stop, temporaryDataDir, waitHealthy } from "./service.js"
runBench(async () => {
  const dataDir = temporaryDataDir()
  chmodSync(dataDir, 0o711)
  for (let i = 0; i < Number(process.env["N"] ?? 3); i++) {
    const port = await freePort()
    writeFileSync(join(dataDir, "stdout.log"), "")
    const t0 = Date.now()
    const s = startNode([...(process.env["PROF"] ? ["--cpu-prof", "--cpu-prof-dir=/tmp/prof-start"] : []), ...startArguments(process.env["ROOT"] ?? undefined)], { PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir }, process.env["ROOT"] ?? undefined, dataDir)
    await waitHealthy(`http://127.0.0.1:${port}/v1/health`, s.child, s.output, 120000)
    const t1 = Date.now()
    console.log(`start ${i}: ${t1 - t0} ms`)
    if (i > 0) for (const line of readFileSync(join(dataDir, "stdout.log"), "utf8").split("\n").filter(Boolean)) {
      const e = JSON.parse(line); console.log(`  +${Date.parse(e.time) - t0} ${e.msg}`)
    }
    await stop(s.child)
  }
})
