import { baseUrl } from "./TestApp.js"
import { Context, Effect, Layer } from "effect"
import * as fs from "node:fs"
import { type Browser, type BrowserContextOptions, chromium, type Page } from "playwright-core"

/** Debian's chromium, headless; never a downloaded browser. One per test file. */
class Chromium extends Context.Tag("test/Chromium")<Chromium, Browser>() {}
export const ChromiumLive = Layer.scoped(
  Chromium,
  Effect.acquireRelease(
    Effect.promise(() =>
      chromium.launch({
        executablePath: "/usr/bin/chromium",
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
export const axeViolations = async (page: Page): Promise<ReadonlyArray<AxeViolation>> => {
  await page.evaluate(axe())
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
