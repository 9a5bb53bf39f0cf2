import type { TestProject } from "vitest/node"
import { type ChromiumSearch, findChromium } from "./chromium.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** The Chromium the browser tests drive, or why there is none; `required` when REQUIRE_BROWSER=1. */
    readonly chromium: ChromiumSearch & { readonly required: boolean }
  }
}

/**
 * Looks for Chromium once per run. Without one the browser tests are skipped and this says so in
 * one line; with REQUIRE_BROWSER=1 (CI) they fail instead, saying why.
 */
export default function setup(project: TestProject) {
  const chromium = findChromium(process.env)
  const required = process.env["REQUIRE_BROWSER"] === "1"
  if (!chromium.found && !required) {
    console.warn(
      `Browser tests (test/Browser) skipped: ${chromium.why}. To run them: apt-get install chromium, or set CHROMIUM_PATH to a Chromium or Chrome.`
    )
  }
  project.provide("chromium", { ...chromium, required })
}
