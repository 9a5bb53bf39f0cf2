/* The frame both guest pages share: the title and language, the hotel's header, the status line
   and the content area with its notices and messages. What goes in it comes from the other
   guest-*.js modules: words, formats, DOM building, API calls, the summary, the form fields.
   Plain ES2020 modules, no dependencies. */
import { fetchHotel } from "./guest-api.js"
import { el } from "./guest-dom.js"
import { countryName } from "./guest-format.js"
import { setLanguage, t } from "./guest-text.js"

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
  return fetchHotel().then((body) => {
    hotel = body
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
  requestAnimationFrame(() => slot.replaceChildren(...nodes.map((n) => (typeof n === "string" ? el("p", null, n) : n))))
}
/** Focuses `node` once what `say` shows is on the page: an empty notice is not shown, so cannot take focus. */
export const focusSoon = (node) => requestAnimationFrame(() => requestAnimationFrame(() => node.focus()))
export const clear = (slot) => {
  slot.className = "message"
  slot.replaceChildren()
}
