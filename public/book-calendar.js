/* The booking page's month calendar of arrival dates (WAI-ARIA date grid): per date, from
   GET /v1/calendar for the search's guests and nights, its lowest total or why it cannot be an
   arrival, in words to sight (the line under the grid tells the focused date) and to screen readers
   (each cell's text). Arrow keys move by day and week, Page Up/Down by month, Home/End to the
   week's ends, Enter or Space choose, Escape closes. Loaded when first opened: until then the date
   inputs are the browser's own. */
import { el } from "./guest-dom.js"
import { fmtDate, money } from "./guest-format.js"
import { hasText, locale, t } from "./guest-text.js"
import { addDays, isDate, nightsBetween } from "./book-search.js"

const monthOf = (iso) => iso.slice(0, iso.lastIndexOf("-"))
const firstOf = (month) => `${month}-01`
const weekday = (iso) => (new Date(`${iso}T00:00:00Z`).getUTCDay() + 6) % 7 // Monday first, as the hotel's three languages write weeks
const nextMonth = (month, by) => monthOf(addDays(firstOf(month), by > 0 ? 31 : -1))
const lastOf = (month) => addDays(firstOf(nextMonth(month, 1)), -1)
/** The same day of another month, or its last day when that month is shorter. */
const sameDayIn = (iso, by) => {
  const month = nextMonth(monthOf(iso), by)
  const day = addDays(firstOf(month), nightsBetween(firstOf(monthOf(iso)), iso))
  return monthOf(day) === month ? day : lastOf(month)
}
const today = () => new Date().toISOString().split("T")[0]

/** A calendar day in words: arrival possible from its price, or why not. */
const dayText = (day, currency, nights) => {
  const date = fmtDate(day.checkin)
  if (day.available) return t("dayAvailable", { date, nights: t("nights", { n: nights }), price: money(day.lowest_total, currency) })
  const key = `calReason_${day.reason}`
  const bound = day.min_stay ?? day.max_stay
  const reason = hasText(key) ? t(key, bound === undefined ? {} : { nights: t("nights", { n: bound }) }) : ""
  return t("dayUnavailable", { date, reason })
}
/** The price a cell shows: whole units, rounded down, as a "from" price is (the exact one is in its words). */
const cellPrice = (amount, currency) =>
  new Intl.NumberFormat(locale(), { style: "currency", currency, maximumFractionDigits: 0, roundingMode: "floor" }).format(amount)

let state = null

/** Opens the calendar in `slot` below `button`, or closes it when open. */
export function toggleCalendar(button, slot, options) {
  if (state) return close(true)
  const search = options.search()
  const nightsAsked = isDate(search.checkin) && isDate(search.checkout) ? nightsBetween(search.checkin, search.checkout) : 0
  state = {
    button,
    slot,
    options,
    search,
    nights: nightsAsked > 0 ? nightsAsked : 1,
    focused: isDate(search.checkin) && search.checkin >= today() ? search.checkin : today(),
    months: new Map()
  }
  button.setAttribute("aria-expanded", "true")
  button.textContent = t("calendarClose")
  render(true)
}

function close(focusButton) {
  const { button, slot } = state
  state = null
  slot.replaceChildren()
  button.setAttribute("aria-expanded", "false")
  button.textContent = t("calendarOpen")
  if (focusButton) button.focus()
}

/** The month's days from the API, fetched once per month (a failed call is said by the page, with a Try again). */
function load(month) {
  const { search, nights, options, months } = state
  const room = search.rooms[0]
  const params = new URLSearchParams({
    from: firstOf(month),
    to: lastOf(month),
    nights: String(nights),
    adults: String(room.adults),
    children_ages: room.children_ages.join(",")
  })
  if (search.room_type_id) params.set("room_type_id", search.room_type_id)
  if (search.promo) params.set("promo_code", search.promo)
  const pending = options.call(`/v1/calendar?${params}`).then((answer) => {
    if (!answer.ok) months.delete(month)
    else months.set(month, answer.body)
    // the focus stays where the guest left it: in the grid only when it was there
    if (state && monthOf(state.focused) === month) render(Boolean(document.activeElement && document.activeElement.closest("#calendar-grid")))
  })
  months.set(month, pending)
}

/** Draws the focused date's month; `focus` puts the focus on that date, else it stays on the control that had it. */
function render(focus) {
  const { focused, months, nights } = state
  const kept = document.activeElement && state.slot.contains(document.activeElement) ? document.activeElement.id : null
  const month = monthOf(focused)
  if (!months.has(month)) load(month)
  const answer = months.get(month)
  const loaded = answer && !(answer instanceof Promise) ? answer : null
  const days = new Map(loaded ? loaded.days.map((day) => [day.checkin, day]) : [])
  const title = new Intl.DateTimeFormat(locale(), { month: "long", year: "numeric", timeZone: "UTC" }).format(new Date(`${firstOf(month)}T00:00:00Z`))
  const weekdays = Array.from({ length: 7 }, (_, i) => addDays("2024-01-01", i)) // a Monday, and its week
  const head = el("tr", null, weekdays.map((iso) => {
    const day = new Date(`${iso}T00:00:00Z`)
    const short = new Intl.DateTimeFormat(locale(), { weekday: "short", timeZone: "UTC" }).format(day)
    const long = new Intl.DateTimeFormat(locale(), { weekday: "long", timeZone: "UTC" }).format(day)
    return el("th", { scope: "col", abbr: long }, short)
  }))

  const rows = []
  let row = []
  for (let i = 0; i < weekday(firstOf(month)); i++) row.push(el("td", { class: "empty" }))
  for (let iso = firstOf(month); monthOf(iso) === month; iso = addDays(iso, 1)) {
    const day = days.get(iso)
    const words = day ? dayText(day, loaded.currency, nights) : fmtDate(iso)
    const cell = el(
      "td",
      {
        role: "gridcell",
        tabindex: iso === focused ? 0 : -1,
        "data-date": iso,
        "aria-selected": iso === state.search.checkin ? "true" : "false",
        "aria-disabled": day && !day.available ? "true" : null,
        class: day ? (day.available ? "day open" : "day closed") : "day"
      },
      el("span", { class: "sr" }, words),
      el("span", { class: "num", "aria-hidden": "true" }, String(Number(iso.slice(iso.lastIndexOf("-") + 1)))),
      el("span", { class: "cell-price", "aria-hidden": "true" }, day && day.available ? cellPrice(day.lowest_total, loaded.currency) : day ? "—" : "")
    )
    row.push(cell)
    if (row.length === 7) {
      rows.push(el("tr", null, row))
      row = []
    }
  }
  if (row.length > 0) rows.push(el("tr", null, row))

  const focusedDay = days.get(focused)
  const calendar = el(
    "div",
    { class: "calendar", id: "calendar", role: "group", "aria-labelledby": "calendar-month" },
    el(
      "div",
      { class: "calendar-head" },
      el("button", { type: "button", class: "secondary", id: "calendar-prev", "aria-label": t("prevMonth"), onclick: () => move(sameDayIn(focused, -1), false) }, "‹"),
      el("h2", { id: "calendar-month", "aria-live": "polite" }, title),
      el("button", { type: "button", class: "secondary", id: "calendar-next", "aria-label": t("nextMonth"), onclick: () => move(sameDayIn(focused, 1), false) }, "›")
    ),
    el("p", { class: "hint", id: "calendar-hint" }, t("calendarHint")),
    el(
      "table",
      { role: "grid", id: "calendar-grid", "aria-labelledby": "calendar-month", "aria-describedby": "calendar-hint", onkeydown: onKey, onclick: onClick },
      el("thead", null, head),
      el("tbody", null, rows)
    ),
    el("p", { class: "calendar-detail", id: "calendar-detail" }, loaded ? (focusedDay ? dayText(focusedDay, loaded.currency, nights) : "") : t("calendarLoading"))
  )
  state.slot.replaceChildren(calendar)
  if (focus) calendar.querySelector(`[data-date="${focused}"]`).focus()
  else if (kept) document.getElementById(kept)?.focus()
}

const move = (iso, focus = true) => {
  state.focused = iso
  render(focus)
}

const KEYS = {
  ArrowLeft: (iso) => addDays(iso, -1),
  ArrowRight: (iso) => addDays(iso, 1),
  ArrowUp: (iso) => addDays(iso, -7),
  ArrowDown: (iso) => addDays(iso, 7),
  PageUp: (iso) => sameDayIn(iso, -1),
  PageDown: (iso) => sameDayIn(iso, 1),
  Home: (iso) => addDays(iso, -weekday(iso)),
  End: (iso) => addDays(iso, 6 - weekday(iso))
}

function onKey(event) {
  if (event.key === "Escape") return close(true)
  if (event.key in KEYS) {
    event.preventDefault()
    return move(KEYS[event.key](state.focused))
  }
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault()
    choose(state.focused)
  }
}

function onClick(event) {
  const cell = event.target.closest("[data-date]")
  if (cell) choose(cell.dataset.date)
}

/** An arrival the calendar says is possible becomes the search's, for the nights shown; any other keeps its words on show. */
function choose(iso) {
  const answer = state.months.get(monthOf(iso))
  const day = answer && !(answer instanceof Promise) ? answer.days.find((d) => d.checkin === iso) : null
  if (!day || !day.available) return move(iso)
  const { options, nights } = state
  close(false)
  options.choose(iso, nights)
}
