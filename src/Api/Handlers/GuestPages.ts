import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { readFile } from "node:fs/promises"
import { acceptedLanguage, chooseLanguage, Language } from "../../Domain/Language.js"
import { escapeHtml } from "../../Domain/GuestEmails.js"
import type { RoomTypes } from "../../Domain/Hotel.js"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import { HotelCatalog, memoized } from "../../Services/HotelCatalog.js"
import { heavyDocument } from "./HeavyDocument.js"
import { searchForm } from "./BookSearchForm.js"
import { bookingWidgetModule, fillShell, guestPageModule, unknownShellTexts } from "./GuestPageModule.js"
import { publicFile } from "../PublicFiles.js"

/**
 * The guest pages load nothing from elsewhere and run no inline script or style; an injected
 * `<base>` cannot redirect their relative URLs, nor an injected form post elsewhere.
 */
export const GUEST_PAGE_CSP = "default-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

/**
 * The files of `public/` served under `/assets/`: an allow-list with one route each, so no file
 * path is ever built from a URL (the router decodes `%2F`). Anything else is a 404. The pages' words
 * and limits are not among them: `/assets/guest-i18n.js` is made from the catalog (`GUEST_MODULE_PATH`).
 */
const ASSETS: ReadonlyArray<readonly [file: string, contentType: string]> = [
  ["guest.css", "text/css; charset=utf-8"],
  ...[
    "guest-boot.js",
    "guest.js",
    "guest-text.js",
    "guest-format.js",
    "guest-dom.js",
    "guest-api.js",
    "guest-summary.js",
    "guest-form.js",
    "complete.js",
    "manage.js",
    "manage-change.js",
    "book.js",
    "book-search.js",
    "book-offers.js",
    "book-calendar.js",
    "book-alternatives.js",
    "book-alternatives-view.js"
  ].map((module) => [module, "text/javascript; charset=utf-8"] as const)
]

/** The guest pages: the guest link's (`continue_url`) and the confirmation email's manage link. */
const PAGES: ReadonlyArray<readonly [path: `/${string}`, file: string]> = [
  ["/complete", "complete.html"],
  ["/manage", "manage.html"]
]

/**
 * The booking page's CSP: the guest pages' own, except that the hotel's websites
 * (`BOOKING_WIDGET_ORIGINS`) may frame it.
 */
export const bookPageCsp = (hotelSites: ReadonlyArray<string>) =>
  GUEST_PAGE_CSP.replace("frame-ancestors 'none'", `frame-ancestors ${hotelSites.length === 0 ? "'none'" : hotelSites.join(" ")}`)

/** The widget of the hotel's websites and the module it imports: served to those sites' pages (CORS). */
const WIDGET_PATH = "/assets/booking-widget.js"
const WIDGET_DATA_PATH = "/assets/booking-widget-data.js"

/** The module the pages import for their words and limits, made once at start. */
const GUEST_MODULE_PATH = "/assets/guest-i18n.js"

/**
 * The booking page is served in one language, so its modules come from `/assets/<language>/`,
 * where `guest-i18n.js` holds that language's words alone (a third of the catalog's bytes: the
 * page's budget is 35 KB of compressed JavaScript and CSS). The other modules are the same files.
 */
const ONE_LANGUAGE_SCRIPTS = ASSETS.filter(([file]) => file.endsWith(".js"))
const oneLanguagePath = (language: Language, file: string) => `/assets/${language}/${file}` as const

/** The paths these pages and assets are served at. */
export const GUEST_PAGE_PATHS: ReadonlyArray<string> = [
  ...PAGES.map(([path]) => path),
  "/book",
  ...ASSETS.map(([file]) => `/assets/${file}`),
  GUEST_MODULE_PATH,
  ...Language.literals.flatMap((language) =>
    [...ONE_LANGUAGE_SCRIPTS.map(([file]) => file), "guest-i18n.js"].map((file) => oneLanguagePath(language, file))),
  WIDGET_PATH,
  WIDGET_DATA_PATH
]

/** Read once, when the layer is built: a missing file stops the start (a defect naming the path). */
const readPublic = (file: string) => Effect.promise(() => readFile(publicFile(file)))

/**
 * What the page shells share, written once (`public/guest-head.html`, `guest-failure.html`,
 * `guest-modules.html`): a shell's `{{>piece.html}}` line stands for that file of `public/`.
 */
const SHELL_PIECE = /^\{\{>([\w-]+\.html)\}\}\n/gm

/**
 * A page shell, its pieces in place, with the catalog's words in each language (the page switches to
 * the reservation's language once it has it); a `{{key}}` of none stops the start.
 */
const readShell = (file: string) =>
  Effect.gen(function*() {
    let html = new TextDecoder().decode(yield* readPublic(file))
    for (const [line, piece] of [...html.matchAll(SHELL_PIECE)]) {
      const text = new TextDecoder().decode(yield* readPublic(piece!))
      html = html.replace(line, () => text)
    }
    const unknown = unknownShellTexts(html)
    if (unknown.length > 0) return yield* Effect.die(new Error(`public/${file} names no text of the catalog: ${unknown.join(", ")}`))
    const filled = new Map(Language.literals.map((language) => [language, new TextEncoder().encode(fillShell(html, language))]))
    return (language: Language) => filled.get(language)!
  })

const page = (body: Uint8Array, contentType: string, headers: Record<string, string>) =>
  HttpServerResponse.uint8Array(body, {
    contentType,
    headers: { ...headers, "content-security-policy": GUEST_PAGE_CSP }
  })

/**
 * A widget file, for the pages of `hotelSites` (`BOOKING_WIDGET_ORIGINS`): a module script from
 * another origin loads only with CORS. No credentials are asked for or allowed.
 */
const widgetAsset = (body: Uint8Array, hotelSites: ReadonlyArray<string>) =>
  HttpServerRequest.HttpServerRequest.useSync((request) => {
    const origin = request.headers["origin"]
    const allowed = hotelSites.includes("*") ? "*" : origin !== undefined && hotelSites.includes(origin) ? origin : undefined
    return HttpServerResponse.uint8Array(body, {
      contentType: "text/javascript; charset=utf-8",
      headers: {
        "cache-control": "no-cache",
        "content-security-policy": GUEST_PAGE_CSP,
        vary: "Origin",
        ...(allowed === undefined ? {} : { "access-control-allow-origin": allowed })
      }
    })
  })

/** Where the booking page's shell takes the hotel's room types (`data-room-types` of its `<main>`). */
const ROOM_TYPES_SLOT = `data-room-types=""`
/** Where it takes the search form, filled from the request's query. */
const SEARCH_SLOT = `<div id="search"></div>`

/**
 * `/book` in the guest's language: its `lang` parameter, else the browser's Accept-Language, else
 * English. The page carries the hotel's room types (id, name and description in that language) so
 * that a deep link's quotes start at once: its offers are one API round trip away; and its search
 * form, filled from the deep link, which searches even without the page's script. The shell is made
 * once per hotel definition and language, the form per request.
 */
const bookPage = Effect.gen(function*() {
  const { bookingWidgetOrigins } = yield* AppConfig
  const catalog = yield* HotelCatalog
  const csp = bookPageCsp(bookingWidgetOrigins)
  const shell = yield* readShell("book.html")
  const pages = new Map(Language.literals.map((language) => {
    const html = new TextDecoder().decode(shell(language))
    for (const slot of [ROOM_TYPES_SLOT, SEARCH_SLOT]) if (!html.includes(slot)) throw new Error(`public/book.html has no ${slot}`)
    const withTypes = memoized((types: typeof RoomTypes.Type) => {
      const listed = types.rooms.map(({ id, name, description }) => ({ id, name, description }))
      const [before, after] = html.replace(ROOM_TYPES_SLOT, `data-room-types="${escapeHtml(JSON.stringify(listed))}"`).split(SEARCH_SLOT)
      return { listed, before: `${before}<div id="search">`, after: `</div>${after}` }
    })
    return [language, withTypes] as const
  }))
  /** The answer to one request of `/book`. */
  return (request: HttpServerRequest.HttpServerRequest) => {
    const query = new URL(request.url, "http://book").searchParams
    const language = chooseLanguage(query.get("lang") ?? undefined, request.headers["accept-language"])
    return Effect.map(catalog.roomTypes(language), (types) => {
      const { after, before, listed } = pages.get(language)!(types)
      return HttpServerResponse.text(`${before}${searchForm(language, query, listed)}${after}`, {
        contentType: "text/html; charset=utf-8",
        headers: { "cache-control": "no-store", "content-security-policy": csp, vary: "Accept-Language" }
      })
    })
  }
})

/**
 * `/complete` (the guest-completion page of `continue_url`, `/complete#token=…`) and `/manage` (the
 * confirmation email's link, `/manage#token=…`): plain HTML with their stylesheet and scripts. The
 * token stays in the fragment: it never reaches the server's logs.
 */
export const GuestPagesLive = HttpRouter.use((router) =>
  Effect.gen(function*() {
    for (const [path, file] of PAGES) {
      const shell = yield* readShell(file)
      // in the browser's language: the words a guest reads before, or without, the page's scripts
      const html = HttpServerRequest.HttpServerRequest.useSync((request) =>
        page(shell(acceptedLanguage(request.headers["accept-language"])), "text/html; charset=utf-8", {
          "cache-control": "no-store",
          vary: "Accept-Language"
        }))
      yield* router.add("GET", path, html)
    }
    // the pages' files, compressed once (the booking page's budget is in compressed bytes); a
    // browser asks again each time (no-cache), and a 304 answers when it has them
    const own = { "cache-control": "no-cache", "content-security-policy": GUEST_PAGE_CSP }
    for (const [file, contentType] of ASSETS) {
      const asset = yield* heavyDocument(contentType, yield* readPublic(file), own)
      yield* router.add("GET", `/assets/${file}`, asset)
      if (file.endsWith(".js")) for (const language of Language.literals) yield* router.add("GET", oneLanguagePath(language, file), asset)
    }
    for (const language of Language.literals) {
      const words = yield* heavyDocument("text/javascript; charset=utf-8", new TextEncoder().encode(guestPageModule(language)), own)
      yield* router.add("GET", oneLanguagePath(language, "guest-i18n.js"), words)
    }
    yield* router.add("GET", "/book", Effect.flatMap(HttpServerRequest.HttpServerRequest, yield* bookPage))
    const { bookingWidgetOrigins } = yield* AppConfig
    const style = new TextDecoder().decode(yield* readPublic("booking-widget.css"))
    yield* router.add("GET", WIDGET_PATH, widgetAsset(yield* readPublic("booking-widget.js"), bookingWidgetOrigins))
    yield* router.add("GET", WIDGET_DATA_PATH, widgetAsset(new TextEncoder().encode(bookingWidgetModule(style)), bookingWidgetOrigins))
    const module = yield* heavyDocument("text/javascript; charset=utf-8", new TextEncoder().encode(guestPageModule()), own)
    yield* router.add("GET", GUEST_MODULE_PATH, module)
  })
)
