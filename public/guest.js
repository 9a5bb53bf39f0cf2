/* The frame both guest pages share: the title and language, the hotel's header, the status line
   and the content area with its notices and messages. What goes in it comes from the other
   guest-*.js modules: words, formats, DOM building, API calls, the summary, the form fields.
   Plain ES2020 modules, no dependencies. */
import { fetchHotel, NO_ANSWER } from "./guest-api.js"
import { el } from "./guest-dom.js"
import { countryName } from "./guest-format.js"
import { LIMITS } from "./guest-i18n.js"
import { setLanguage, t } from "./guest-text.js"

// the stylesheet's own notice, for when no script runs at all: the page's does (guest-boot.js may not have)
document.getElementById("page-stalled")?.remove()

let titleKey = "titleComplete"
let hotel = null

const $title = document.getElementById("title")
const $status = document.getElementById("status")
const $content = document.getElementById("content")
const $hotel = document.getElementById("hotel")
export const setStatus = (text) => { $status.textContent = text }

/** The page's language from now on: the words, the title and the hotel's header follow it. */
export const useLanguage = (language) => {
  document.documentElement.lang = setLanguage(language)
  document.title = hotel ? `${t(titleKey)} · ${hotel.name}` : t(titleKey)
  $title.textContent = t(titleKey)
  renderHotel()
}

// ---- the hotel: its name and how to reach it, at the top of every page ----
function renderHotel() {
  if (!hotel || !$hotel) return
  const { name, address, contact } = hotel
  const link = (href, text) => el("a", { href }, text)
  $hotel.replaceChildren(
    el("p", { class: "hotel-name" }, name),
    el("p", { class: "hotel-address" }, `${address.street}, ${address.postal_code} ${address.city}, ${countryName(address.country)}`),
    el(
      "ul",
      { class: "hotel-contact", "aria-label": t("hotelContact") },
      el("li", null, `${t("phone")}: `, link(`tel:${contact.phone.replace(/[^+\d]/g, "")}`, contact.phone)),
      el("li", null, `${t("email")}: `, link(`mailto:${contact.email}`, contact.email)),
      el("li", null, `${t("hotelWebsite")}: `, link(contact.website, contact.website.replace(/^https?:\/\//, "")))
    )
  )
  $hotel.hidden = false
}

/** The page's title key; the hotel's facts (public, no token) are fetched meanwhile. */
export const startPage = (key) => {
  titleKey = key
  useLanguage()
  return answered(fetchHotel).then((res) => {
    hotel = res.ok ? res.body : null
    useLanguage()
  })
}

// ---- content ----
/** Replaces the page's content; moves focus to the new heading so keyboard and screen-reader users follow. */
export const show = (...nodes) => {
  setStatus("")
  $content.replaceChildren(...nodes.filter((node) => node !== null && node !== undefined))
  const heading = $content.querySelector("[data-focus]")
  if (heading) heading.focus()
}
export const notice = (kind, title, ...body) =>
  el("section", { class: `notice notice-${kind}`, id: `notice-${kind}` }, el("h2", { tabindex: -1, "data-focus": true }, title), ...body)

/** A lapsed or unknown link: what happened and what to do next. */
export const showInvalid = (textKey) =>
  show(el("div", { id: "invalid-link" }, notice("error", t("invalidTitle"), el("p", null, t(textKey)))))

/** The reservation could not be had for a reason that trying again will not cure soon. */
export const showLoadError = (retry) =>
  show(notice("error", t("loadError"), el("p", null, el("button", { type: "button", class: "secondary", onclick: retry }, t("retry")))))

/**
 * A message slot whose text is set after it is on the page, so that screen readers announce it:
 * `role=alert` for errors, `role=status` otherwise.
 */
export const messageSlot = (id) => el("div", { id, class: "message", tabindex: -1 })
export const say = (slot, kind, ...nodes) => {
  slot.setAttribute("role", kind === "error" ? "alert" : "status")
  slot.className = `message notice notice-${kind}`
  const shown = slot.className
  // not when the slot was cleared (or said otherwise) before the frame: its words would outlive it
  requestAnimationFrame(() => {
    if (slot.className === shown) slot.replaceChildren(...nodes.map((n) => (typeof n === "string" ? el("p", null, n) : n)))
  })
}
/** Focuses `node` once what `say` shows is on the page: an empty notice is not shown, so cannot take focus. */
export const focusSoon = (node) => requestAnimationFrame(() => requestAnimationFrame(() => node.focus()))
export const clear = (slot) => {
  slot.className = "message"
  slot.replaceChildren()
}

// ---- calls that fail for a while: said, with a Try again that makes only those calls again ----

/** Where the page says that a call of its own (not one of a form's) failed: under the status line. */
const pageSlot = messageSlot("call-failure")
$content.before(pageSlot)

/** A failure that trying again may cure: no answer (the network, or too slow), a busy or failing service. */
const passing = (res, own) => !own(res) && (res.status === 0 || res.status === 429 || res.status >= 500)
/** For `answered`: a 429 that the caller words itself, with the wait of its own rule. */
export const ownLimit = (res) => res.status === 429

/** The words for `res` (null: no answer yet, within LIMITS.waitMs), with the wait the service asked for. */
const failureText = (res) => {
  if (res === null) return t("callSlow")
  if (res.status === 0) return t("callFailed")
  const wait = Number(res.headers.get("retry-after"))
  return wait > 0 ? t("callBusy", { n: wait }) : t("failed")
}

/** Per slot: the calls failing in it (their retry → their failure, null while slow), its words and Try again. */
const failing = new WeakMap()

const sayFailing = (slot) => {
  const state = failing.get(slot)
  const latest = [...state.calls.values()].pop()
  if (!state.text) {
    state.text = el("p")
    state.button = el("button", { type: "button", class: "secondary", onclick: () => retryAll(slot) }, t("retry"))
    say(slot, "error", state.text, state.button)
    // a busy region's alerts are not announced: the form that waits for this call is no longer busy
    slot.closest("[aria-busy=true]")?.setAttribute("aria-busy", "false")
    // focus was on the button that started the call, now disabled, or nowhere: the next step is here
    const lost = document.activeElement === null || document.activeElement === document.body
    if (lost) focusSoon(state.button)
  }
  // the text changes even when the words do not: a live region says a change, not a state
  const text = state.text
  requestAnimationFrame(() => { text.textContent = failureText(latest) })
  state.status = state.status ?? $status.textContent
  setStatus("")
}

const retryAll = (slot) => {
  const state = failing.get(slot)
  state.text.textContent = ""
  setStatus(state.status)
  for (const retry of [...state.calls.keys()]) retry()
}

/**
 * The answer of `call(signal)` (a call of guest-api.js) once it is one that is not a passing
 * failure; `own(res)` tells the answers that the caller words itself (`ownLimit`: a 429 of its rule).
 * Meanwhile `slot` (a messageSlot; the page's own by default) says that the call failed or is slow
 * (LIMITS.waitMs), with a Try again that makes again only the calls of that slot that failed: a
 * slow one is abandoned. What a form holds stays as it is: a call re-reads it when it is made again.
 */
export const answered = (call, slot = pageSlot, own = () => false) =>
  new Promise((resolve) => {
    if (!failing.has(slot)) failing.set(slot, { calls: new Map(), text: null, button: null, status: null })
    const state = failing.get(slot)
    let attempt = null
    const run = () => {
      attempt?.abort()
      const mine = (attempt = new AbortController())
      const slow = setTimeout(() => {
        state.calls.set(run, null)
        sayFailing(slot)
      }, LIMITS.waitMs)
      Promise.resolve()
        .then(() => call(mine.signal))
        .catch(() => NO_ANSWER)
        .then((res) => {
          clearTimeout(slow)
          if (mine !== attempt) return // abandoned for a new attempt
          if (passing(res, own)) {
            state.calls.set(run, res)
            return sayFailing(slot)
          }
          state.calls.delete(run)
          if (state.calls.size === 0 && state.text) {
            if (slot.contains(document.activeElement)) focusSoon(slot)
            clear(slot)
            setStatus(state.status)
            Object.assign(state, { text: null, button: null, status: null })
          }
          resolve(res)
        })
    }
    run()
  })
