/* The booking page's search as a URL: the deep link a metasearch landing page or the widget opens
   (/book?checkin=…&checkout=…&adults=2&children=3,8&rooms=1&promo=…), read into a search, and a
   search written back as one. Pure: no DOM, no fetch, and the limits are passed in (LIMITS of
   /assets/guest-i18n.js, from the schemas), so the parser is unit-tested as it runs in the page. */

const DATE = /^(\d{4})-(\d\d)-(\d\d)$/
const WHOLE = /^\d+$/
const DAY_MS = 86400000

/** A calendar date's day number (UTC days since 1970), or null when `iso` is no real date. */
const dayNumber = (iso) => {
  const m = DATE.exec(iso || "")
  if (!m) return null
  const time = Date.UTC(+m[1], +m[2] - 1, +m[3])
  const back = new Date(time)
  return back.getUTCMonth() === +m[2] - 1 && back.getUTCDate() === +m[3] ? time / DAY_MS : null
}

/** `iso` moved by `days` days. */
export const addDays = (iso, days) => new Date((dayNumber(iso) + days) * DAY_MS).toISOString().slice(0, iso.length)
/** Nights from `checkin` to `checkout` (negative when the departure comes first), or null. */
export const nightsBetween = (checkin, checkout) => {
  const from = dayNumber(checkin)
  const to = dayNumber(checkout)
  return from === null || to === null ? null : to - from
}
export const isDate = (iso) => dayNumber(iso) !== null

/** A whole number from `min` to `max`, or null. */
const count = (text, min, max) => {
  if (!WHOLE.test((text || "").trim())) return null
  const n = Number(text)
  return n >= min && n <= max ? n : null
}
/** `3,8` (spaces allowed; empty is none): the children's ages of a room, or null when one is not an age or they are too many. */
export const parseAges = (text, limits) => {
  const parts = (text || "").split(",").map((part) => part.trim()).filter((part) => part !== "")
  const ages = parts.map((part) => count(part, 0, limits.maxChildAge))
  return ages.includes(null) || ages.length > limits.childrenPerRoom ? null : ages
}

/**
 * The search a URL's query asks for: `{ search, errors }`, where `errors` names each parameter that
 * could not be used (the page says so on its form, next to what it kept) and `search.ready` says
 * the stay is whole, so the page opens straight on the offers.
 *
 * `adults` and `children` are per room; given once they apply to every room of `rooms`, given once
 * per room (`adults=2&adults=1&children=3,8&children=`) each applies to its own room.
 * `room_type_id` given once is the room type shown first, every type being quoted; given once per
 * room (`room_type_id=double&room_type_id=family`, empty for "any type") it is each room's type,
 * quoted together: what a guest mixing types asks for, and what the form's per-room choice sends.
 */
export function parseSearch(params, limits) {
  const errors = []
  const fail = (name) => {
    if (!errors.includes(name)) errors.push(name)
    return null
  }
  const has = (name) => params.has(name) && params.get(name) !== ""

  const checkin = has("checkin") ? (isDate(params.get("checkin")) ? params.get("checkin") : fail("checkin")) : null
  let checkout = null
  if (has("checkout")) {
    const nights = isDate(params.get("checkout")) && checkin ? nightsBetween(checkin, params.get("checkout")) : null
    checkout = nights !== null && nights >= 1 && nights <= limits.maxNights ? params.get("checkout") : fail("checkout")
  } else if (has("nights")) {
    const nights = count(params.get("nights"), 1, limits.maxNights)
    checkout = nights !== null && checkin ? addDays(checkin, nights) : fail("nights")
  }

  const rooms = has("rooms") ? count(params.get("rooms"), 1, limits.roomsPerRequest) ?? fail("rooms") : null
  const adults = params.getAll("adults").map((text) => count(text, 1, limits.adultsPerRoom) ?? fail("adults"))
  const children = params.getAll("children").map((text) => parseAges(text, limits) ?? fail("children"))
  const types = params.getAll("room_type_id").map((text) => text.trim())
  // one value for every room, or one per room; never more rooms than a quote takes
  const asked = rooms ?? Math.max(1, adults.length, children.length, types.length)
  const roomCount = asked <= limits.roomsPerRequest ? asked : (fail("rooms"), 1)
  const perRoom = (list, name) => (list.length <= 1 || list.length === roomCount ? list : (fail(name), []))
  const adultsOf = perRoom(adults, "adults")
  const childrenOf = perRoom(children, "children")
  // once: the type shown first; once per room (of two or more): each room's own
  const typesOf = types.length > 1 ? perRoom(types, "room_type_id") : []
  const occupancy = Array.from({ length: roomCount }, (_, i) => ({
    adults: adultsOf[adultsOf.length === 1 ? 0 : i] ?? limits.defaultAdults,
    children_ages: childrenOf[childrenOf.length === 1 ? 0 : i] ?? [],
    room_type_id: typesOf[i] || null
  }))

  const promo = (params.get("promo") || "").trim()
  const text = (name) => (params.get(name) || "").trim() || null
  const search = {
    checkin,
    checkout,
    rooms: occupancy,
    room_type_id: types.length === 1 ? text("room_type_id") : null,
    package_code: text("package_code"),
    promo: promo.length <= limits.promoMaxLength ? promo : (fail("promo"), ""),
    ready: checkin !== null && checkout !== null
  }
  return { search, errors }
}

/** The deep link of a search: what the page puts in its address bar, and what the widget and the alternatives link to. */
export function searchParams(search, extra = {}) {
  const pairs = []
  if (search.checkin) pairs.push(["checkin", search.checkin])
  if (search.checkout) pairs.push(["checkout", search.checkout])
  const rooms = search.rooms
  const same = rooms.every((room) => room.adults === rooms[0].adults && room.children_ages.join() === rooms[0].children_ages.join())
  // identical rooms are said once; else each room its own guests, in order
  for (const room of same ? rooms.slice(0, 1) : rooms) pairs.push(["adults", String(room.adults)])
  for (const room of same ? rooms.slice(0, 1) : rooms) if (!same || room.children_ages.length > 0) pairs.push(["children", room.children_ages.join(",")])
  pairs.push(["rooms", String(rooms.length)])
  // each room's type when the guest chose one for a room, else the type shown first
  if (isMixed(search)) for (const room of rooms) pairs.push(["room_type_id", room.room_type_id || ""])
  else if (search.room_type_id) pairs.push(["room_type_id", search.room_type_id])
  for (const name of ["package_code", "promo"]) if (search[name]) pairs.push([name, search[name]])
  for (const [name, value] of Object.entries(extra)) if (value) pairs.push([name, value])
  return new URLSearchParams(pairs)
}

/** Whether the guest chose a room type for a room (of two or more): those rooms are quoted as that type. */
export const isMixed = (search) => search.rooms.length > 1 && search.rooms.some((room) => room.room_type_id)

/**
 * The room types each POST /v1/quotes of a search gives its rooms, one quote per entry: every room
 * type in `typeIds` for the rooms without a chosen type, with the chosen ones as chosen; one quote
 * when each room has its type.
 */
export const quotedTypes = (search, typeIds) =>
  !isMixed(search)
    ? typeIds.map((id) => search.rooms.map(() => id))
    : search.rooms.every((room) => room.room_type_id)
    ? [search.rooms.map((room) => room.room_type_id)]
    : typeIds.map((id) => search.rooms.map((room) => room.room_type_id || id))

/**
 * The room requests of POST /v1/quotes for one room type per room (`typeIds`, in the rooms' order;
 * a single id for every room): identical rooms as one request with a quantity, as the API counts them.
 */
export function roomRequests(search, typeIds) {
  const requests = []
  search.rooms.forEach((room, i) => {
    const room_type_id = Array.isArray(typeIds) ? typeIds[i] : typeIds
    const same = requests.find((r) => r.room_type_id === room_type_id && r.adults === room.adults && r.children_ages.join() === room.children_ages.join())
    if (same) same.quantity += 1
    else requests.push({ room_type_id, quantity: 1, adults: room.adults, children_ages: room.children_ages })
  })
  return requests
}
