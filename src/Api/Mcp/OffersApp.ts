/**
 * The offers app: quote_stay's offers shown in the chat of a host that supports MCP Apps (the
 * `io.modelcontextprotocol/ui` extension, revision 2026-01-26, as `@modelcontextprotocol/ext-apps`
 * 2.0.4 speaks it), with the booking page's own offer cards and words, where the guest chooses one
 * (`public/offers-app.js`). quote_stay names the app in its `_meta.ui` for the hosts that declared the
 * extension; its result is the same for every client. The app is one HTML document, its script and
 * stylesheet inlined: the host renders it in a sandboxed frame, where it loads nothing.
 */
import { McpSchema } from "effect/ai"
import { Effect, Predicate, Record } from "effect"
import type { Plugin } from "esbuild"
import { readFile } from "node:fs/promises"
import { fileURLToPath } from "node:url"
import { escapeHtml } from "../../Domain/GuestEmails.js"
import type { RoomTypes } from "../../Domain/Hotel.js"
import type { Language } from "../../Domain/Language.js"
import { fillShell, guestPageModule, unknownShellTexts } from "../Handlers/GuestPageModule.js"
import { publicFile } from "../PublicFiles.js"

/** The extension's name, under which a client declares it in its capabilities' `extensions`. */
export const APPS_EXTENSION = "io.modelcontextprotocol/ui"
/** The type of an app's HTML, which a client lists in the extension's `mimeTypes`. */
export const APP_MIME_TYPE = "text/html;profile=mcp-app"
export const OFFERS_APP_URI = "ui://hotel/offers.html"

/**
 * Whether a client's capabilities declare MCP Apps with HTML views (the extension's `mimeTypes`
 * holding `APP_MIME_TYPE`): `initialize`'s capabilities in the 2025 revisions, a request's own in
 * 2026-07-28.
 */
export const declaresApps = (capabilities: unknown): boolean => {
  const extensions = Predicate.hasProperty(capabilities, "extensions") ? capabilities.extensions : undefined
  const apps = Predicate.hasProperty(extensions, APPS_EXTENSION) ? extensions[APPS_EXTENSION] : undefined
  return Predicate.hasProperty(apps, "mimeTypes") && Array.isArray(apps.mimeTypes) && apps.mimeTypes.includes(APP_MIME_TYPE)
}

/**
 * What the app asks of the host's sandbox: nothing from elsewhere (no connection, no script, style,
 * font, image or frame of another origin: the extension's CSP lists, empty), and a border, as its
 * cards are drawn on the booking page's own background.
 */
const UI_META = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  prefersBorder: true
}

/** The app as `resources/list` describes it. */
export const OffersAppResource = new McpSchema.Resource({
  uri: OFFERS_APP_URI,
  name: "Offers",
  title: "The quote's offers, to choose one",
  description: "The MCP App (io.modelcontextprotocol/ui) that shows quote_stay's offers as the hotel's booking page does and lets " +
    "the guest choose one, which calls create_reservation_intent through the host (HTML, self-contained).",
  mimeType: APP_MIME_TYPE,
  annotations: {},
  _meta: { ui: UI_META }
})

/** The quote tool, whose results the app shows. */
const QUOTE_TOOL = "quote_stay"

/**
 * The tools as `tools/list` describes them to a client that declared the extension: quote_stay names
 * the app (`_meta.ui.resourceUri`, and the older flat key that hosts before the 2026-01-26 revision
 * read, as the extension's `registerAppTool` writes both). Every tool stays visible to the model and
 * the app alike (the default): the app calls create_reservation_intent.
 */
export const withOffersApp = (tools: ReadonlyArray<McpSchema.Tool>): ReadonlyArray<McpSchema.Tool> =>
  tools.map((tool) =>
    tool.name === QUOTE_TOOL
      ? new McpSchema.Tool({ ...tool, _meta: { ...tool._meta, ui: { resourceUri: OFFERS_APP_URI }, "ui/resourceUri": OFFERS_APP_URI } })
      : tool
  )

// --- the document -------------------------------------------------------------------

const readPublic = (file: string) => Effect.promise(() => readFile(publicFile(file), "utf8"))

/** The catalog's module of the guest pages (`/assets/guest-i18n.js`), every language, for the bundle. */
const catalogModule: Plugin = {
  name: "guest-i18n",
  setup: (bundler) => {
    bundler.onResolve({ filter: /(^|\/)guest-i18n\.js$/ }, () => ({ path: "guest-i18n.js", namespace: "catalog" }))
    bundler.onLoad({ filter: /.*/, namespace: "catalog" }, () => ({ contents: guestPageModule(), loader: "js" }))
  }
}

/**
 * `public/offers-app.js` and the booking page's modules it imports, as one script: bundled at the
 * app's first read and kept for the process (every instance's layer shares it). Not at start: the
 * bundler takes most of a second, which no start, and no test of anything else, should pay.
 */
let bundled: Promise<string> | undefined
const appScript = Effect.promise(() =>
  bundled ??= import("esbuild").then(({ build }) =>
    build({
      entryPoints: [fileURLToPath(publicFile("offers-app.js"))],
      bundle: true,
      write: false,
      format: "esm",
      target: "es2020",
      minify: true,
      legalComments: "none",
      charset: "utf8",
      logLevel: "silent",
      plugins: [catalogModule]
    })
  ).then((result) => result.outputFiles[0]!.text)
)

/** A script inside `<script>`: nothing in it may close the element or open a comment. */
const inlineScript = (code: string) => code.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--")

const SLOTS = { style: "<style></style>", script: `<script type="module"></script>`, roomTypes: `data-room-types=""` } as const

/**
 * The app's document: `public/offers-app.html` with the guest pages' stylesheet and the app's script
 * inlined, and the hotel's room types in each language, by which the app names the quote's rooms.
 * The shell and the stylesheet are read when the layer is built (a missing file or slot stops the
 * start); the script is bundled at the first read.
 */
export const offersAppDocument = Effect.gen(function*() {
  const shell = yield* readPublic("offers-app.html")
  const unknown = unknownShellTexts(shell)
  if (unknown.length > 0) return yield* Effect.die(new Error(`public/offers-app.html names no text of the catalog: ${unknown.join(", ")}`))
  const missing = Object.values(SLOTS).filter((slot) => !shell.includes(slot))
  if (missing.length > 0) return yield* Effect.die(new Error(`public/offers-app.html has no ${missing.join(", ")}`))
  // in English until the app knows the guest's language
  const style = yield* readPublic("guest.css")
  // replaced by functions: a `$&` in the code or the data is text, not a pattern of `replace`
  const page = fillShell(shell, "en").replace(SLOTS.style, () => `<style>${style}</style>`)
  return (roomTypes: Record<Language, typeof RoomTypes.Type>): Effect.Effect<string> => {
    const listed = Record.map(roomTypes, ({ rooms }) => rooms.map(({ description, id, name }) => ({ id, name, description })))
    return Effect.map(appScript, (script) =>
      page
        .replace(SLOTS.script, () => `<script type="module">${inlineScript(script)}</script>`)
        .replace(SLOTS.roomTypes, () => `data-room-types="${escapeHtml(JSON.stringify(listed))}"`))
  }
})
