/* Guest completion page (/complete#token=…): shows the reservation and sends the guest's details. */
import { answered, focusSoon, messageSlot, notice, ownLimit, say, setStatus, show, showInvalid, showLoadError, startPage, useLanguage } from "./guest.js"
import { apiWith, takeToken } from "./guest-api.js"
import { el } from "./guest-dom.js"
import { checkForm, controlsOf, fieldControl, serverFieldError } from "./guest-form.js"
import { fmtDateTime, money } from "./guest-format.js"
import { fact, reasonText, summary } from "./guest-summary.js"
import { LIMITS } from "./guest-i18n.js"
import { loadLanguage, t } from "./guest-text.js"

const hotelLoaded = startPage("titleComplete")
const token = takeToken()
const api = apiWith(token)

async function load() {
  setStatus(t("loading"))
  const [, res] = await Promise.all([hotelLoaded, answered((signal) => api.json("/v1/reservation-public", undefined, signal))])
  if (res.status === 401 || res.status === 404) return showInvalid("invalidComplete")
  if (!res.ok || !res.body) return showLoadError(load)
  const r = res.body
  await loadLanguage(r.language)
  useLanguage(r.language)
  if (r.status === "GUEST_COMPLETED") return show(confirmation(r.reservation_number, null), summary(r))
  if (r.status === "EXPIRED") return show(notice("error", t("expiredTitle"), el("p", null, t("expiredText"))))
  if (r.status === "CANCELLED") return show(notice("error", t("cancelledTitle")), summary(r))
  const details = summary(r)
  if (r.expires_at) details.append(el("p", { class: "note" }, t("linkValid", { when: fmtDateTime(r.expires_at) })))
  show(details, guestForm(r))
}

function guestForm(r) {
  const fields = r.guest_fields
  const texts = fields.filter((f) => f.type !== "checkbox")
  const checks = fields.filter((f) => f.type === "checkbox")
  const message = messageSlot("form-message")
  const submit = el("button", { type: "submit", class: "primary", id: "submit" }, t("submit"))
  const form = el(
    "form",
    { id: "guest-form", class: "card", novalidate: true, "aria-labelledby": "details-title" },
    el("h2", { id: "details-title" }, t("details")),
    el("p", { class: "note" }, t("requiredNote")),
    texts.map((f) => fieldControl(f, r.guest ? r.guest[f.name] : null)),
    checks.length > 0
      ? el("fieldset", null, el("legend", null, t("requests")), checks.map((f) => fieldControl(f, r.guest ? r.guest[f.name] : null)))
      : null,
    el("h2", { id: "terms-title" }, t("terms")),
    el("div", { class: "terms", tabindex: 0, role: "region", "aria-labelledby": "terms-title" }, r.terms.text),
    fieldControl({ name: "accept_terms", type: "checkbox", required: true }, null),
    message,
    submit
  )
  let expectedTotal = r.price.total // the total shown: what the guest agrees to pay
  const tell = (kind, ...nodes) => {
    say(message, kind, ...nodes)
    submit.hidden = false
  }
  const busy = (on) => {
    for (const button of form.querySelectorAll("button")) button.disabled = on
    form.setAttribute("aria-busy", String(on))
    setStatus(on ? t("sending") : "")
  }
  form.addEventListener("input", (e) => e.target.removeAttribute("aria-invalid"))

  const payload = () => {
    const body = {}
    for (const f of fields) {
      const input = form.elements.namedItem(f.name)
      if (!input) continue
      if (f.type === "checkbox") body[f.name] = input.checked
      else if (input.value.trim() !== "") body[f.name] = f.type === "country" ? input.value.trim().toUpperCase() : input.value.trim()
    }
    return { ...body, accept_terms: true, terms_version: r.terms.version, expected_total: expectedTotal }
  }

  async function send() {
    const country = form.elements.namedItem("country")
    if (country) country.value = country.value.trim().toUpperCase()
    const problem = checkForm(form)
    if (problem) return tell("error", problem)
    busy(true)
    // the limit of completions says its own wait (429); what the guest typed is read again on a retry
    const res = await answered((signal) => api.json("/v1/reservation-complete", payload(), signal), message, ownLimit)
    busy(false)
    const error = (res.body && res.body.error) || {}
    if (res.ok && res.body) {
      return show(confirmation(res.body.reservation_number, res.body.message), summary({ ...r, price: res.body.price || r.price }))
    }
    if (res.status === 401) return showInvalid("invalidComplete")
    if (res.status === 409 && error.code === "price_changed") return priceChanged(error.details || {})
    if (res.status === 409 && error.code === "availability_changed") return availabilityChanged(error.details || {})
    if (res.status === 400) return tell("error", serverFieldError(form, error))
    if (res.status === 429 && error.code === "rate_limited") {
      const seconds = (error.details && error.details.retry_after_seconds) || Number(res.headers.get("retry-after")) || LIMITS.completionWindowSeconds
      return tell("error", t("tooManyCompletions", { n: Math.max(1, Math.ceil(seconds / 60)) }))
    }
    tell("error", t("failed"))
  }

  /** The changed room requests (error.details.rooms of a 409), named as the summary names them. */
  const changedRooms = (d) => {
    const nameOf = (room) => (r.rooms.find((x) => x.room_index === room.room_index) || {}).room_name || room.room_type_id
    const items = (d.rooms || []).map((room) => {
      const reason = reasonText(room)
      return el("li", null, el("strong", null, nameOf(room)), reason ? ` — ${reason}` : "")
    })
    return items.length > 0 ? el("ul", { class: "rooms" }, items) : null
  }

  /** Says the old and new totals and lets the guest accept the new one. */
  function priceChanged(d) {
    const currency = d.currency || r.price.currency
    const confirm = el("button", {
      type: "button",
      id: "confirm-new-total",
      onclick: () => {
        expectedTotal = d.new_total
        document.getElementById("total").textContent = money(d.new_total, currency)
        send()
      }
    }, t("confirmNew"))
    tell(
      "warn",
      el("h2", { id: "price-changed" }, t("priceTitle")),
      el("p", null, t("priceText")),
      el(
        "dl",
        { class: "facts" },
        fact(t("previousTotal"), el("span", { class: "old", id: "previous-total" }, money(d.previous_total ?? expectedTotal, currency))),
        fact(t("newTotal"), el("strong", { id: "new-total" }, money(d.new_total, currency)))
      ),
      changedRooms(d),
      el("p", null, confirm)
    )
    submit.hidden = true
    focusSoon(confirm)
  }

  function availabilityChanged(d) {
    tell("error", el("h2", { id: "availability-changed" }, t("availTitle")), changedRooms(d), el("p", null, t("availText")))
    for (const e of controlsOf(form)) e.disabled = true
    submit.hidden = true
    focusSoon(message) // the button that was pressed was disabled meanwhile, and lost the focus
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault()
    if (!submit.disabled) send()
  })
  return form
}

function confirmation(number, message) {
  return notice(
    "ok",
    t("confirmedTitle"),
    el("p", null, t("number")),
    el("p", { class: "number", id: "reservation-number" }, number || ""),
    message ? el("p", null, message) : null
  )
}

if (!token) {
  hotelLoaded.then(() => showInvalid("invalidComplete"))
} else {
  load()
}
