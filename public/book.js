/* The booking page (/book): the search (dates, rooms and guests, promo code), the offers of
   POST /v1/quotes for every room type that fits, and the choice of one, which makes the intent and
   goes on to its continue_url (/complete). A deep link opens straight on the offers. Nothing is
   stored: the search lives in the address bar. */
import { answered, clear, focusSoon, messageSlot, say, setStatus, startPage, useLanguage } from "./guest.js"
import { callJson } from "./guest-api.js"
import { el } from "./guest-dom.js"
import { checkForm } from "./guest-form.js"
import { fmtDate } from "./guest-format.js"
import { LIMITS } from "./guest-i18n.js"
import { hasText, language, t } from "./guest-text.js"
import { addDays, nightsBetween, parseAges, parseSearch, quotedTypes, roomRequests, searchParams } from "./book-search.js"
import { offerGroups, unavailableReasons } from "./book-offers.js"

// the server chose the page's language (lang, else Accept-Language): its words follow it
useLanguage(document.documentElement.lang)
startPage("titleBook")

const query = new URLSearchParams(location.search)
/** Who is calling, for the usage report's bookings by source: the widget's guests arrive with source=widget. */
const CLIENT = { "X-Hotel-Client": query.get("source") === "widget" ? "booking-widget" : "booking-page" }
/** What the address bar keeps besides the search. */
const kept = { lang: query.get("lang"), source: query.get("source") }

const $search = document.getElementById("search")
const $content = document.getElementById("content")

/**
 * A call of the API with the page's X-Hotel-Client, once it is not a passing failure: meanwhile
 * `slot` (the page's own by default) says what failed, with a Try again that makes only that call
 * again (guest.js `answered`).
 */
const call = (path, body, slot, headers = {}) =>
  answered((signal) => callJson(path, { body, headers: { ...CLIENT, ...headers }, signal }), slot)

/** The hotel's room types in the page's language ({ id, name, description }), as the service wrote them into the page. */
const ROOM_TYPES = JSON.parse(document.getElementById("main").dataset.roomTypes || "[]")

// ---- the search form: the server's (a plain GET /book form, filled from the deep link), taken over ----
const form = document.getElementById("search-form")
const formMessage = document.getElementById("search-message")
const checkin = document.getElementById("checkin")
const checkout = document.getElementById("checkout")
const roomCount = document.getElementById("rooms")
const promo = document.getElementById("promo")
const roomLines = document.getElementById("room-lines")
const calendarSlot = document.getElementById("calendar-slot")
const calendarButton = document.getElementById("calendar-open")
/** The first room's line as the server wrote it: each added room is a copy (its hint is said once, on the first). */
const firstLine = roomLines.querySelector(".room-line").cloneNode(true)

/** One room's line: its adults, its children's ages and its room type, numbered as shown. */
const roomLine = (index, room) => {
  const line = firstLine.cloneNode(true)
  line.querySelector("legend").textContent = t("roomN", { n: index + 1 })
  if (index > 0) for (const hint of line.querySelectorAll(".hint")) hint.remove()
  for (const node of line.querySelectorAll("[id], [for], [aria-describedby]")) {
    for (const name of ["id", "for"]) if (node.hasAttribute(name)) node.setAttribute(name, node.getAttribute(name).replace(/-\d+$/, `-${index}`))
    if (index > 0) node.removeAttribute("aria-describedby")
    node.removeAttribute("aria-invalid")
  }
  line.querySelector("[name=adults]").value = String(room.adults)
  line.querySelector("[name=children]").value = room.children_ages.join(", ")
  line.querySelector("[name=room_type_id]").value = room.room_type_id || ""
  return line
}

/** The search the form holds now. */
const formSearch = (previous) => {
  const rooms = [...roomLines.querySelectorAll(".room-line")].map((line) => ({
    adults: Number(line.querySelector("[name=adults]").value),
    // checked against the same pattern before a search is made
    children_ages: parseAges(line.querySelector("[name=children]").value, LIMITS) || [],
    room_type_id: line.querySelector("[name=room_type_id]").value || null
  }))
  // one room: its type is the one shown first; two or more: each room's own
  const single = rooms.length === 1
  return {
    ...previous,
    checkin: checkin.value,
    checkout: checkout.value,
    rooms: rooms.map((room) => ({ ...room, room_type_id: single ? null : room.room_type_id })),
    room_type_id: single ? rooms[0].room_type_id : rooms.some((room) => room.room_type_id) ? null : previous.room_type_id,
    promo: promo.value.trim(),
    ready: true
  }
}

let current = null

function takeOverForm() {
  // the script checks the form itself, and says what is wrong in the page's words
  form.noValidate = true
  roomCount.addEventListener("input", () => {
    const n = Number(roomCount.value)
    if (!Number.isInteger(n) || n < 1 || n > LIMITS.roomsPerRequest) return
    const rooms = formSearch(current).rooms
    roomLines.replaceChildren(...Array.from({ length: n }, (_, i) => roomLine(i, rooms[i] || { adults: LIMITS.defaultAdults, children_ages: [], room_type_id: null })))
  })
  calendarButton.addEventListener("click", () => openCalendar(calendarButton))
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    clear(formMessage)
    const problem = checkForm(form)
    if (problem) return say(formMessage, "error", problem)
    if (nightsBetween(checkin.value, checkout.value) < 1) {
      checkout.setAttribute("aria-invalid", "true")
      return say(formMessage, "error", t("changeDatesOrder"))
    }
    current = formSearch(current)
    history.pushState(null, "", `/book?${searchParams(current, kept)}`)
    runSearch(current)
  })
  form.classList.add("enhanced")
}

/** The calendar is loaded when first opened: until then (or without it) the date inputs are the browser's own. */
let calendarAttempts = 0
async function openCalendar(button) {
  let calendar
  try {
    // a failed module is remembered by the browser under its URL: another attempt asks under another
    calendar = await import(calendarAttempts === 0 ? "./book-calendar.js" : `./book-calendar.js?attempt=${calendarAttempts}`)
  } catch {
    calendarAttempts++
    say(formMessage, "error", t("pageFailed"))
    return checkin.focus()
  }
  clear(formMessage)
  calendar.toggleCalendar(button, calendarSlot, {
    search: () => formSearch(current),
    call,
    choose: (date, nights) => {
      checkin.value = date
      checkout.value = addDays(date, nights)
      checkin.focus()
    }
  })
}

const showContent = (...nodes) => {
  $content.replaceChildren(...nodes.flat().filter(Boolean))
  const target = $content.querySelector("[data-focus]")
  if (target) focusSoon(target)
}

// ---- the search: one quote per room type, all at once ----
const typeNamed = (id) => ROOM_TYPES.find((type) => type.id === id) || { id, name: id, description: null }
/**
 * What one quote offers, as its offers are grouped: a room type (the same for every room), or the
 * room types the guest chose room by room, each room named with its type.
 */
const typeOf = (ids) =>
  ids.every((id) => id === ids[0])
    ? { ...typeNamed(ids[0]), ids }
    : { id: ids.join("-"), ids, name: ids.map((id, i) => `${t("roomN", { n: i + 1 })}${t("colon")}${typeNamed(id).name}`).join("; "), description: null }

const quoteBody = (search, typeIds) => ({
  checkin: search.checkin,
  checkout: search.checkout,
  rooms: roomRequests(search, typeIds),
  language: language(),
  ...(search.promo ? { promo_code: search.promo } : {})
})

/** The words of a 400 of POST /v1/quotes for the whole search (the dates, the guests, the promo code). */
const searchRefusal = (error) => {
  if (error.code === "invalid_promo_code") {
    promo.setAttribute("aria-invalid", "true")
    return t(`invalidPromo_${(error.details && error.details.reason) || "unknown"}`)
  }
  const key = `change_${error.code}`
  return hasText(key) ? t(key) : t("failed")
}

async function runSearch(search, notice) {
  setStatus(t("searching"))
  showContent()
  // the asked room type first, then the hotel's order
  const ordered = [...ROOM_TYPES].sort((a, b) => Number(b.id === search.room_type_id) - Number(a.id === search.room_type_id))
  // each quote on its own (one per room type, or one for the types the guest chose per room): a failed one is tried again alone
  const choices = quotedTypes(search, ordered.map((type) => type.id)).map(typeOf)
  const answers = await Promise.all(choices.map(({ ids }) => call("/v1/quotes", quoteBody(search, ids))))
  const quoted = choices.map((type, i) => ({ type, answer: answers[i] })).filter(({ answer }) => answer.ok)
  // a room type that the party does not fit answers occupancy_exceeded: it is not offered
  const refused = answers.find((answer) => !answer.ok && answer.body && answer.body.error && answer.body.error.code !== "occupancy_exceeded")
  if (refused || quoted.length === 0) {
    setStatus("")
    const error = (refused || answers[0]).body.error
    return say(formMessage, "error", searchRefusal(error))
  }
  const groups = quoted.map(({ type, answer }) => ({ type, quote: answer.body }))
  showResults(search, groups, notice)
}

function showResults(search, groups, notice) {
  const available = groups.filter(({ quote }) => quote.status === "available")
  const first = groups[0].quote
  const stay = t("stayLine", { checkin: fmtDate(first.stay.checkin), checkout: fmtDate(first.stay.checkout), nights: t("nights", { n: first.stay.nights }) })
  const promoNote = first.promo_code && !available.some(({ quote }) => quote.promo_code && quote.promo_code.applied)
    ? el("p", { class: "notice notice-warn", id: "promo-not-applied" }, t("promoNotApplied", first.promo_code))
    : null
  const group = first.not_reservable ? el("p", { class: "notice notice-warn", id: "group-booking" }, t("groupBooking")) : null
  const changed = notice ? el("p", { class: "notice notice-warn", id: "offers-changed" }, t(notice)) : null
  if (available.length === 0) {
    setStatus("")
    showContent(
      el(
        "section",
        { class: "notice notice-warn", id: "nothing-fits" },
        el("h2", { tabindex: -1, "data-focus": true }, t("nothingFitsTitle")),
        el("p", null, stay),
        unavailableReasons(groups),
        el("div", { id: "alternatives" })
      )
    )
    import("./book-alternatives-view.js").then(({ showAlternatives }) =>
      showAlternatives(document.getElementById("alternatives"), search, { call, kept }))
    return
  }
  const count = available.reduce((n, { quote }) => n + quote.package_offers.length, 0)
  showContent(
    el("h2", { id: "offers-title", tabindex: -1, "data-focus": true, class: "offers-title" }, t("offersTitle")),
    el("p", { id: "stay-line" }, stay),
    changed,
    promoNote,
    group,
    offerGroups(available, search.package_code, (quote, offer, button) => choose(search, quote, offer, button))
  )
  setStatus(t("offersFound", { n: count, stay }))
}

// ---- the choice: the intent, then on to the guest's details ----
async function choose(search, quote, offer, button) {
  const buttons = [...$content.querySelectorAll("button.choose")]
  for (const b of buttons) b.disabled = true
  setStatus(t("choosing"))
  // one key per choice: a retry of this choice cannot make a second intent
  button.dataset.key = button.dataset.key || crypto.randomUUID()
  const slot = button.closest("li").querySelector(".message") || button.closest("li").appendChild(messageSlot(`${button.closest("li").id}-message`))
  const body = { quote_id: quote.quote_id, package_code: offer.package_code, language: language() }
  const answer = await call("/v1/reservation-intents", body, slot, { "Idempotency-Key": button.dataset.key })
  if (answer.ok && answer.body && answer.body.continue_url) return location.assign(answer.body.continue_url)
  for (const b of buttons) b.disabled = false
  setStatus("")
  // the price or the rooms changed, or the quote expired: the offers as they are now, same search
  if (answer.status === 409 || answer.status === 404 || answer.status === 410) return runSearch(search, "offersChanged")
  say(slot, "error", t("failed"))
}

// ---- start: the deep link's search, straight on its offers when it is whole ----
// the server read the same deep link into the form, and said there what it could not use
current = parseSearch(query, LIMITS).search
takeOverForm()
if (form.hasAttribute("data-ready")) runSearch(current)
window.addEventListener("popstate", () => location.reload())
