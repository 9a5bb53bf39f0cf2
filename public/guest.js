/* What the guest pages share: the language and its formats, the token of the link, API calls,
   the hotel's header, the reservation's summary and form fields. Plain ES2020 modules, no
   dependencies. The token lives only in memory: it is removed from the address bar at once. */
import { STRINGS } from "./guest-i18n.js"

/** The locale of each language: day-month dates and 24-hour times, as in the emails and the PDF. */
const LOCALES = { en: "en-GB", fr: "fr-FR", ru: "ru-RU" }

const browserLanguage = () =>
  (navigator.languages || [navigator.language || "en"]).map((l) => l.slice(0, 2).toLowerCase()).find((l) => l in STRINGS) || "en"
let lang = browserLanguage()
let titleKey = "titleComplete"
let hotel = null

/** A UI string, with {placeholders} filled and plural forms chosen by the language's rules. */
export const t = (key, vars = {}) => {
  let s = STRINGS[lang][key] ?? STRINGS.en[key] ?? key
  if (typeof s === "object") s = s[new Intl.PluralRules(LOCALES[lang]).select(vars.n)] ?? s.other
  return s.replace(/\{(\w+)\}/g, (_, k) => String(vars[k]))
}
/** A word of a group by its key, e.g. statuses.CANCELLED. */
export const word = (group, key) => (STRINGS[lang][group] || STRINGS.en[group] || {})[key] ?? key
const hasText = (key) => key in STRINGS[lang]

/** el("p", { class: "x", onclick: f }, "text", child): attributes with true are set empty, false/null skipped. */
export const el = (tag, attrs, ...children) => {
  const node = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v)
    else node.setAttribute(k, v === true ? "" : String(v))
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c)
  return node
}

const $title = document.getElementById("title")
const $status = document.getElementById("status")
const $content = document.getElementById("content")
const $hotel = document.getElementById("hotel")
export const setStatus = (text) => { $status.textContent = text }

// ---- formats: dates and times are the hotel's local ones; their digits are shown, never converted ----
const wall = (iso) => {
  const m = /^(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d))?/.exec(iso || "")
  return m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +(m[4] || 0), +(m[5] || 0))) : null
}
const fmt = (iso, options) => {
  const date = wall(iso)
  return date ? new Intl.DateTimeFormat(LOCALES[lang], { timeZone: "UTC", ...options }).format(date) : String(iso)
}
const fmtDate = (iso) => fmt(iso, { weekday: "short", day: "numeric", month: "long", year: "numeric" })
export const fmtDateTime = (iso) => fmt(iso, { day: "numeric", month: "long", year: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
export const fmtTime = (hhmm) => fmt(`2000-01-01T${hhmm}`, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
export const money = (amount, currency) => new Intl.NumberFormat(LOCALES[lang], { style: "currency", currency }).format(amount)
const countryName = (code) => {
  try {
    return new Intl.DisplayNames([LOCALES[lang]], { type: "region" }).of(code) || code
  } catch {
    return code
  }
}

/** The page's language from now on: `lang`, the title and the hotel's header follow it. */
export const useLanguage = (language) => {
  if (language in STRINGS) lang = language
  document.documentElement.lang = lang
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
      el("li", null, `${t("hotelPhone")}: `, link(`tel:${contact.phone.replace(/[^+\d]/g, "")}`, contact.phone)),
      el("li", null, `${t("hotelEmail")}: `, link(`mailto:${contact.email}`, contact.email)),
      el("li", null, `${t("hotelWebsite")}: `, link(contact.website, contact.website.replace(/^https?:\/\//, "")))
    )
  )
  $hotel.hidden = false
}

/** The page's title key; the hotel's facts (public, no token) are fetched meanwhile. */
export const startPage = (key) => {
  titleKey = key
  useLanguage(lang)
  return fetch("/v1/hotel", { cache: "no-store", credentials: "omit", headers: { Accept: "application/json" } })
    .then((response) => (response.ok ? response.json() : null))
    .catch(() => null)
    .then((body) => {
      hotel = body
      useLanguage(lang)
    })
}

// ---- the token: read once from the fragment, then dropped from the address bar and history ----
export const takeToken = () => {
  const token = new URLSearchParams(location.hash.slice(1)).get("token")
  if (location.hash) history.replaceState(null, "", location.pathname + location.search)
  // another link opened in this tab only changes the fragment: start again with its token
  window.addEventListener("hashchange", () => location.reload())
  return token
}

/** Calls of the API with the link's token, sent only in the X-Reservation-Token header. */
export const apiWith = (token) => {
  const raw = (path, init = {}) =>
    fetch(path, {
      ...init,
      cache: "no-store",
      credentials: "omit",
      headers: { Accept: "application/json", "X-Reservation-Token": token, ...init.headers }
    })
  /** JSON in and out; a network failure is status 0. */
  const json = (path, body) =>
    raw(path, body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })
      .then(async (response) => ({
        status: response.status,
        ok: response.ok,
        headers: response.headers,
        body: await response.json().catch(() => null)
      }))
      .catch(() => ({ status: 0, ok: false, headers: new Headers(), body: null }))
  return { raw, json }
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
export const clear = (slot) => {
  slot.className = "message"
  slot.replaceChildren()
}

// ---- the reservation's summary ----
export const fact = (term, value) => [el("dt", null, term), el("dd", null, value)]

const age = (years) => (years === 0 ? t("infant") : String(years))
const roomLine = (room) => {
  const who = [t("adults", { n: room.adults })]
  const ages = room.children_ages || []
  if (ages.length > 0) who.push(`${t("children", { n: ages.length })} (${t("ages", { list: ages.map(age).join(", ") })})`)
  const name = room.quantity > 1 ? `${room.quantity} × ${room.room_name}` : room.room_name
  return el("li", null, el("strong", null, name), ` — ${who.join(", ")}${room.quantity > 1 ? ` ${t("perRoom")}` : ""}`)
}

const priceRow = (label, value, cls) => el("tr", { class: cls }, el("th", { scope: "row" }, label), el("td", null, value))

/** The stay, rooms, package, price and policies, in the reservation's language. */
export function summary(r) {
  const { stay, price, policies } = r
  const pkg = r.package
  return el(
    "section",
    { class: "card", id: "summary", "aria-labelledby": "summary-title" },
    el("h2", { id: "summary-title" }, t("yourStay")),
    el(
      "dl",
      { class: "facts" },
      fact(t("arrival"), fmtDate(stay.checkin)),
      fact(t("departure"), fmtDate(stay.checkout)),
      fact(t("length"), t("nights", { n: stay.nights })),
      fact(t("checkInFrom"), fmtTime(policies.check_in_from || stay.check_in_time)),
      fact(t("checkOutBy"), fmtTime(policies.check_out_by || stay.check_out_time))
    ),
    el("h3", null, t("rooms")),
    el("ul", { class: "rooms" }, r.rooms.map(roomLine)),
    el("h3", null, t("package")),
    el("p", { id: "package" }, el("strong", null, pkg.name), pkg.description ? el("br") : null, pkg.description || null),
    el("p", { class: "note" }, `${pkg.breakfast_included ? t("breakfast") : t("noBreakfast")} · ${policies.refundable ? t("refundable") : t("nonRefundable")}`),
    el("h3", null, t("price")),
    el(
      "table",
      { class: "price" },
      el(
        "tbody",
        null,
        priceRow(t("roomTotal"), money(price.room_total, price.currency)),
        price.promotion_discount > 0 ? priceRow(t("discount"), `−${money(price.promotion_discount, price.currency)}`) : null,
        priceRow(t("tax"), money(price.tourist_tax, price.currency)),
        priceRow(t("total"), el("span", { id: "total" }, money(price.total, price.currency)), "total")
      )
    ),
    el("h3", null, t("cancellation")),
    policies.free_cancellation_until ? el("p", { id: "free-until" }, t("freeUntil", { when: fmtDateTime(policies.free_cancellation_until) })) : null,
    policies.cancellation ? el("p", null, policies.cancellation) : null,
    el("p", null, el("span", { class: "badge" }, t("noPayment"))),
    policies.payment ? el("p", { class: "note" }, policies.payment) : null
  )
}

/** Why a room request changed (a 409's error.details.rooms), in the page's language. */
export const reasonText = (reason) => (hasText(`reason_${reason}`) ? t(`reason_${reason}`) : "")

// ---- form fields: `name` is the API's field name ----
const AUTOCOMPLETE = { first_name: "given-name", last_name: "family-name", email: "email", phone: "tel", country: "country" }
const INPUT_TYPE = { text: "text", email: "email", tel: "tel", country: "text", time: "time" }
/** The API's phone rule, checked before sending. */
// (a pattern attribute is compiled with the v flag: every punctuation inside the class is escaped)
const PHONE_PATTERN = "\\+?[0-9][0-9 \\(\\)\\.\\-]{5,24}"
export const requiredMark = (required) => (required ? el("span", { class: "req", "aria-hidden": "true" }, " *") : null)

/** A labelled control for a field {name, type, required, max_length, label?}, holding `value`. */
export function fieldControl(field, value) {
  const id = `f-${field.name}`
  const label = field.label || t(field.name)
  if (field.type === "checkbox") {
    return el(
      "div",
      { class: "check" },
      el("input", { type: "checkbox", id, name: field.name, required: field.required, checked: value === true }),
      el("label", { for: id }, label, requiredMark(field.required))
    )
  }
  const hintKey = `hint_${field.name}`
  const hint = hasText(hintKey) ? el("span", { class: "hint", id: `${id}-hint` }, t(hintKey)) : null
  const common = {
    id,
    name: field.name,
    required: field.required,
    maxlength: field.type === "country" ? 2 : field.max_length,
    autocomplete: AUTOCOMPLETE[field.name] || "off",
    "aria-describedby": hint ? `${id}-hint` : null
  }
  const control = field.type === "textarea"
    ? el("textarea", { ...common, rows: 4 })
    : el("input", {
      ...common,
      type: INPUT_TYPE[field.type] || "text",
      class: field.type === "country" || field.type === "time" ? "short" : null,
      pattern: field.type === "country" ? "[A-Za-z]{2}" : field.type === "tel" ? PHONE_PATTERN : null,
      autocapitalize: field.type === "country" ? "characters" : field.type === "text" ? "words" : null,
      spellcheck: field.type === "email" ? "false" : null
    })
  if (typeof value === "string") control.value = value
  return el("div", { class: "field" }, el("label", { for: id }, label, requiredMark(field.required)), hint, control)
}

/** The form's named controls, and their visible labels. */
export const controlsOf = (form) => [...form.elements].filter((e) => e.name)
const labelOf = (form, control) => form.querySelector(`label[for="${control.id}"]`)?.firstChild?.textContent || control.name

/**
 * Checks the form in the browser; marks what is wrong and answers the message to show (null if
 * all is well). A 400 from the API is mapped to the same message by `serverFieldError`.
 */
export function checkForm(form) {
  for (const e of controlsOf(form)) e.removeAttribute("aria-invalid")
  const invalid = controlsOf(form).filter((e) => !e.checkValidity())
  return markInvalid(form, invalid)
}
const markInvalid = (form, invalid) => {
  if (invalid.length === 0) return null
  for (const e of invalid) e.setAttribute("aria-invalid", "true")
  invalid[0].focus()
  return t("checkFields", { list: invalid.map((e) => labelOf(form, e)).join(", ") })
}

/** A 400's message names the field (`phone: must be …`): the same message in the page's language. */
export function serverFieldError(form, error) {
  const text = (error && error.message) || ""
  const named = error && error.details && typeof error.details.field === "string" ? error.details.field : null
  const target = controlsOf(form).find((e) => e.name === named) ||
    controlsOf(form).find((e) => new RegExp(`(^|[^a-z_])${e.name}([^a-z_]|$)`).test(text))
  return target ? markInvalid(form, [target]) : t("failed")
}
