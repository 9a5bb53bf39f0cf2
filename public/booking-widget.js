/* The booking widget for the hotel's own website:
     <script type="module" src="https://book.example/assets/booking-widget.js"></script>
     <hotel-booking lang="fr" promo="DIRECT12" target="_blank"></hotel-booking>
   A compact search (arrival, departure, adults, promo code) in a shadow root that opens the
   booking page (/book) of the service it was loaded from with the deep link. It makes no request
   of its own until the guest searches, and then only that navigation. Its words, limits and
   stylesheet are the service's (booking-widget-data.js, made at start from the catalog and the
   schemas). The host themes it with --hotel-booking-accent and --hotel-booking-font. */
import { LIMITS, STYLE, WORDS } from "./booking-widget-data.js"

const BOOK = new URL("/book", import.meta.url)
let sheet = null

class HotelBooking extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return
    const root = this.attachShadow({ mode: "open" })
    // a constructed stylesheet: no inline style for the host page's CSP to refuse
    sheet = sheet || new CSSStyleSheet()
    if (sheet.cssRules.length === 0) sheet.replaceSync(STYLE)
    root.adoptedStyleSheets = [sheet]
    const asked = (this.getAttribute("lang") || document.documentElement.lang || "").slice(0, LIMITS.languageLength).toLowerCase()
    const language = asked in WORDS ? asked : Object.keys(WORDS)[0]
    const words = WORDS[language]
    const form = document.createElement("form")
    const legend = document.createElement("legend")
    legend.textContent = words.widgetTitle
    const fieldset = document.createElement("fieldset")
    fieldset.append(legend)
    const field = (name, label, control) => {
      const wrap = document.createElement("label")
      wrap.append(label, control)
      control.name = name
      fieldset.append(wrap)
      return control
    }
    const input = (type) => Object.assign(document.createElement("input"), { type })
    const checkin = field("checkin", words.arrival, input("date"))
    const checkout = field("checkout", words.departure, input("date"))
    const adults = field("adults", words.adultsInRoom, document.createElement("select"))
    for (let n = 1; n <= LIMITS.adultsPerRoom; n++) adults.append(new Option(String(n), String(n), false, n === LIMITS.defaultAdults))
    const promo = field("promo", words.promoLabel, input("text"))
    promo.maxLength = LIMITS.promoMaxLength
    promo.autocomplete = "off"
    promo.value = this.getAttribute("promo") || ""
    const button = Object.assign(document.createElement("button"), { type: "submit", textContent: words.widgetSearch })
    fieldset.append(button)
    form.append(fieldset)
    form.addEventListener("submit", (event) => {
      event.preventDefault()
      const url = new URL(BOOK)
      const params = { checkin: checkin.value, checkout: checkout.value, adults: adults.value, rooms: "1", promo: promo.value.trim(), lang: language, source: "widget" }
      for (const [name, value] of Object.entries(params)) if (value) url.searchParams.set(name, value)
      const target = this.getAttribute("target") || "_self"
      if (target === "_self") location.assign(url)
      else window.open(url, target, "noopener")
    })
    root.append(form)
  }
}

if (!customElements.get("hotel-booking")) customElements.define("hotel-booking", HotelBooking)
