/* Manage page (/manage#token=…, the confirmation email's link): the reservation as it is now, a
   change of its dates or rooms (manage-change.js), the guest's details, the confirmation PDF and
   email, the cancellation. */
import { answered, clear, messageSlot, notice, ownLimit, say, setStatus, show, showInvalid, showLoadError, startPage, useLanguage } from "./guest.js"
import { apiWith, fetchRoomTypes, takeToken } from "./guest-api.js"
import { el } from "./guest-dom.js"
import { checkForm, fieldControl, serverFieldError } from "./guest-form.js"
import { fmtDateTime, fmtTime } from "./guest-format.js"
import { fact, summary } from "./guest-summary.js"
import { LIMITS } from "./guest-i18n.js"
import { loadLanguage, refusal, t, word } from "./guest-text.js"
import { changeCard, refusalOf } from "./manage-change.js"

const hotelLoaded = startPage("titleManage")
const token = takeToken()
const api = apiWith(token)

const REQUESTS = ["baby_cot", "early_check_in_request", "late_check_out_request"]

/** The room types a stay change offers, named in the reservation's language (null: only its own). */
let roomTypes = null

async function load() {
  setStatus(t("loading"))
  const [, res] = await Promise.all([hotelLoaded, answered((signal) => api.json("/v1/reservation-manage", undefined, signal))])
  if (res.status === 401 || res.status === 404) return showInvalid("invalidManage")
  if (!res.ok || !res.body) return showLoadError(load)
  await loadLanguage(res.body.language)
  if ((res.body.allowed_actions || []).includes("change_stay")) {
    const types = await answered((signal) => fetchRoomTypes(res.body.language, signal))
    roomTypes = types.ok && types.body ? types.body.rooms : null
  }
  render(res.body)
}

/**
 * Shows the reservation as the API answered it, then `after` (a message in one of the new
 * sections); focus returns to the control that had it, or to the message when that control is gone.
 */
function render(r, after) {
  const focused = document.activeElement && document.activeElement.id
  useLanguage(r.language)
  const active = r.status === "GUEST_COMPLETED"
  const actions = r.allowed_actions || []
  show(
    r.status === "CANCELLED" ? notice("error", t("cancelledTitle"), el("p", null, t("cancelledText"))) : null,
    reservationCard(r),
    guestCard(r),
    summary(r),
    active ? changeCard(r, { api, roomTypes, render, failed }) : null,
    active && actions.includes("update_guest") ? editForm(r) : null,
    active ? documentsCard(r, actions) : null,
    active ? cancellationCard(r, actions) : null
  )
  if (after) after()
  const again = focused && document.getElementById(focused)
  if (again && !again.hidden && !again.disabled) again.focus()
}

function reservationCard(r) {
  return el(
    "section",
    { class: "card", id: "reservation", "aria-labelledby": "reservation-title" },
    el("h2", { id: "reservation-title", tabindex: -1, "data-focus": r.status !== "CANCELLED" }, t("number")),
    el("p", { class: "number", id: "reservation-number" }, r.reservation_number || ""),
    el(
      "dl",
      { class: "facts" },
      fact(t("status"), el("span", { id: "reservation-status", class: `badge badge-${r.status.toLowerCase()}` }, word("statuses", r.status))),
      r.pms_status ? fact(t("pms"), el("span", { id: "pms-status" }, word("pmsStatuses", r.pms_status))) : null
    )
  )
}

function guestCard(r) {
  const g = r.guest
  if (!g) return null
  const requests = REQUESTS.filter((name) => g[name]).map((name) => t(name))
  return el(
    "section",
    { class: "card", id: "guest", "aria-labelledby": "guest-title" },
    el("h2", { id: "guest-title" }, t("guest")),
    el(
      "dl",
      { class: "facts" },
      fact(t("name"), `${g.first_name} ${g.last_name}`),
      fact(t("email"), g.email),
      fact(t("phone"), el("span", { id: "guest-phone" }, g.phone)),
      g.country ? fact(t("country"), g.country) : null,
      fact(t("arrival_time"), g.arrival_time ? fmtTime(g.arrival_time) : t("notGiven")),
      fact(t("requests"), requests.length > 0 ? requests.join(", ") : t("none")),
      g.special_requests ? fact(t("special_requests"), el("span", { class: "pre" }, g.special_requests)) : null
    )
  )
}

/** The guest's changeable details (the API's editable_fields, in their order); only what changed is sent. */
function editForm(r) {
  const g = r.guest || {}
  const fields = r.editable_fields
  const message = messageSlot("edit-message")
  const submit = el("button", { type: "submit", id: "save" }, t("save"))
  const form = el(
    "form",
    { id: "edit-form", class: "card", novalidate: true, "aria-labelledby": "edit-title" },
    el("h2", { id: "edit-title" }, t("editTitle")),
    el("p", { class: "note" }, t("editNote")),
    fields.filter((f) => f.type !== "checkbox").map((f) => fieldControl(f, g[f.name])),
    el("fieldset", null, el("legend", null, t("requests")), fields.filter((f) => f.type === "checkbox").map((f) => fieldControl(f, g[f.name]))),
    message,
    submit
  )
  form.addEventListener("input", (e) => e.target.removeAttribute("aria-invalid"))

  const changes = () => {
    const update = {}
    for (const f of fields) {
      const input = form.elements.namedItem(f.name)
      if (f.type === "checkbox") {
        if (input.checked !== (g[f.name] === true)) update[f.name] = input.checked
      } else {
        const value = input.value.trim() === "" ? null : input.value.trim()
        if (value !== (g[f.name] ?? null)) update[f.name] = value
      }
    }
    return update
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault()
    if (submit.disabled) return
    const problem = checkForm(form)
    if (problem) return say(message, "error", problem)
    const update = changes()
    if (Object.keys(update).length === 0) return say(message, "warn", t("nothingChanged"))
    clear(message)
    submit.disabled = true
    setStatus(t("sending"))
    const res = await answered((signal) => api.json("/v1/reservation-manage", { action: "update_guest", ...update }, signal), message)
    submit.disabled = false
    setStatus("")
    if (res.ok && res.body) return render(res.body, () => say(document.getElementById("edit-message"), "ok", t("saved")))
    if (res.status === 400) return say(message, "error", serverFieldError(form, res.body && res.body.error))
    failed(res, message)
  })
  return form
}

/** A failure every action may meet: a lapsed link, a reservation cancelled meanwhile, anything else. */
async function failed(res, message) {
  const code = res.body && res.body.error && res.body.error.code
  if (res.status === 401) return showInvalid("invalidManage")
  if (res.status === 409 && code === "already_cancelled") {
    const now = await answered((signal) => api.json("/v1/reservation-manage", undefined, signal), message)
    if (now.ok && now.body) return render(now.body, () => setStatus(t("alreadyCancelled")))
  }
  say(message, "error", t("failed"))
}

function documentsCard(r, actions) {
  const message = messageSlot("documents-message")
  const download = el("button", { type: "button", id: "download-pdf", class: "secondary" }, t("download"))
  const resend = el("button", { type: "button", id: "resend", class: "secondary" }, t("resend"))

  download.addEventListener("click", async () => {
    clear(message)
    download.disabled = true
    say(message, "none", t("downloading"))
    const res = await answered((signal) => api.raw("/v1/reservation-document", { headers: { Accept: "application/pdf" }, signal }), message)
    download.disabled = false
    if (!res.ok) return failed({ status: res.status, body: await res.json().catch(() => null) }, message)
    // the API needs the token header, so a plain link cannot fetch it: save it from a blob URL
    const blob = await res.blob()
    const named = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") || "")
    const url = URL.createObjectURL(blob)
    const link = el("a", { href: url, download: named ? named[1] : `${r.reservation_number}.pdf`, hidden: true })
    document.body.append(link)
    link.click()
    link.remove()
    setTimeout(() => URL.revokeObjectURL(url), 60_000)
    say(message, "ok", t("downloaded"))
  })

  resend.addEventListener("click", async () => {
    clear(message)
    resend.disabled = true
    // the resend's own interval says its wait (429)
    const res = await answered((signal) => api.json("/v1/reservation-manage", { action: "resend_confirmation" }, signal), message, ownLimit)
    resend.disabled = false
    if (res.ok && res.body) {
      return render(res.body, () => say(document.getElementById("documents-message"), "ok", t("resent", { email: r.guest.email })))
    }
    if (res.status === 429) {
      const details = res.body && res.body.error && res.body.error.details
      const seconds = (details && details.retry_after_seconds) || Number(res.headers.get("retry-after")) || LIMITS.resendIntervalSeconds
      return say(message, "warn", t("rateLimited", { n: Math.max(1, Math.ceil(seconds / 60)) }))
    }
    failed(res, message)
  })

  return el(
    "section",
    { class: "card", id: "documents", "aria-labelledby": "documents-title" },
    el("h2", { id: "documents-title" }, t("docsTitle")),
    el(
      "div",
      { class: "actions" },
      actions.includes("download_document") ? download : null,
      actions.includes("resend_confirmation") ? resend : null
    ),
    message
  )
}

/** Cancel, with a confirmation step; or why it is not possible and whom to ask. */
function cancellationCard(r, actions) {
  const message = messageSlot("cancel-message")
  const section = el("section", { class: "card", id: "cancellation", "aria-labelledby": "cancel-title" }, el("h2", { id: "cancel-title" }, t("cancelTitle")))
  const deadline = r.policies.free_cancellation_until
  if (!actions.includes("cancel")) {
    const late = refusalOf(r, "cancel") === "deadline_passed" && deadline
    const why = refusal("cancel", late ? "deadline_passed" : "non_refundable", { when: late && fmtDateTime(deadline) })
    section.append(el("p", { id: "cannot-cancel", tabindex: -1 }, why))
    return section
  }
  if (deadline) section.append(el("p", null, t("freeUntil", { when: fmtDateTime(deadline) })))
  const open = el("button", { type: "button", id: "cancel", class: "danger", "aria-expanded": "false", "aria-controls": "cancel-confirm" }, t("cancelButton"))
  const no = el("button", { type: "button", id: "cancel-no", class: "secondary" }, t("cancelNo"))
  const yes = el("button", { type: "button", id: "cancel-yes", class: "danger" }, t("cancelYes"))
  const confirm = el(
    "div",
    { id: "cancel-confirm", class: "confirm", role: "group", "aria-labelledby": "cancel-confirm-title", hidden: true },
    el("h3", { id: "cancel-confirm-title" }, t("confirmTitle", { number: r.reservation_number })),
    el("p", null, t("confirmText")),
    el("div", { class: "actions" }, yes, no)
  )
  const toggle = (on) => {
    confirm.hidden = !on
    open.hidden = on
    open.setAttribute("aria-expanded", String(on))
    ;(on ? no : open).focus()
  }
  open.addEventListener("click", () => toggle(true))
  no.addEventListener("click", () => toggle(false))
  confirm.addEventListener("keydown", (e) => {
    if (e.key === "Escape") toggle(false)
  })
  yes.addEventListener("click", async () => {
    yes.disabled = no.disabled = true
    setStatus(t("sending"))
    const res = await answered((signal) => api.json("/v1/reservation-manage", { action: "cancel" }, signal), message)
    yes.disabled = no.disabled = false
    setStatus("")
    if (res.ok && res.body) return render(res.body, () => setStatus(t("cancelledNow")))
    if (res.status === 409 && res.body && res.body.error.code === "cancellation_not_allowed") {
      // the deadline passed while the page was open: show the reservation as it now is
      const now = await answered((signal) => api.json("/v1/reservation-manage", undefined, signal), message)
      if (now.ok && now.body) return render(now.body, () => document.getElementById("cannot-cancel")?.focus())
    }
    failed(res, message)
  })
  section.append(open, confirm, message)
  return section
}

if (!token) {
  hotelLoaded.then(() => showInvalid("noTokenManage"))
} else {
  load()
}
