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
import { addDays, nightsBetween, parseAges, parseSearch, roomRequests, searchParams } from "./book-search.js"
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

// ---- the search form ----
const formMessage = messageSlot("search-message")
const field = (control, labelKey, hintKey) => {
  const hint = hintKey ? el("span", { class: "hint", id: `${control.id}-hint` }, t(hintKey)) : null
  if (hint) control.setAttribute("aria-describedby", hint.id)
  return el("div", { class: "field" }, el("label", { for: control.id }, t(labelKey)), hint, control)
}
const select = (id, name, from, to, value) =>
  el("select", { id, name }, Array.from({ length: to - from + 1 }, (_, i) => el("option", { value: from + i, selected: from + i === value }, String(from + i))))

const checkin = el("input", { type: "date", id: "checkin", name: "checkin", required: true })
const checkout = el("input", { type: "date", id: "checkout", name: "checkout", required: true })
const roomCount = select("rooms", "rooms", 1, LIMITS.roomsPerRequest, 1)
const promo = el("input", { type: "text", id: "promo", name: "promo", maxlength: LIMITS.promoMaxLength, autocomplete: "off", autocapitalize: "characters", spellcheck: "false" })
const roomLines = el("div", { id: "room-lines" })
const calendarSlot = el("div", { id: "calendar-slot" })

/** One room's guests: its adults and its children's ages, numbered as shown. */
const roomLine = (index, room) => {
  const adults = select(`adults-${index}`, "adults", 1, LIMITS.adultsPerRoom, room.adults)
  const ages = el("input", {
    type: "text",
    id: `children-${index}`,
    name: "children",
    inputmode: "numeric",
    autocomplete: "off",
    pattern: LIMITS.childAgesPattern,
    maxlength: LIMITS.childAgesMaxLength
  })
  ages.value = room.children_ages.join(", ")
  return el(
    "fieldset",
    { class: "room-line" },
    el("legend", null, t("roomN", { n: index + 1 })),
    el("div", { class: "room-fields" }, field(adults, "adultsInRoom"), field(ages, "childrenAges", index === 0 ? "hint_children_ages" : null))
  )
}
const showRoomLines = (rooms) => roomLines.replaceChildren(...rooms.map((room, i) => roomLine(i, room)))

/** The search the form holds now. */
const formSearch = (previous) => {
  const rooms = [...roomLines.querySelectorAll("fieldset")].map((line) => ({
    adults: Number(line.querySelector("select").value),
    // checked against the same pattern before a search is made
    children_ages: parseAges(line.querySelector("input").value, LIMITS) || []
  }))
  return { ...previous, checkin: checkin.value, checkout: checkout.value, rooms, promo: promo.value.trim(), ready: true }
}

let current = null

function buildForm(search, errors) {
  checkin.value = search.checkin || ""
  checkout.value = search.checkout || ""
  roomCount.value = String(search.rooms.length)
  promo.value = search.promo
  showRoomLines(search.rooms)
  roomCount.addEventListener("change", () => {
    const rooms = formSearch(current).rooms
    const n = Number(roomCount.value)
    showRoomLines(Array.from({ length: n }, (_, i) => rooms[i] || { adults: LIMITS.defaultAdults, children_ages: [] }))
  })
  const calendarButton = el("button", { type: "button", class: "secondary", id: "calendar-open", "aria-expanded": "false", "aria-controls": "calendar-slot" }, t("calendarOpen"))
  calendarButton.addEventListener("click", () => openCalendar(calendarButton))
  const form = el(
    "form",
    { id: "search-form", class: "card", novalidate: true, action: "/book", method: "get" },
    el(
      "fieldset",
      null,
      el("legend", null, t("searchTitle")),
      el("div", { class: "dates" }, field(checkin, "arrival"), field(checkout, "departure")),
      el("p", null, calendarButton),
      calendarSlot,
      field(roomCount, "roomCount"),
      roomLines,
      field(promo, "promoLabel"),
      el("button", { type: "submit", class: "primary", id: "search-submit" }, t("searchButton"))
    ),
    formMessage
  )
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
  $search.replaceChildren(form)
  if (errors.length > 0) {
    const names = { checkin: "arrival", checkout: "departure", nights: "departure", adults: "adultsInRoom", children: "childrenAges", rooms: "roomCount", promo: "promoLabel" }
    const controls = { checkin, checkout, nights: checkout, rooms: roomCount, promo }
    for (const name of errors) if (controls[name]) controls[name].setAttribute("aria-invalid", "true")
    say(formMessage, "error", ...errors.map((name) => t("badParam", { name: t(names[name] || name) })))
  }
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
const quoteBody = (search, typeId) => ({
  checkin: search.checkin,
  checkout: search.checkout,
  rooms: roomRequests(search, typeId),
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
  // each room type's quote on its own: a failed one is tried again alone
  const answers = await Promise.all(ordered.map((type) => call("/v1/quotes", quoteBody(search, type.id))))
  const quoted = ordered.map((type, i) => ({ type, answer: answers[i] })).filter(({ answer }) => answer.ok)
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
const { search, errors } = parseSearch(query, LIMITS)
current = search
buildForm(search, errors)
if (search.ready && errors.length === 0) runSearch(search)
window.addEventListener("popstate", () => location.reload())
