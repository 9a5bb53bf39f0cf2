/* What the offers app (offers-app.js, an MCP App in an AI assistant's chat) reads from the host's
   messages and sends back, as pure functions: the quote of quote_stay's result, the booking page's
   offer groups made of it, the language to show, and the intent tool's arguments and answer. */

/** The body of a tools/call result: its structured content, else the JSON of its text (both carry the same). */
const bodyOf = (result) => {
  if (result.structuredContent !== undefined) return result.structuredContent
  const text = (result.content || []).find((item) => item && item.type === "text")
  try {
    return text ? JSON.parse(text.text) : undefined
  } catch {
    return undefined
  }
}

/** The quote of quote_stay's result; null for a refusal (isError) or anything else. */
export const quoteOf = (result) => {
  const body = result && !result.isError ? bodyOf(result) : undefined
  return body && typeof body.quote_id === "string" && Array.isArray(body.package_offers) && Array.isArray(body.rooms) ? body : null
}

/**
 * The quote's rooms as the booking page lists them (guest-summary.js `roomLine`): each with its room
 * type's name in the page's language (`roomTypes`: `{ id, name, description }`), else its id.
 */
export const namedRooms = (quote, roomTypes) =>
  quote.rooms.map((room) => ({ ...room, room_name: (roomTypes.find((type) => type.id === room.room_type_id) || {}).name || room.room_type_id }))

/**
 * The quote as the booking page's offer groups (book-offers.js `offerGroups`): one group, as the
 * offers price every room of the quote together; named after its rooms, described by its room type
 * when there is one.
 */
export const offerGroupsOf = (quote, roomTypes) => {
  const rooms = namedRooms(quote, roomTypes)
  const ids = [...new Set(quote.rooms.map((room) => room.room_type_id))]
  const only = ids.length === 1 ? roomTypes.find((type) => type.id === ids[0]) : undefined
  const name = rooms.map((room) => (room.quantity > 1 ? `${room.quantity} × ${room.room_name}` : room.room_name)).join(", ")
  return [{ type: { id: ids.join("-"), name, description: only ? only.description : null }, quote }]
}

/**
 * The language to show, among `languages`: the one quote_stay was asked in (its offers' names are in
 * it), else the host's locale (BCP 47, "fr-CA" is French), else English.
 */
export const appLanguage = (toolArguments, hostLocale, languages) => {
  const asked = toolArguments && toolArguments.language
  if (languages.includes(asked)) return asked
  const primary = String(hostLocale || "").split("-")[0].toLowerCase()
  return languages.includes(primary) ? primary : "en"
}

/**
 * The arguments of create_reservation_intent for `offer` of `quote`: its idempotency key names the
 * choice, so choosing the same offer again (a double press, a retry after a lost answer) answers the
 * same reservation and continue_url instead of making another.
 */
export const intentArguments = (quote, offer, language) => ({
  quote_id: quote.quote_id,
  package_code: offer.package_code,
  language,
  idempotency_key: `offers-app:${quote.quote_id}:${offer.package_code}:${language}`
})

/** The refusals after which this quote cannot be booked as shown (expired, gone, changed): a new quote is needed. */
const STALE = ["not_found", "quote_expired", "quote_not_reservable"]

/**
 * What the intent tool answered: `{ continueUrl, expiresAt }` of a reservation made, else
 * `{ stale: true }` when the quote no longer holds, else `{ failed: true }` (the guest may try again).
 */
export const intentOutcome = (result) => {
  const body = result ? bodyOf(result) : undefined
  if (result && !result.isError && body && typeof body.continue_url === "string") return { continueUrl: body.continue_url, expiresAt: body.expires_at }
  const code = body && body.error && body.error.code
  return STALE.includes(code) ? { stale: true } : { failed: true }
}
