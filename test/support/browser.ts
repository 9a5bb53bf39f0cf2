import { baseUrl } from "./TestApp.js"
import { layer, type Vitest } from "@effect/vitest"
import { Context, Duration, Effect, Layer } from "effect"
import * as fs from "node:fs"
import { type Browser, type BrowserContextOptions, chromium, type Frame, type Page } from "playwright-core"
import { describe, inject } from "vitest"

/** The developer's Chromium, or why there is none: test/support/globalSetup.ts looked for it. */
const CHROMIUM = inject("chromium")

/** Its path; with REQUIRE_BROWSER=1 and none, the browser tests fail here, saying why. */
const chromiumPath = () => {
  if (CHROMIUM.found) return CHROMIUM.path
  throw new Error(`REQUIRE_BROWSER=1 but ${CHROMIUM.why}: apt-get install chromium, or set CHROMIUM_PATH`)
}

/** That Chromium, headless; never a downloaded browser. One per test file. */
class Chromium extends Context.Service<Chromium, Browser>()("test/Chromium") {}
const ChromiumLive = Layer.effect(
  Chromium,
  Effect.acquireRelease(
    Effect.promise(() =>
      chromium.launch({
        executablePath: chromiumPath(),
        args: [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync"
        ]
      })
    ),
    (browser) => Effect.promise(() => browser.close())
  )
)

/**
 * The tests of `name` on `app` and Chromium. Without a Chromium they are skipped (the global setup
 * said why, once for the run), or fail when REQUIRE_BROWSER=1; skipped, the layer is never built.
 */
export const layerWithChromium =
  <R, E>(app: Layer.Layer<R, E>, options?: { readonly timeout?: Duration.Input }) =>
  (name: string, tests: (it: Vitest.MethodsNonLive<R | Chromium>) => void) =>
    describe.skipIf(!CHROMIUM.found && !CHROMIUM.required)(name, () =>
      layer(Layer.merge(app, ChromiumLive), { ...options, excludeTestServices: true })(tests))

export { baseUrl } from "./TestApp.js"

/** A link of the service (PUBLIC_BASE_URL/…) opened on the in-process server: same path and fragment. */
export const onTestServer = (link: string) =>
  Effect.map(baseUrl, (base) => {
    const url = new URL(link)
    return `${base}${url.pathname}${url.search}${url.hash}`
  })

export const PHONE = { width: 375, height: 812 } as const
export const DESKTOP = { width: 1280, height: 800 } as const

/** Runs `use` on a fresh page of its own (an English browser unless told), closed afterwards. */
export const onPage = <A>(options: BrowserContextOptions, use: (page: Page) => Promise<A>) =>
  Effect.gen(function*() {
    const browser = yield* Chromium
    return yield* Effect.acquireUseRelease(
      Effect.promise(() => browser.newContext({ viewport: PHONE, locale: "en-US", acceptDownloads: true, ...options })),
      (context) => Effect.promise(async () => use(await context.newPage())),
      (context) => Effect.promise(() => context.close())
    )
  })

// ---- artifacts: kept by CI, ignored by git ----
const ARTIFACTS = new URL("../../test-artifacts/", import.meta.url)

/** A full-page screenshot at test-artifacts/screenshots/<name>.png; answers the file's path. */
export const screenshot = async (page: Page, name: string): Promise<string> => {
  const file = new URL(`screenshots/${name}.png`, ARTIFACTS)
  fs.mkdirSync(new URL("screenshots/", ARTIFACTS), { recursive: true })
  await page.screenshot({ path: file.pathname, fullPage: true })
  return `test-artifacts/screenshots/${name}.png`
}

// ---- accessibility: axe-core, from the project's devDependencies ----
const AXE_PATH = process.env["AXE_CORE_PATH"] ?? new URL("../../node_modules/axe-core/axe.min.js", import.meta.url).pathname
let axeSource: string | undefined
const axe = () => {
  if (axeSource === undefined) {
    if (!fs.existsSync(AXE_PATH)) {
      throw new Error(`axe-core is not installed (${AXE_PATH}): add it with npm install -D axe-core`)
    }
    axeSource = fs.readFileSync(AXE_PATH, "utf8")
  }
  return axeSource
}

const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]

export interface AxeViolation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly targets: ReadonlyArray<string>
}

/**
 * Every axe-core violation of the page as it is now (WCAG 2.x A and AA rules and best practices).
 * The script is evaluated through the DevTools protocol, which the page's strict CSP does not govern.
 */
export const axeViolations = async (page: Page | Frame): Promise<ReadonlyArray<AxeViolation>> => {
  // once per document: parsing axe's half megabyte takes seconds on a busy machine
  if (!(await page.evaluate<boolean>("typeof axe === 'object' && typeof axe.run === 'function'"))) await page.evaluate(axe())
  // runs in the page (the tests compile without the DOM library: the script is a string)
  return page.evaluate<ReadonlyArray<AxeViolation>>(`
    axe.run(document, { runOnly: { type: "tag", values: ${JSON.stringify(AXE_TAGS)} } }).then((result) =>
      result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(" ")) })))
  `)
}
/** What axe found per page and language, written to test-artifacts/axe/<name>.json for the CI's artifacts. */
export const recordAxe = (name: string, violations: ReadonlyArray<AxeViolation>) => {
  fs.mkdirSync(new URL("axe/", ARTIFACTS), { recursive: true })
  fs.writeFileSync(new URL(`axe/${name}.json`, ARTIFACTS), JSON.stringify(violations, null, 2))
}

// ---- the words a page shows: its text, title and the names given in attributes ----
export const pageWords = (page: Page): Promise<string> =>
  page.evaluate<string>(`[
    document.title,
    document.body.innerText,
    ...[...document.querySelectorAll("[aria-label],[title],[placeholder],[alt]")].flatMap((e) =>
      ["aria-label", "title", "placeholder", "alt"].map((a) => e.getAttribute(a) || ""))
  ].join("\\n")`)
