import { parseSearch } from "../../../public/book-search.js"
import { escapeHtml } from "../../Domain/GuestEmails.js"
import { say, type SentenceKey } from "../../Domain/GuestTexts.js"
import type { Language } from "../../Domain/Language.js"
import { GUEST_PAGE_LIMITS } from "./GuestPageModule.js"

/** A room type as the booking page lists it. */
export interface ListedRoomType {
  readonly id: string
  readonly name: string
}

/** The label of each deep-link parameter, for the message that says it could not be used. */
const PARAMETER_LABELS: Record<string, SentenceKey> = {
  checkin: "arrival",
  checkout: "departure",
  nights: "departure",
  adults: "adultsInRoom",
  children: "childrenAges",
  rooms: "roomCount",
  room_type_id: "roomType",
  promo: "promoLabel"
}

/** The parameters kept as they came, besides the search: the page's language and where the guest came from. */
const KEPT = ["lang", "source"] as const

type Attributes = Record<string, string | number | boolean | null | undefined>
const attributes = (attrs: Attributes) =>
  Object.entries(attrs)
    .filter(([, value]) => value !== null && value !== undefined && value !== false)
    .map(([name, value]) => (value === true ? ` ${name}` : ` ${name}="${escapeHtml(String(value))}"`))
    .join("")
const input = (attrs: Attributes) => `<input${attributes(attrs)}>`
const field = (id: string, label: string, control: string, hint?: string) =>
  `<div class="field"><label for="${id}">${escapeHtml(label)}</label>` +
  (hint === undefined ? "" : `<span class="hint" id="${id}-hint">${escapeHtml(hint)}</span>`) + `${control}</div>`

/**
 * The booking page's search form as the server writes it into `/book`: a plain `GET /book` form
 * whose fields are the deep link's parameters, filled from the request's query as the page's own
 * parser reads it (`public/book-search.js`, the one parser), with the parameters it could not use
 * said on the form. It searches without the page's script (native date and number inputs, the
 * schemas' limits); the script, once loaded, takes it over (`public/book.js`). `ready` says the
 * query is a whole search with nothing wrong: the script opens straight on its offers.
 */
export const searchForm = (language: Language, query: URLSearchParams, roomTypes: ReadonlyArray<ListedRoomType>) => {
  const { search, errors } = parseSearch(query, GUEST_PAGE_LIMITS)
  const known = new Set(roomTypes.map((type) => type.id))
  const chosenTypes = [search.room_type_id, ...search.rooms.map((room) => room.room_type_id)]
  if (chosenTypes.some((id) => id !== null && !known.has(id)) && !errors.includes("room_type_id")) errors.push("room_type_id")
  const text = (key: SentenceKey, values?: Record<string, string | number>) => say(language, key, values)
  const invalid = (name: string) => errors.includes(name) || (name === "checkout" && errors.includes("nights"))

  const roomLine = (room: typeof search.rooms[number], index: number) => {
    // one room: its type is the one shown first; each of two or more: that room's own
    const typeId = search.rooms.length === 1 ? search.room_type_id : room.room_type_id
    const options = [{ id: "", name: text("anyRoomType") }, ...roomTypes]
      .map((type) => `<option value="${escapeHtml(type.id)}"${type.id === (typeId ?? "") ? " selected" : ""}>${escapeHtml(type.name)}</option>`)
      .join("")
    const hinted = index === 0
    return `<fieldset class="room-line"><legend>${escapeHtml(text("roomN", { n: index + 1 }))}</legend><div class="room-fields">` +
      field(`adults-${index}`, text("adultsInRoom"), input({
        type: "number", id: `adults-${index}`, name: "adults", min: 1, max: GUEST_PAGE_LIMITS.adultsPerRoom, required: true,
        value: room.adults, "aria-invalid": invalid("adults") ? "true" : null
      })) +
      field(`children-${index}`, text("childrenAges"), input({
        type: "text", id: `children-${index}`, name: "children", inputmode: "numeric", autocomplete: "off",
        pattern: GUEST_PAGE_LIMITS.childAgesPattern, maxlength: GUEST_PAGE_LIMITS.childAgesMaxLength,
        value: room.children_ages.join(", "), "aria-describedby": hinted ? `children-${index}-hint` : null,
        "aria-invalid": invalid("children") ? "true" : null
      }), hinted ? text("hint_children_ages") : undefined) +
      field(`room-type-${index}`, text("roomType"),
        `<select id="room-type-${index}" name="room_type_id"${invalid("room_type_id") ? ` aria-invalid="true"` : ""}>${options}</select>`) +
      `</div></fieldset>`
  }

  const kept = KEPT.filter((name) => (query.get(name) ?? "") !== "")
    .map((name) => input({ type: "hidden", name, value: query.get(name) }))
    .join("")
  const message = errors.length === 0
    ? `<div id="search-message" class="message" tabindex="-1"></div>`
    : `<div id="search-message" class="message notice notice-error" role="alert" tabindex="-1">` +
      errors.map((name) => `<p>${escapeHtml(text("badParam", { name: text(PARAMETER_LABELS[name] ?? "failed") }))}</p>`).join("") + `</div>`
  return `<form id="search-form" class="card" action="/book" method="get"${search.ready && errors.length === 0 ? " data-ready" : ""}>` +
    `<fieldset><legend>${escapeHtml(text("searchTitle"))}</legend>` +
    `<div class="dates">` +
    field("checkin", text("arrival"), input({
      type: "date", id: "checkin", name: "checkin", required: true, value: search.checkin, "aria-invalid": invalid("checkin") ? "true" : null
    })) +
    field("checkout", text("departure"), input({
      type: "date", id: "checkout", name: "checkout", required: true, value: search.checkout, "aria-invalid": invalid("checkout") ? "true" : null
    })) +
    `</div>` +
    // the calendar is the script's: its place is kept, shown once the script runs
    `<p class="calendar-line"><button type="button" class="secondary" id="calendar-open" aria-expanded="false" aria-controls="calendar-slot">` +
    `${escapeHtml(text("calendarOpen"))}</button></p><div id="calendar-slot"></div>` +
    field("rooms", text("roomCount"), input({
      type: "number", id: "rooms", name: "rooms", min: 1, max: GUEST_PAGE_LIMITS.roomsPerRequest, required: true,
      value: search.rooms.length, "aria-invalid": invalid("rooms") ? "true" : null
    })) +
    `<div id="room-lines">${search.rooms.map(roomLine).join("")}</div>` +
    field("promo", text("promoLabel"), input({
      type: "text", id: "promo", name: "promo", maxlength: GUEST_PAGE_LIMITS.promoMaxLength, autocomplete: "off",
      autocapitalize: "characters", spellcheck: "false", value: search.promo, "aria-invalid": invalid("promo") ? "true" : null
    })) +
    kept +
    `<button type="submit" class="primary" id="search-submit">${escapeHtml(text("searchButton"))}</button>` +
    `</fieldset>${message}</form>`
}
