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

/** What a call answers when no answer came (the network failed, or the call was abandoned): status 0. */
export const NO_ANSWER = { status: 0, ok: false, headers: new Headers(), body: null }

/** An answer with its JSON body (null when it has none). */
const read = async (response) => ({
  status: response.status,
  ok: response.ok,
  headers: response.headers,
  body: await response.json().catch(() => null)
})

/** A public read of the API (no token); `signal` abandons it. */
const fetchPublic = (path, signal) =>
  fetch(path, { cache: "no-store", credentials: "omit", headers: { Accept: "application/json" }, signal })
    .then(read)
    .catch(() => NO_ANSWER)

/** The hotel's public facts. */
export const fetchHotel = (signal) => fetchPublic("/v1/hotel", signal)
/** The room types with their names in `language` ({ rooms }). */
export const fetchRoomTypes = (language, signal) => fetchPublic(`/v1/room-types?language=${encodeURIComponent(language)}`, signal)

/**
 * A call of the API, JSON in (a POST when `body` is given) and out, never with credentials, with
 * `headers` of its own; `signal` abandons it.
 */
export const callJson = (path, { body, headers = {}, signal } = {}) =>
  fetch(path, {
    cache: "no-store",
    credentials: "omit",
    signal,
    ...(body === undefined ? {} : { method: "POST", body: JSON.stringify(body) }),
    headers: { Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers }
  })
    .then(read)
    .catch(() => NO_ANSWER)

/** Calls of the API with the link's token; each takes the `signal` that abandons it. */
export const apiWith = (token) => {
  /** The Response, or NO_ANSWER. */
  const raw = (path, init = {}) =>
    fetch(path, {
      ...init,
      cache: "no-store",
      credentials: "omit",
      headers: { Accept: "application/json", "X-Reservation-Token": token, ...init.headers }
    }).catch(() => NO_ANSWER)
  /** JSON in (a POST with `body`, else a GET) and out. */
  const json = (path, body, signal) =>
    raw(path, body === undefined ? { signal } : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal })
      .then((response) => (response === NO_ANSWER ? NO_ANSWER : read(response)))
  return { raw, json }
}
