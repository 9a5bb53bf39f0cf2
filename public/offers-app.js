/* The quote's offers inside an AI assistant's chat: an MCP App (the io.modelcontextprotocol/ui
   extension, revision 2026-01-26), shown by the host in a sandboxed frame beside quote_stay's result.
   It shows the offers with the booking page's own cards and words (book-offers.js, guest-summary.js)
   and lets the guest choose one: the host calls create_reservation_intent for it, and the guest goes
   on at its continue_url. It talks only to the host, in JSON-RPC over postMessage, and loads nothing:
   the service inlines this module, the ones it imports and the stylesheet (src/Api/Mcp/OffersApp.ts). */
import { offerGroups, unavailableReasons } from "./book-offers.js"
import { el } from "./guest-dom.js"
import { fmtDate, fmtDateTime } from "./guest-format.js"
import { STRINGS } from "./guest-i18n.js"
import { roomLine, stayFacts } from "./guest-summary.js"
import { setLanguage, t } from "./guest-text.js"
import { appLanguage, intentArguments, intentOutcome, namedRooms, offerGroupsOf, quoteOf } from "./offers-app-model.js"

/** The extension's revision this app speaks. */
const PROTOCOL_VERSION = "2026-01-26"
const INTENT_TOOL = "create_reservation_intent"

const $main = document.getElementById("main")
const $title = document.getElementById("title")
const $status = document.getElementById("status")
const $content = document.getElementById("content")
/** The hotel's room types in each language ({ id, name, description }), as the service wrote them into the app. */
const ROOM_TYPES = JSON.parse($main.dataset.roomTypes || "{}")

// ---- JSON-RPC with the host ----
const host = window.parent
let lastId = 0
const waiting = new Map()
const post = (message) => host.postMessage({ jsonrpc: "2.0", ...message }, "*")
/** A request to the host; its answer's result, or a rejection with its error. */
const request = (method, params) =>
  new Promise((resolve, reject) => {
    const id = ++lastId
    waiting.set(id, { resolve, reject })
    post({ id, method, params })
  })
const notify = (method, params) => post({ method, params })

let hostContext = {}
let hostCapabilities = {}
let toolArguments = null
let shown = null

const languages = Object.keys(STRINGS)
/** The language from now on: the one quote_stay was asked in, else the host's. */
const useLanguage = () => {
  document.documentElement.lang = setLanguage(appLanguage(toolArguments, hostContext.locale, languages))
  document.title = $title.textContent = t("offersTitle")
}

window.addEventListener("message", (event) => {
  const message = event.data
  if (event.source !== host || !message || message.jsonrpc !== "2.0") return
  if (message.method === undefined) {
    const call = waiting.get(message.id)
    waiting.delete(message.id)
    if (call) "error" in message ? call.reject(message.error) : call.resolve(message.result)
    return
  }
  const params = message.params || {}
  switch (message.method) {
    case "ui/notifications/tool-input":
      toolArguments = params.arguments || {}
      useLanguage()
      if (shown) render(shown)
      break
    case "ui/notifications/tool-result":
      render(params)
      break
    case "ui/notifications/tool-cancelled":
      // no quote is coming: no longer looking for prices
      $status.textContent = ""
      break
    case "ui/notifications/host-context-changed":
      hostContext = { ...hostContext, ...params }
      break
    case "ui/resource-teardown":
    case "ping":
      post({ id: message.id, result: {} })
      break
    default:
      // a request this app does not serve is answered, never left waiting
      if (message.id !== undefined) post({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } })
  }
})

// ---- what the guest sees ----
const focusOn = (node) => {
  node.setAttribute("tabindex", "-1")
  node.focus()
}

/** quote_stay's result: its offers as the booking page shows them, or why there are none. */
function render(result) {
  shown = result
  const quote = quoteOf(result)
  $status.textContent = ""
  if (!quote) return $content.replaceChildren(el("p", { class: "notice notice-warn", id: "no-quote" }, t("appNoQuote")))
  const language = document.documentElement.lang
  const roomTypes = ROOM_TYPES[language] || []
  const groups = offerGroupsOf(quote, roomTypes)
  const stay = t("stayLine", { checkin: fmtDate(quote.stay.checkin), checkout: fmtDate(quote.stay.checkout), nights: t("nights", { n: quote.stay.nights }) })
  const facts = el(
    "section",
    { class: "card", id: "stay", "aria-labelledby": "stay-title" },
    el("h2", { id: "stay-title" }, t("yourStay")),
    el("dl", { class: "facts" }, stayFacts(quote.stay)),
    el("ul", { class: "rooms" }, namedRooms(quote, roomTypes).map(roomLine))
  )
  if (quote.status !== "available") {
    return $content.replaceChildren(
      el("section", { class: "notice notice-warn", id: "nothing-fits" }, el("h2", null, t("nothingFitsTitle")), el("p", null, stay), unavailableReasons(groups))
    )
  }
  const promoNote = quote.promo_code && !quote.promo_code.applied
    ? el("p", { class: "notice notice-warn", id: "promo-not-applied" }, t("promoNotApplied", quote.promo_code))
    : null
  const group = quote.not_reservable ? el("p", { class: "notice notice-warn", id: "group-booking" }, t("appGroupBooking")) : null
  $content.replaceChildren(...[facts, promoNote, group, ...offerGroups(groups, null, choose)].filter(Boolean))
  $status.textContent = t("offersFound", { n: quote.package_offers.length, stay })
}

/** The guest's choice: the intent, made by the host's call of the tool, then the way on. */
async function choose(quote, offer, button) {
  const buttons = [...$content.querySelectorAll("button.choose")]
  for (const b of buttons) b.disabled = true
  $status.textContent = t("choosing")
  const language = document.documentElement.lang
  const outcome = await request("tools/call", { name: INTENT_TOOL, arguments: intentArguments(quote, offer, language) }).then(intentOutcome, () => ({ failed: true }))
  $status.textContent = ""
  const card = button.closest("li")
  card.querySelector(".message")?.remove()
  if (outcome.continueUrl) return showContinue(card, outcome)
  if (outcome.failed) for (const b of buttons) b.disabled = false
  const message = el("p", { class: "message notice notice-error", role: "alert" }, t(outcome.stale ? "appQuoteChanged" : "failed"))
  card.append(message)
  if (outcome.failed) button.focus()
  else focusOn(message)
}

/** Where the guest goes on: the hotel's page of continue_url, opened by the host when it can. */
function showContinue(card, { continueUrl, expiresAt }) {
  const link = el("a", { href: continueUrl, target: "_blank", rel: "noopener", id: "continue-link" }, t("titleComplete"))
  if (hostCapabilities.openLinks) {
    link.addEventListener("click", (event) => {
      event.preventDefault()
      request("ui/open-link", { url: continueUrl }).catch(() => {})
    })
  }
  const next = el(
    "section",
    { class: "notice notice-ok", id: "continue", "aria-labelledby": "continue-title" },
    el("h2", { id: "continue-title" }, t("titleComplete")),
    el("p", null, t("appContinue")),
    el("p", null, link),
    expiresAt ? el("p", { class: "note" }, t("linkValid", { when: fmtDateTime(expiresAt) })) : null
  )
  card.append(next)
  link.focus()
}

// ---- start: the handshake, then the host sends the tool's input and result ----
/** The app's size, for a host that fits its frame to it. */
const reportSize = () => {
  const { width, height } = document.documentElement.getBoundingClientRect()
  notify("ui/notifications/size-changed", { width: Math.ceil(width), height: Math.ceil(height) })
}

useLanguage()
request("ui/initialize", {
  protocolVersion: PROTOCOL_VERSION,
  appInfo: { name: "hotel-offers", version: PROTOCOL_VERSION },
  appCapabilities: { availableDisplayModes: ["inline"] }
}).then((result) => {
  hostContext = result.hostContext || {}
  hostCapabilities = result.hostCapabilities || {}
  useLanguage()
  notify("ui/notifications/initialized", {})
  new ResizeObserver(reportSize).observe(document.documentElement)
})
