/* The guest pages' calls of the API. The link's token lives only in memory: it is removed from
   the address bar at once, and sent only in the X-Reservation-Token header. */

/** The token, read once from the fragment, then dropped from the address bar and history. */
export const takeToken = () => {
  const token = new URLSearchParams(location.hash.slice(1)).get("token")
  if (location.hash) history.replaceState(null, "", location.pathname + location.search)
  // another link opened in this tab only changes the fragment: start again with its token
  window.addEventListener("hashchange", () => location.reload())
  return token
}

/** A public read of the API (no token), or null when it cannot be had. */
const fetchPublic = (path) =>
  fetch(path, { cache: "no-store", credentials: "omit", headers: { Accept: "application/json" } })
    .then((response) => (response.ok ? response.json() : null))
    .catch(() => null)

/** The hotel's public facts, or null. */
export const fetchHotel = () => fetchPublic("/v1/hotel")
/** The room types with their names in `language` ({ rooms }), or null. */
export const fetchRoomTypes = (language) => fetchPublic(`/v1/room-types?language=${encodeURIComponent(language)}`)

/**
 * A call of the API, JSON in (a POST when `body` is given) and out, never with credentials: its
 * status, headers and body; a network failure is status 0.
 */
export const callJson = (path, { body, headers = {} } = {}) =>
  fetch(path, {
    cache: "no-store",
    credentials: "omit",
    ...(body === undefined ? {} : { method: "POST", body: JSON.stringify(body) }),
    headers: { Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers }
  })
    .then(async (response) => ({
      status: response.status,
      ok: response.ok,
      headers: response.headers,
      body: await response.json().catch(() => null)
    }))
    .catch(() => ({ status: 0, ok: false, headers: new Headers(), body: null }))

/** Calls of the API with the link's token. */
export const apiWith = (token) => {
  const raw = (path, init = {}) =>
    fetch(path, {
      ...init,
      cache: "no-store",
      credentials: "omit",
      headers: { Accept: "application/json", "X-Reservation-Token": token, ...init.headers }
    })
  const json = (path, body) => callJson(path, { body, headers: { "X-Reservation-Token": token } })
  return { raw, json }
}
