import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { findChromium } from "./chromium.js"

/** A folder holding an executable file named `name`, as an install would put it on PATH. */
const folderWith = (name: string) => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "chromium-"))
  fs.writeFileSync(path.join(folder, name), "#!/bin/sh\n", { mode: 0o755 })
  return folder
}

describe("findChromium", () => {
  it("takes CHROMIUM_PATH when it is an executable", () => {
    expect(findChromium({ CHROMIUM_PATH: process.execPath })).toEqual({ found: true, path: process.execPath })
  })

  it("takes only CHROMIUM_PATH when it is set: pointing at nothing, it says so and looks nowhere else", () => {
    const onPath = folderWith("chromium")
    expect(findChromium({ CHROMIUM_PATH: "/nonexistent", PATH: onPath })).toEqual({
      found: false,
      why: "CHROMIUM_PATH=/nonexistent is not an executable file"
    })
  })

  it("looks at the usual places first, then for a chromium or google-chrome command on PATH", () => {
    const usual = path.join(folderWith("chrome"), "chrome")
    for (const command of ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]) {
      const onPath = folderWith(command)
      const PATH = ["/nonexistent", onPath].join(path.delimiter)
      expect(findChromium({ PATH }, [])).toEqual({ found: true, path: path.join(onPath, command) })
      expect(findChromium({ PATH }, ["/nonexistent/chromium", usual])).toEqual({ found: true, path: usual })
    }
  })

  it("without one anywhere, says where it looked", () => {
    expect(findChromium({ PATH: "/nonexistent" }, [])).toEqual({
      found: false,
      why: "no Chromium or Chrome (looked at /usr/bin/chromium, /opt/google/chrome and PATH)"
    })
  })

  it("ignores a file that is not executable", () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "chromium-"))
    fs.writeFileSync(path.join(folder, "chromium"), "", { mode: 0o644 })
    expect(findChromium({ CHROMIUM_PATH: path.join(folder, "chromium") }).found).toBe(false)
  })
})
