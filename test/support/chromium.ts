import * as fs from "node:fs"
import * as path from "node:path"

/** Where a developer's Chromium or Chrome usually is, after CHROMIUM_PATH; never a downloaded browser. */
export const USUAL_PLACES: ReadonlyArray<string> = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/opt/google/chrome/chrome",
  "/snap/bin/chromium",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"
]
const COMMANDS = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]

const isExecutable = (file: string) => {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

export type ChromiumSearch =
  | { readonly found: true; readonly path: string }
  | { readonly found: false; readonly why: string }

/**
 * The browser the tests drive: CHROMIUM_PATH when it is set (and only it, so that it can also
 * point at nothing to run without a browser), else the first of the usual places, then of PATH.
 */
export const findChromium = (env: NodeJS.ProcessEnv, places = USUAL_PLACES): ChromiumSearch => {
  const chosen = env["CHROMIUM_PATH"]
  if (chosen !== undefined && chosen !== "") {
    return isExecutable(chosen)
      ? { found: true, path: chosen }
      : { found: false, why: `CHROMIUM_PATH=${chosen} is not an executable file` }
  }
  const onPath = (env["PATH"] ?? "").split(path.delimiter).filter((dir) => dir !== "")
    .flatMap((dir) => COMMANDS.map((command) => path.join(dir, command)))
  const file = [...places, ...onPath].find(isExecutable)
  return file !== undefined
    ? { found: true, path: file }
    : { found: false, why: `no Chromium or Chrome (looked at /usr/bin/chromium, /opt/google/chrome and PATH)` }
}
