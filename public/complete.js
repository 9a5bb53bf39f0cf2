/* Guest completion page (/complete#token=…): shows the reservation and sends the guest's details.
   Plain ES2020, no dependencies. The token lives only in memory: it is removed from the address bar. */
(() => {
  "use strict"

  const STRINGS = {
    en: {
      title: "Complete your reservation",
      loading: "Loading your reservation…",
      invalidTitle: "This link is not valid",
      invalidText: "It may have expired or been copied incompletely. Please ask for a new quote, or contact the hotel.",
      expiredTitle: "This reservation request has expired",
      expiredText: "It was not completed in time. Please ask for a new quote.",
      cancelledTitle: "This reservation has been cancelled",
      loadError: "We could not load your reservation. Please check your connection and try again.",
      retry: "Try again",
      yourStay: "Your stay",
      arrival: "Arrival",
      departure: "Departure",
      length: "Length",
      nights: { one: "{n} night", other: "{n} nights" },
      checkInFrom: "Check-in from",
      checkOutBy: "Check-out by",
      rooms: "Rooms",
      adults: { one: "{n} adult", other: "{n} adults" },
      children: { one: "{n} child", other: "{n} children" },
      ages: "aged {list}",
      perRoom: "per room",
      package: "Package",
      breakfast: "Breakfast included",
      noBreakfast: "Breakfast not included",
      refundable: "Refundable",
      nonRefundable: "Non-refundable",
      price: "Price",
      roomTotal: "Rooms",
      discount: "Promotion",
      tax: "Tourist tax",
      total: "Total",
      cancellation: "Cancellation",
      freeUntil: "Free cancellation until {when}.",
      noPayment: "No payment required now",
      linkValid: "This link is valid until {when}.",
      details: "Your details",
      requests: "Requests",
      requiredNote: "Fields marked * are required.",
      first_name: "First name",
      last_name: "Last name",
      email: "Email",
      phone: "Phone",
      country: "Country",
      arrival_time: "Estimated arrival time",
      special_requests: "Special requests",
      baby_cot: "Baby cot",
      early_check_in_request: "Early check-in (on request)",
      late_check_out_request: "Late check-out (on request)",
      hint_email: "Your confirmation will be sent to this address.",
      hint_phone: "With country code, e.g. +33 4 93 00 12 34",
      hint_country: "Two-letter country code, e.g. FR, GB, DE",
      terms: "Terms and conditions",
      accept_terms: "I have read and accept the terms and conditions",
      submit: "Confirm my reservation",
      sending: "Sending…",
      checkFields: "Please check: {list}.",
      confirmedTitle: "Your reservation is confirmed",
      number: "Reservation number",
      priceTitle: "The price has changed",
      priceText: "The price was updated since your quote. Please review the new total.",
      previousTotal: "Previous total",
      newTotal: "New total",
      confirmNew: "Confirm new total",
      availTitle: "Some rooms are no longer available",
      availText: "Please ask for a new quote. Nothing has been booked.",
      failed: "Something went wrong. Please try again in a moment."
    },
    fr: {
      title: "Finaliser votre réservation",
      loading: "Chargement de votre réservation…",
      invalidTitle: "Ce lien n’est pas valide",
      invalidText: "Il a peut-être expiré ou été copié de façon incomplète. Demandez un nouveau devis ou contactez l’hôtel.",
      expiredTitle: "Cette demande de réservation a expiré",
      expiredText: "Elle n’a pas été finalisée à temps. Merci de demander un nouveau devis.",
      cancelledTitle: "Cette réservation a été annulée",
      loadError: "Impossible de charger votre réservation. Vérifiez votre connexion et réessayez.",
      retry: "Réessayer",
      yourStay: "Votre séjour",
      arrival: "Arrivée",
      departure: "Départ",
      length: "Durée",
      nights: { one: "{n} nuit", other: "{n} nuits" },
      checkInFrom: "Arrivée à partir de",
      checkOutBy: "Départ avant",
      rooms: "Chambres",
      adults: { one: "{n} adulte", other: "{n} adultes" },
      children: { one: "{n} enfant", other: "{n} enfants" },
      ages: "âges : {list}",
      perRoom: "par chambre",
      package: "Offre",
      breakfast: "Petit-déjeuner inclus",
      noBreakfast: "Petit-déjeuner non inclus",
      refundable: "Remboursable",
      nonRefundable: "Non remboursable",
      price: "Prix",
      roomTotal: "Chambres",
      discount: "Promotion",
      tax: "Taxe de séjour",
      total: "Total",
      cancellation: "Annulation",
      freeUntil: "Annulation gratuite jusqu’au {when}.",
      noPayment: "Aucun paiement requis maintenant",
      linkValid: "Ce lien est valable jusqu’au {when}.",
      details: "Vos coordonnées",
      requests: "Demandes",
      requiredNote: "Les champs marqués d’un * sont obligatoires.",
      first_name: "Prénom",
      last_name: "Nom",
      email: "E-mail",
      phone: "Téléphone",
      country: "Pays",
      arrival_time: "Heure d’arrivée prévue",
      special_requests: "Demandes particulières",
      baby_cot: "Lit bébé",
      early_check_in_request: "Arrivée anticipée (sur demande)",
      late_check_out_request: "Départ tardif (sur demande)",
      hint_email: "Votre confirmation sera envoyée à cette adresse.",
      hint_phone: "Avec l’indicatif du pays, p. ex. +33 4 93 00 12 34",
      hint_country: "Code pays à deux lettres, p. ex. FR, BE, CH",
      terms: "Conditions générales",
      accept_terms: "J’ai lu et j’accepte les conditions générales",
      submit: "Confirmer ma réservation",
      sending: "Envoi en cours…",
      checkFields: "Veuillez vérifier : {list}.",
      confirmedTitle: "Votre réservation est confirmée",
      number: "Numéro de réservation",
      priceTitle: "Le prix a changé",
      priceText: "Le prix a été mis à jour depuis votre devis. Vérifiez le nouveau total.",
      previousTotal: "Ancien total",
      newTotal: "Nouveau total",
      confirmNew: "Confirmer le nouveau total",
      availTitle: "Certaines chambres ne sont plus disponibles",
      availText: "Merci de demander un nouveau devis. Rien n’a été réservé.",
      failed: "Une erreur est survenue. Veuillez réessayer dans un instant."
    },
    ru: {
      title: "Завершение бронирования",
      loading: "Загружаем ваше бронирование…",
      invalidTitle: "Эта ссылка недействительна",
      invalidText: "Возможно, срок её действия истёк или она скопирована не полностью. Запросите новое предложение или свяжитесь с отелем.",
      expiredTitle: "Срок действия запроса на бронирование истёк",
      expiredText: "Бронирование не было завершено вовремя. Пожалуйста, запросите новое предложение.",
      cancelledTitle: "Это бронирование отменено",
      loadError: "Не удалось загрузить бронирование. Проверьте подключение и попробуйте ещё раз.",
      retry: "Попробовать ещё раз",
      yourStay: "Ваше проживание",
      arrival: "Заезд",
      departure: "Выезд",
      length: "Продолжительность",
      nights: { one: "{n} ночь", few: "{n} ночи", many: "{n} ночей", other: "{n} ночи" },
      checkInFrom: "Заселение с",
      checkOutBy: "Выселение до",
      rooms: "Номера",
      adults: { one: "{n} взрослый", other: "{n} взрослых" },
      children: { one: "{n} ребёнок", few: "{n} ребёнка", many: "{n} детей", other: "{n} ребёнка" },
      ages: "возраст: {list}",
      perRoom: "в каждом номере",
      package: "Тариф",
      breakfast: "Завтрак включён",
      noBreakfast: "Без завтрака",
      refundable: "С возвратом",
      nonRefundable: "Невозвратный тариф",
      price: "Стоимость",
      roomTotal: "Проживание",
      discount: "Скидка",
      tax: "Туристический налог",
      total: "Итого",
      cancellation: "Отмена",
      freeUntil: "Бесплатная отмена до {when}.",
      noPayment: "Оплата сейчас не требуется",
      linkValid: "Ссылка действительна до {when}.",
      details: "Ваши данные",
      requests: "Пожелания",
      requiredNote: "Поля, отмеченные *, обязательны.",
      first_name: "Имя",
      last_name: "Фамилия",
      email: "Электронная почта",
      phone: "Телефон",
      country: "Страна",
      arrival_time: "Ожидаемое время прибытия",
      special_requests: "Особые пожелания",
      baby_cot: "Детская кроватка",
      early_check_in_request: "Ранний заезд (по запросу)",
      late_check_out_request: "Поздний выезд (по запросу)",
      hint_email: "На этот адрес придёт подтверждение.",
      hint_phone: "С кодом страны, например +33 4 93 00 12 34",
      hint_country: "Например: RU, FR, DE",
      terms: "Условия бронирования",
      accept_terms: "Я прочитал(а) и принимаю условия бронирования",
      submit: "Подтвердить бронирование",
      sending: "Отправка…",
      checkFields: "Проверьте поля: {list}.",
      confirmedTitle: "Ваше бронирование подтверждено",
      number: "Номер бронирования",
      priceTitle: "Цена изменилась",
      priceText: "Цена изменилась с момента расчёта. Проверьте новую сумму.",
      previousTotal: "Прежняя сумма",
      newTotal: "Новая сумма",
      confirmNew: "Подтвердить новую сумму",
      availTitle: "Некоторые номера больше недоступны",
      availText: "Пожалуйста, запросите новое предложение. Ничего не забронировано.",
      failed: "Что-то пошло не так. Попробуйте ещё раз через минуту."
    }
  }

  const browserLanguage = () =>
    (navigator.languages || [navigator.language || "en"]).map((l) => l.slice(0, 2).toLowerCase()).find((l) => l in STRINGS) || "en"
  let lang = browserLanguage()

  /** A UI string, with {placeholders} filled and plural forms chosen by the language's rules. */
  const t = (key, vars = {}) => {
    let s = STRINGS[lang][key] ?? STRINGS.en[key] ?? key
    if (typeof s === "object") s = s[new Intl.PluralRules(lang).select(vars.n)] ?? s.other
    return s.replace(/\{(\w+)\}/g, (_, k) => String(vars[k]))
  }

  /** el("p", { class: "x", onclick: f }, "text", child): attributes with true are set empty, false/null skipped. */
  const el = (tag, attrs, ...children) => {
    const node = document.createElement(tag)
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === false || v === null || v === undefined) continue
      if (k.startsWith("on")) node.addEventListener(k.slice(2), v)
      else node.setAttribute(k, v === true ? "" : String(v))
    }
    for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c)
    return node
  }

  const $title = document.getElementById("title")
  const $status = document.getElementById("status")
  const $content = document.getElementById("content")
  const setStatus = (text) => { $status.textContent = text }

  // Dates and times are the hotel's local ones: format their digits, never convert them to another zone.
  const wall = (iso) => {
    const m = /^(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d))?/.exec(iso || "")
    return m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +(m[4] || 0), +(m[5] || 0))) : null
  }
  const fmt = (iso, options) => {
    const date = wall(iso)
    return date ? new Intl.DateTimeFormat(lang, { timeZone: "UTC", ...options }).format(date) : String(iso)
  }
  const fmtDate = (iso) => fmt(iso, { weekday: "short", day: "numeric", month: "long", year: "numeric" })
  const fmtDateTime = (iso) => fmt(iso, { dateStyle: "long", timeStyle: "short" })
  const fmtTime = (hhmm) => fmt(`2000-01-01T${hhmm}`, { hour: "numeric", minute: "2-digit" })
  const money = (amount, currency) => new Intl.NumberFormat(lang, { style: "currency", currency }).format(amount)

  const useLanguage = (language) => {
    if (language in STRINGS) lang = language
    document.documentElement.lang = lang
    document.title = t("title")
    $title.textContent = t("title")
  }

  /** Replaces the page's content; moves focus to the new heading so keyboard and screen-reader users follow. */
  const show = (...nodes) => {
    setStatus("")
    $content.replaceChildren(...nodes)
    const heading = $content.querySelector("[data-focus]")
    if (heading) heading.focus()
  }
  const notice = (kind, title, ...body) =>
    el("section", { class: `notice notice-${kind}`, id: `notice-${kind}` }, el("h2", { tabindex: -1, "data-focus": true }, title), ...body)

  const showInvalid = () =>
    show(el("div", { id: "invalid-link" }, notice("error", t("invalidTitle"), el("p", null, t("invalidText")))))

  // ---- the token: read once from the fragment, then dropped from the address bar and history ----
  const token = new URLSearchParams(location.hash.slice(1)).get("token")
  if (location.hash) history.replaceState(null, "", location.pathname + location.search)
  // another link opened in this tab only changes the fragment: start again with its token
  window.addEventListener("hashchange", () => location.reload())

  const api = (path, init = {}) =>
    fetch(path, {
      ...init,
      cache: "no-store",
      credentials: "omit",
      headers: { Accept: "application/json", "X-Reservation-Token": token, ...init.headers }
    }).then(async (response) => ({ status: response.status, ok: response.ok, body: await response.json().catch(() => null) }))

  async function load() {
    setStatus(t("loading"))
    let res
    try {
      res = await api("/v1/reservation-public")
    } catch {
      res = { status: 0 }
    }
    if (res.status === 401 || res.status === 404) return showInvalid()
    if (!res.ok || !res.body) {
      return show(notice("error", t("loadError"), el("p", null, el("button", { type: "button", class: "secondary", onclick: load }, t("retry")))))
    }
    const r = res.body
    useLanguage(r.language)
    if (r.status === "GUEST_COMPLETED") return show(confirmation(r.reservation_number, null), summary(r))
    if (r.status === "EXPIRED") return show(notice("error", t("expiredTitle"), el("p", null, t("expiredText"))))
    if (r.status === "CANCELLED") return show(notice("error", t("cancelledTitle")), summary(r))
    show(summary(r), guestForm(r))
    setStatus("")
  }

  // ---- summary ----
  const fact = (term, value) => [el("dt", null, term), el("dd", null, value)]

  const roomLine = (room) => {
    const who = [t("adults", { n: room.adults })]
    const ages = room.children_ages || []
    if (ages.length > 0) who.push(`${t("children", { n: ages.length })} (${t("ages", { list: ages.join(", ") })})`)
    const name = room.quantity > 1 ? `${room.quantity} × ${room.room_name}` : room.room_name
    return el("li", null, el("strong", null, name), ` — ${who.join(", ")}${room.quantity > 1 ? ` ${t("perRoom")}` : ""}`)
  }

  const priceRow = (label, value, cls) => el("tr", { class: cls }, el("th", { scope: "row" }, label), el("td", null, value))

  function summary(r) {
    const { stay, price, policies } = r
    const pkg = r.package
    return el(
      "section",
      { class: "card", id: "summary", "aria-labelledby": "summary-title" },
      el("h2", { id: "summary-title" }, t("yourStay")),
      el(
        "dl",
        { class: "facts" },
        fact(t("arrival"), fmtDate(stay.checkin)),
        fact(t("departure"), fmtDate(stay.checkout)),
        fact(t("length"), t("nights", { n: stay.nights })),
        fact(t("checkInFrom"), fmtTime(policies.check_in_from || stay.check_in_time)),
        fact(t("checkOutBy"), fmtTime(policies.check_out_by || stay.check_out_time))
      ),
      el("h3", null, t("rooms")),
      el("ul", { class: "rooms" }, r.rooms.map(roomLine)),
      el("h3", null, t("package")),
      el("p", null, el("strong", null, pkg.name), pkg.description ? el("br") : null, pkg.description || null),
      el("p", { class: "note" }, `${pkg.breakfast_included ? t("breakfast") : t("noBreakfast")} · ${policies.refundable ? t("refundable") : t("nonRefundable")}`),
      el("h3", null, t("price")),
      el(
        "table",
        { class: "price" },
        el(
          "tbody",
          null,
          priceRow(t("roomTotal"), money(price.room_total, price.currency)),
          price.promotion_discount > 0 ? priceRow(t("discount"), `−${money(price.promotion_discount, price.currency)}`) : null,
          priceRow(t("tax"), money(price.tourist_tax, price.currency)),
          priceRow(t("total"), el("span", { id: "total" }, money(price.total, price.currency)), "total")
        )
      ),
      el("h3", null, t("cancellation")),
      policies.free_cancellation_until ? el("p", null, t("freeUntil", { when: fmtDateTime(policies.free_cancellation_until) })) : null,
      policies.cancellation ? el("p", null, policies.cancellation) : null,
      el("p", null, el("span", { class: "badge" }, t("noPayment"))),
      policies.payment ? el("p", { class: "note" }, policies.payment) : null,
      r.status === "PENDING_GUEST" && r.expires_at ? el("p", { class: "note" }, t("linkValid", { when: fmtDateTime(r.expires_at) })) : null
    )
  }

  // ---- form ----
  const AUTOCOMPLETE = { first_name: "given-name", last_name: "family-name", email: "email", phone: "tel", country: "country" }
  const INPUT_TYPE = { text: "text", email: "email", tel: "tel", country: "text", time: "time" }
  // the server's label is in the reservation's language and may say more ("free, on request"): it wins
  const labelOf = (field) => field.label || STRINGS[lang][field.name] || STRINGS.en[field.name] || field.name
  const requiredMark = (required) => required ? el("span", { class: "req", "aria-hidden": "true" }, " *") : null

  function fieldControl(field, guest) {
    const id = `f-${field.name}`
    const value = guest ? guest[field.name] : null
    if (field.type === "checkbox") {
      return el(
        "div",
        { class: "check" },
        el("input", { type: "checkbox", id, name: field.name, required: field.required, checked: value === true }),
        el("label", { for: id }, labelOf(field), requiredMark(field.required))
      )
    }
    const hintKey = `hint_${field.name}`
    const hint = STRINGS[lang][hintKey] ? el("span", { class: "hint", id: `${id}-hint` }, t(hintKey)) : null
    const common = {
      id,
      name: field.name,
      required: field.required,
      maxlength: field.type === "country" ? 2 : field.max_length,
      autocomplete: AUTOCOMPLETE[field.name] || "off",
      "aria-describedby": hint ? `${id}-hint` : null
    }
    const control = field.type === "textarea"
      ? el("textarea", { ...common, rows: 4 })
      : el("input", {
        ...common,
        type: INPUT_TYPE[field.type] || "text",
        class: field.type === "country" || field.type === "time" ? "short" : null,
        pattern: field.type === "country" ? "[A-Za-z]{2}" : null,
        autocapitalize: field.type === "country" ? "characters" : field.type === "text" ? "words" : null,
        spellcheck: field.type === "email" ? "false" : null
      })
    if (typeof value === "string") control.value = value
    return el("div", { class: "field" }, el("label", { for: id }, labelOf(field), requiredMark(field.required)), hint, control)
  }

  function guestForm(r) {
    const fields = r.guest_fields
    const texts = fields.filter((f) => f.type !== "checkbox")
    const checks = fields.filter((f) => f.type === "checkbox")
    const message = el("div", { id: "form-message", role: "alert" })
    const submit = el("button", { type: "submit", class: "primary", id: "submit" }, t("submit"))
    const form = el(
      "form",
      { id: "guest-form", class: "card", novalidate: true, "aria-labelledby": "details-title" },
      el("h2", { id: "details-title" }, t("details")),
      el("p", { class: "note" }, t("requiredNote")),
      texts.map((f) => fieldControl(f, r.guest)),
      checks.length > 0 ? el("fieldset", null, el("legend", null, t("requests")), checks.map((f) => fieldControl(f, r.guest))) : null,
      el("h2", { id: "terms-title" }, t("terms")),
      el("div", { class: "terms", tabindex: 0, role: "region", "aria-labelledby": "terms-title" }, r.terms.text),
      el(
        "div",
        { class: "check" },
        el("input", { type: "checkbox", id: "f-accept_terms", name: "accept_terms", required: true }),
        el("label", { for: "f-accept_terms" }, t("accept_terms"), requiredMark(true))
      ),
      message,
      submit
    )
    const controls = () => [...form.elements].filter((e) => e.name)
    const labelFor = (e) => (form.querySelector(`label[for="${e.id}"]`)?.firstChild?.textContent || e.name)
    let expectedTotal = r.price.total // the total shown: what the guest agrees to pay
    const say = (kind, ...nodes) => {
      message.className = `notice notice-${kind}`
      message.replaceChildren(...nodes)
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

    const markField = (text, details) => {
      const named = details && typeof details.field === "string" ? details.field : null
      const target = controls().find((e) => e.name === named) ||
        controls().find((e) => new RegExp(`(^|[^a-z_])${e.name}([^a-z_]|$)`).test(text))
      if (target) {
        target.setAttribute("aria-invalid", "true")
        target.focus()
      }
    }

    async function send() {
      const country = form.elements.namedItem("country")
      if (country) country.value = country.value.trim().toUpperCase()
      const invalid = controls().filter((e) => !e.checkValidity())
      for (const e of controls()) e.toggleAttribute("aria-invalid", false)
      if (invalid.length > 0) {
        for (const e of invalid) e.setAttribute("aria-invalid", "true")
        say("error", el("p", null, t("checkFields", { list: invalid.map(labelFor).join(", ") })))
        invalid[0].focus()
        return
      }
      say("none")
      busy(true)
      let res
      try {
        res = await api("/v1/reservation-complete", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(payload())
        })
      } catch {
        res = { status: 0 }
      }
      busy(false)
      const error = (res.body && res.body.error) || {}
      if (res.ok && res.body) {
        return show(confirmation(res.body.reservation_number, res.body.message), summary({ ...r, price: res.body.price || r.price }))
      }
      if (res.status === 401) return showInvalid()
      if (res.status === 409 && error.code === "price_changed") return priceChanged(error.details || {})
      if (res.status === 409 && error.code === "availability_changed") return availabilityChanged(error.details || {})
      if (res.status >= 400 && res.status < 500 && error.message) {
        say("error", el("p", null, error.message))
        return markField(error.message, error.details)
      }
      say("error", el("p", null, t("failed")))
    }

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
      say(
        "warn",
        el("h2", { tabindex: -1, id: "price-changed" }, t("priceTitle")),
        el("p", null, t("priceText")),
        el(
          "dl",
          { class: "facts" },
          fact(t("previousTotal"), el("span", { class: "old" }, money(d.previous_total ?? expectedTotal, currency))),
          fact(t("newTotal"), el("strong", null, money(d.new_total, currency)))
        ),
        changedRooms(d),
        el("p", null, confirm)
      )
      submit.hidden = true
      message.querySelector("h2").focus()
    }

    /** Which room requests changed and why (error.details.rooms of a 409). */
    const changedRooms = (d) => {
      const nameOf = (room) => (r.rooms.find((x) => x.room_index === room.room_index) || {}).room_name || room.room_type_id
      const items = (d.rooms || []).map((room) => el("li", null, el("strong", null, nameOf(room)), room.reason ? ` — ${room.reason}` : ""))
      return items.length > 0 ? el("ul", { class: "rooms" }, items) : null
    }

    function availabilityChanged(d) {
      say(
        "error",
        el("h2", { tabindex: -1, id: "availability-changed" }, t("availTitle")),
        changedRooms(d),
        el("p", null, t("availText"))
      )
      for (const e of form.elements) if (e !== submit) e.disabled = true
      submit.hidden = true
      message.querySelector("h2").focus()
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

  useLanguage(lang)
  if (!token) showInvalid()
  else load()
})()
