/* The manage page's stay change: new dates and rooms, their price and the difference from the
   current total (quote_change, which changes nothing), then the change itself (change_stay) at the
   total the guest saw. A refusal (new price, a sold-out night, too late) says what to do next. */
import { answered, clear, focusSoon, messageSlot, ownLimit, say, setStatus } from "./guest.js"
import { el } from "./guest-dom.js"
import { checkForm, serverFieldError } from "./guest-form.js"
import { fmtDateTime, money } from "./guest-format.js"
import { fact, reasonText, roomLine, stayFacts } from "./guest-summary.js"
import { LIMITS } from "./guest-i18n.js"
import { hasText, refusal, t } from "./guest-text.js"

/** The adults a room may take, as POST /v1/quotes takes them: 1 to LIMITS.adultsPerRoom. */
const ADULTS = Array.from({ length: LIMITS.adultsPerRoom }, (_, i) => i + 1)

/** The API's amounts are decimals: compared and subtracted in cents. */
const cents = (amount) => Math.round(amount * 100)
const signed = (amount, currency) => {
  const c = cents(amount)
  return c > 0 ? `+${money(c / 100, currency)}` : c < 0 ? `−${money(-c / 100, currency)}` : money(0, currency)
}
const differenceText = (amount, currency) => {
  const c = cents(amount)
  if (c === 0) return t("changeSamePrice")
  return t(c > 0 ? "changeCostsMore" : "changeCostsLess", { amount: money(Math.abs(c) / 100, currency) })
}
const parseAges = (text) => text.split(",").map((age) => age.trim()).filter((age) => age !== "").map(Number)
/** The room requests as the API takes them, in one key order so that two can be compared as JSON. */
const roomRequest = (room) => ({
  room_type_id: room.room_type_id,
  quantity: room.quantity,
  adults: room.adults,
  children_ages: room.children_ages || []
})

/** Why the API refuses `action` ("cancel", "change_stay") now: its refused_actions' reason, or undefined. */
export const refusalOf = (r, action) => ((r.refused_actions || []).find((refused) => refused.action === action) || {}).reason

/** Why the stay cannot be changed here: change_not_allowed's reason, or the view's refused_actions. */
const cannotChangeText = (r, reason) => {
  const deadline = r.policies.free_cancellation_until
  const why = reason || refusalOf(r, "change_stay")
  return refusal("change_stay", why, { when: deadline && fmtDateTime(deadline) }) || refusal("change_stay", "not_completed")
}

/**
 * The "Change dates or rooms" card of a completed reservation `r`. `roomTypes` are GET
 * /v1/room-types' rooms in the page's language (null: only the reservation's own types are offered);
 * `render(view, after)` shows the reservation as the API answered it; `failed` says any other failure.
 */
export function changeCard(r, { api, roomTypes, render, failed }) {
  const section = el(
    "section",
    { class: "card", id: "change", "aria-labelledby": "change-title" },
    el("h2", { id: "change-title" }, t("changeTitle"))
  )
  if (!(r.allowed_actions || []).includes("change_stay")) {
    section.append(el("p", { id: "cannot-change", tabindex: -1 }, cannotChangeText(r)))
    return section
  }

  // the hotel's room types, and the reservation's own even when the hotel no longer offers them
  const types = [...new Map([
    ...(roomTypes || []).map((type) => [type.id, { id: type.id, name: type.name }]),
    ...r.rooms.map((room) => [room.room_type_id, { id: room.room_type_id, name: room.room_name }])
  ]).values()]
  const nameOf = (id) => (types.find((type) => type.id === id) || {}).name || id
  const current = { checkin: r.stay.checkin, checkout: r.stay.checkout, rooms: r.rooms.map(roomRequest) }
  const currency = r.price.currency

  const dateField = (name, label, value) => {
    const input = el("input", { type: "date", id: `change-${name}`, name, required: true })
    input.value = value
    return el("div", { class: "field" }, el("label", { for: input.id }, label), input)
  }
  const checkin = dateField("checkin", t("arrival"), r.stay.checkin)
  const checkout = dateField("checkout", t("departure"), r.stay.checkout)

  // ---- the room lines: one fieldset each, numbered as shown; ids stay unique as lines come and go ----
  const lines = el("div", { id: "change-rooms" })
  let made = 0
  const lineFields = (room) => {
    const n = made++
    const id = (what) => `change-${what}-${n}`
    const quantity = el("input", {
      type: "number",
      id: id("quantity"),
      name: "quantity",
      min: 1,
      max: LIMITS.roomsPerRequest,
      step: 1,
      required: true,
      inputmode: "numeric",
      class: "short"
    })
    quantity.value = String(room.quantity)
    const ages = el("input", {
      type: "text",
      id: id("ages"),
      name: "children_ages",
      pattern: LIMITS.childAgesPattern,
      maxlength: LIMITS.childAgesMaxLength,
      inputmode: "text",
      autocomplete: "off",
      "aria-describedby": `${id("ages")}-hint`
    })
    ages.value = (room.children_ages || []).join(", ")
    const remove = el("button", { type: "button", id: id("remove"), class: "secondary" })
    const line = el(
      "fieldset",
      { class: "room-line", id: id("line") },
      el("legend", null),
      el(
        "div",
        { class: "field" },
        el("label", { for: id("type") }, t("roomType")),
        el(
          "select",
          { id: id("type"), name: "room_type_id", required: true },
          types.map((type) => el("option", { value: type.id, selected: type.id === room.room_type_id }, type.name))
        )
      ),
      el(
        "div",
        { class: "room-fields" },
        el("div", { class: "field" }, el("label", { for: id("quantity") }, t("roomCount")), quantity),
        el(
          "div",
          { class: "field" },
          el("label", { for: id("adults") }, t("adultsLabel")),
          el("select", { id: id("adults"), name: "adults" }, ADULTS.map((a) => el("option", { value: a, selected: a === room.adults }, String(a))))
        )
      ),
      el(
        "div",
        { class: "field" },
        el("label", { for: id("ages") }, t("childrenAges")),
        el("span", { class: "hint", id: `${id("ages")}-hint` }, t("hint_children_ages")),
        ages
      ),
      remove
    )
    remove.addEventListener("click", () => {
      const next = line.nextElementSibling || line.previousElementSibling
      line.remove()
      numberLines()
      staleQuote()
      ;(next ? next.querySelector("select") : addRoom).focus()
    })
    return line
  }
  /** Legends and remove buttons say which room they are; the last line cannot be removed. */
  const numberLines = () => {
    const all = [...lines.children]
    all.forEach((line, i) => {
      line.querySelector("legend").textContent = t("roomN", { n: i + 1 })
      const remove = line.querySelector("button")
      remove.textContent = t("removeRoom", { n: i + 1 })
      remove.hidden = all.length === 1
    })
    addRoom.hidden = all.length >= LIMITS.roomRequests
  }
  const addRoom = el("button", { type: "button", id: "change-add-room", class: "secondary" }, t("addRoom"))
  addRoom.addEventListener("click", () => {
    const line = lineFields({ room_type_id: types[0].id, quantity: 1, adults: LIMITS.adultsPerRoom, children_ages: [] })
    lines.append(line)
    numberLines()
    staleQuote()
    line.querySelector("select").focus()
  })
  lines.append(...r.rooms.map(lineFields))

  const message = messageSlot("change-message")
  const result = messageSlot("change-result")
  const quote = el("button", { type: "submit", id: "change-quote" }, t("seePrice"))
  const form = el(
    "form",
    { id: "change-form", novalidate: true, "aria-labelledby": "change-title" },
    el("div", { class: "dates" }, checkin, checkout),
    lines,
    el("div", { class: "actions" }, addRoom),
    message,
    quote
  )
  numberLines()
  const deadline = r.policies.free_cancellation_until
  section.append(el("p", { class: "note" }, t("changeNote", { rate: r.package.name })))
  if (deadline) section.append(el("p", { class: "note", id: "change-until" }, t("changeUntil", { when: fmtDateTime(deadline) })))
  section.append(form, result)

  /** A price shown for other dates or rooms than the form's must not be confirmed. */
  const staleQuote = () => clear(result)
  form.addEventListener("input", (e) => {
    e.target.removeAttribute("aria-invalid")
    clear(message)
    staleQuote()
  })

  const asked = () => ({
    checkin: form.elements.namedItem("checkin").value,
    checkout: form.elements.namedItem("checkout").value,
    rooms: [...lines.children].map((line) =>
      roomRequest({
        room_type_id: line.querySelector("[name=room_type_id]").value,
        quantity: Number(line.querySelector("[name=quantity]").value),
        adults: Number(line.querySelector("[name=adults]").value),
        children_ages: parseAges(line.querySelector("[name=children_ages]").value)
      })
    )
  })
  /** What the browser can tell before asking: every field valid, the departure after the arrival. */
  const problem = () => {
    const invalid = checkForm(form)
    if (invalid) return invalid
    const out = form.elements.namedItem("checkout")
    if (out.value <= form.elements.namedItem("checkin").value) {
      out.setAttribute("aria-invalid", "true")
      out.focus()
      return t("changeDatesOrder")
    }
    return null
  }
  const busy = (on) => {
    for (const control of section.querySelectorAll("button, input, select")) control.disabled = on
    section.setAttribute("aria-busy", String(on))
    setStatus(on ? t("sending") : "")
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault()
    if (quote.disabled) return
    staleQuote()
    const wrong = problem()
    if (wrong) return say(message, "error", wrong)
    const change = asked()
    if (JSON.stringify(change) === JSON.stringify(current)) return say(message, "warn", t("changeNothing"))
    clear(message)
    busy(true)
    const res = await answered((signal) => api.json("/v1/reservation-manage", { action: "quote_change", ...change }, signal), message)
    busy(false)
    if (res.ok && res.body) return showQuote(change, res.body)
    refused(res, change)
  })

  /** The new stay (its rooms named in the reservation's language) and its price beside the current one; Confirm changes it at that total. */
  function showQuote(change, q) {
    const { stay, currency: quoteCurrency } = q
    const confirm = el("button", { type: "button", id: "change-confirm" }, t("confirmChange"))
    confirm.addEventListener("click", () => send(change, q.new_total))
    const heading = el("h3", { id: "change-result-title", tabindex: -1 }, t("changeQuoteTitle"))
    say(
      result,
      "none",
      heading,
      el(
        "dl",
        { class: "facts" },
        stayFacts(stay),
        fact(t("rooms"), el("ul", { class: "rooms" }, q.rooms.map(roomLine))),
        fact(t("currentTotal"), el("span", { id: "change-previous-total" }, money(q.previous_total, quoteCurrency))),
        fact(t("newTotal"), el("strong", { id: "change-new-total" }, money(q.new_total, quoteCurrency))),
        fact(t("difference"), el("strong", { id: "change-difference" }, signed(q.difference, quoteCurrency)))
      ),
      el("p", { id: "change-difference-text" }, differenceText(q.difference, quoteCurrency)),
      el("div", { class: "actions" }, confirm)
    )
    focusSoon(heading)
  }

  async function send(change, expectedTotal) {
    busy(true)
    // the online limits of bookings from one address say their own wait (429)
    const res = await answered((signal) => api.json("/v1/reservation-manage", { action: "change_stay", ...change, expected_total: expectedTotal }, signal), message, ownLimit)
    busy(false)
    if (res.ok && res.body) {
      return render(res.body, () => {
        const done = document.getElementById("change-message")
        if (!done) return setStatus(t("stayChanged"))
        say(done, "ok", t("stayChanged"))
        focusSoon(done) // once it has its text: an empty notice is not shown, so cannot take focus
      })
    }
    refused(res, change)
  }

  /** A refusal of either action, said in the guest's language next to the form. */
  function refused(res, change) {
    const error = (res.body && res.body.error) || {}
    const details = error.details || {}
    if (res.status === 409 && error.code === "price_changed") return priceChanged(change, details)
    if (res.status === 409 && error.code === "availability_changed") return unavailable(details)
    if (res.status === 409 && error.code === "change_not_allowed") return notAllowed(details.reason)
    if (res.status === 429 && error.code === "rate_limited") {
      const seconds = details.retry_after_seconds || Number(res.headers.get("retry-after")) || LIMITS.completionWindowSeconds
      say(message, "error", t("tooManyChanges", { n: Math.max(1, Math.ceil(seconds / 60)) }))
      return focusSoon(message)
    }
    if (res.status === 400) {
      const named = serverFieldError(form, error) // marks the field the API names, when the form has it
      // more rooms than one reservation may hold: the API says group_booking
      const group = details.reason === "group_booking"
      const text = group ? refusal("change_stay", "group_booking") : hasText(`change_${error.code}`) ? t(`change_${error.code}`) : named
      say(message, "error", text)
      if (!form.querySelector("[aria-invalid=true]")) focusSoon(message)
      return
    }
    failed(res, message)
    focusSoon(message) // the button that was pressed was disabled meanwhile, and lost the focus
  }

  /** The price moved between the quote and the confirmation: the new total, and a way to accept it. */
  function priceChanged(change, d) {
    const difference = (cents(d.new_total) - cents(r.price.total)) / 100
    const accept = el("button", { type: "button", id: "change-accept-price" }, t("confirmNew"))
    accept.addEventListener("click", () => send(change, d.new_total))
    say(
      result,
      "warn",
      el("h3", { id: "change-price-changed" }, t("priceTitle")),
      el("p", null, t("changePriceText")),
      el(
        "dl",
        { class: "facts" },
        fact(t("currentTotal"), money(r.price.total, currency)),
        fact(t("newTotal"), el("strong", { id: "change-new-total" }, money(d.new_total, currency))),
        fact(t("difference"), el("strong", { id: "change-difference" }, signed(difference, currency)))
      ),
      el("div", { class: "actions" }, accept)
    )
    focusSoon(accept)
  }

  /** A night no longer free for a room: which, and what to do; nothing has changed. */
  function unavailable(d) {
    const items = (d.rooms || []).map((room) => {
      const reason = reasonText(room, "changeReason_")
      return el("li", null, el("strong", null, nameOf(room.room_type_id)), reason ? ` — ${reason}` : "")
    })
    const heading = el("h3", { id: "change-unavailable", tabindex: -1 }, t("changeUnavailableTitle"))
    say(result, "error", heading, items.length > 0 ? el("ul", { class: "rooms" }, items) : null, el("p", null, t("changeUnavailableText")))
    focusSoon(heading)
  }

  /** Too late, or no longer possible: the reservation as it now is, and why. */
  async function notAllowed(reason) {
    const now = await answered((signal) => api.json("/v1/reservation-manage", undefined, signal), message)
    if (!now.ok || !now.body) return say(message, "error", cannotChangeText(r, reason))
    render(now.body, () => {
      // a cancelled reservation has no change card: the status line says it
      const why = document.getElementById("cannot-change")
      if (!why) return setStatus(cannotChangeText(now.body, reason))
      why.textContent = cannotChangeText(now.body, reason)
      why.focus()
    })
  }

  return section
}
