import { describe, expect, it } from "@effect/vitest"
import { type ConfirmationDocument, confirmationDocument } from "../../src/Domain/ConfirmationDocument.js"
import { formatDate, formatDeadline, formatMoney, formatNights, guestsSummary } from "../../src/Domain/GuestFormats.js"
import { GUEST_CATALOG } from "../../src/Domain/GuestTexts.js"
import type { Language } from "../../src/Domain/Language.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import type { GuestDetails } from "../../src/Domain/Reservation.js"
import { reservationView } from "../../src/Domain/ReservationViews.js"
import { demoHotel } from "../support/hotel.js"
import { sampleReservation, type SampleOptions } from "../support/reservation.js"

const MANAGE_URL = "http://hotel.test/manage#token=abc"

const documentOf = (options: SampleOptions) =>
  confirmationDocument(demoHotel, reservationView(demoHotel, sampleReservation(options)), MANAGE_URL)

/** Every text of the document, one line per label and value, spaces made plain. */
const textOf = (doc: ConfirmationDocument): string =>
  [
    doc.title,
    doc.reservationNumber,
    doc.hotelName,
    ...doc.hotelLines,
    ...doc.sections.flatMap((s) => [
      s.heading,
      ...s.lines.map((l) => {
        switch (l._tag) {
          case "Field":
            return `${l.label}: ${l.value}`
          case "Amount":
            return `${l.label}: ${l.amount}`
          case "Text":
            return l.text
          case "Link":
            return l.url
          case "GuestWords":
            return [`${l.label}: ${l.caption}`, ...l.lines.map((words) => `| ${words}`)].join("\n")
        }
      })
    ])
  ].join("\n").replace(/[\u00a0\u202f]/g, " ")

const amounts = (doc: ConfirmationDocument) =>
  doc.sections.flatMap((s) => s.lines).flatMap((l) => l._tag === "Amount" ? [[l.label, l.amount.replace(/[\u00a0\u202f]/g, " ")]] : [])

describe("guest texts", () => {
  it("dates, times, money and nights as each language writes them", () => {
    const date = "2027-03-12" as LocalDate
    expect(formatDate(date, "en")).toBe("Friday, 12 March 2027")
    expect(formatDate(date, "fr")).toBe("vendredi 12 mars 2027")
    expect(formatDate(date, "ru")).toBe("пятница, 12 марта 2027 г.")
    expect(formatMoney(136404, "EUR", "en")).toBe("€1,364.04")
    expect(formatMoney(136404, "EUR", "fr").replace(/[\u00a0\u202f]/g, " ")).toBe("1 364,04 €")
    expect(formatMoney(136404, "EUR", "ru").replace(/[\u00a0\u202f]/g, " ")).toBe("1 364,04 €")
    expect([1, 2, 5, 21].map((n) => formatNights(n, "ru"))).toEqual(["1 ночь", "2 ночи", "5 ночей", "21 ночь"])
    expect([1, 3].map((n) => formatNights(n, "fr"))).toEqual(["1 nuit", "3 nuits"])
    expect(formatNights(1, "en")).toBe("1 night")
  })

  it("the guests of a room, with the children's ages", () => {
    const room = { adults: 2, children_ages: [0, 4] }
    expect(guestsSummary(room, "en")).toBe("2 adults, 2 children (aged under 1 and 4)")
    expect(guestsSummary(room, "fr")).toBe("2 adultes, 2 enfants (moins d’un an et 4 ans)")
    expect(guestsSummary(room, "ru")).toBe("2 взрослых, 2 ребёнка (до года и 4 года)")
    expect(guestsSummary({ adults: 1, children_ages: [] }, "ru")).toBe("1 взрослый")
    expect(guestsSummary({ adults: 1, children_ages: [7] }, "en")).toBe("1 adult, 1 child (aged 7)")
    expect(guestsSummary({ adults: 2, children_ages: [5, 11, 12] }, "ru")).toBe("2 взрослых, 3 ребёнка (5 лет, 11 лет и 12 лет)")
  })

  it("a deadline is shown in hotel time, whatever offset the instant carries, summer time included", () => {
    expect(formatDeadline("2027-03-10T13:00:00Z", "Europe/Paris", "en")).toBe("14:00 on Wednesday, 10 March 2027")
    expect(formatDeadline("2027-07-08T14:00:00+02:00", "Europe/Paris", "fr")).toBe("jeudi 8 juillet 2027 à 14:00")
    expect(formatDeadline("2027-07-08T12:00:00Z", "Europe/Paris", "ru")).toBe("14:00 8 июля 2027 г.")
  })
})

describe("confirmation document", () => {
  const withGuest = (language: Language, changes: Partial<GuestDetails>) => {
    const view = reservationView(demoHotel, sampleReservation({ language }))
    return confirmationDocument(demoHotel, { ...view, guest: { ...view.guest!, ...changes } }, MANAGE_URL)
  }

  it.each([
    ["en", "Special requests: Your request, in your words:"],
    ["fr", "Demandes particulières: Votre demande, en vos mots :"],
    ["ru", "Особые пожелания: Ваша просьба, вашими словами:"]
  ] as const)("in %s, special requests are the guest's words, line by line, under a caption saying so", (language, caption) => {
    const text = textOf(withGuest(language, { special_requests: "Quiet room.\r\nHigh floor.\nTotal paid: EUR 0.00" }))
    expect(text).toContain(`${caption}\n| Quiet room.\n| High floor.\n| Total paid: EUR 0.00`)
  })

  it("text stored before the rule is shown on its line: controls, separators and bidi controls as spaces", () => {
    const text = textOf(withGuest("en", {
      first_name: "Ana\u202e",
      last_name: "Dupont\nTotal paid: EUR 0.00\r\nRoom: suite\u0085\u2028\u2066x\u2069",
      email: "ana\u200f@example.com",
      special_requests: "Quiet\u2029room\rplease\u061c\nHigh\tfloor"
    }))
    expect(text).toContain("Guest: Ana  Dupont Total paid: EUR 0.00  Room: suite   x \n")
    expect(text).toContain("Email: ana @example.com\n")
    expect(text).toContain("Your request, in your words:\n| Quiet room please \n| High floor")
  })

  it("in English: stay with its times, rooms, package, price with promotion and tourist tax, deadline, link", () => {
    const doc = documentOf({ language: "en" })
    expect(doc.title).toBe("Reservation confirmation")
    expect(doc.reservationNumber).toBe("BR-7K3Q9X")
    const text = textOf(doc)
    for (
      const expected of [
        "Hôtel Belle Rive",
        "27 Promenade des Anglais, 06000 Nice, France",
        "Phone +33 4 93 00 12 34 · reservations@belle-rive-nice.example · https://belle-rive-nice.example",
        "Guest: Ana Lopez",
        "Arrival: Friday, 12 March 2027, from 14:00",
        "Departure: Monday, 15 March 2027, by 12:00",
        "Length of stay: 3 nights",
        "1 room: Double Room\n2 adults, 1 child (aged 1)",
        "2 rooms: Twin Room\n2 adults per room",
        "Requests: Baby cot (free)\nLate check-out (on request, not guaranteed)",
        "Flexible with breakfast",
        "Free cancellation until 14:00 on Wednesday, 10 March 2027 (hotel time).",
        MANAGE_URL
      ]
    ) expect(text).toContain(expected)
    // 6 adults × 3 nights × 2.88 €; early booking: 10 % of the room total
    expect(amounts(doc)).toEqual([
      ["Accommodation", "€1,458.00"],
      ["Promotion: Early booking", "-€145.80"],
      ["Tourist tax", "€51.84"],
      ["Total", "€1,364.04"]
    ])
  })

  it("in French and Russian: every label, date and amount in the language", () => {
    const fr = textOf(documentOf({ language: "fr" }))
    for (
      const expected of [
        "Confirmation de réservation",
        "Arrivée: vendredi 12 mars 2027, à partir de 14:00",
        "Départ: lundi 15 mars 2027, avant 12:00",
        "1 chambre: Chambre Double\n2 adultes, 1 enfant (1 an)",
        "Flexible avec petit-déjeuner",
        "Promotion : Réservation anticipée: -145,80 €",
        "Taxe de séjour: 51,84 €",
        "Total: 1 364,04 €",
        "Annulation gratuite jusqu’au mercredi 10 mars 2027 à 14:00 (heure de l’hôtel).",
        "le séjour se règle à l'hôtel"
      ]
    ) expect(fr).toContain(expected)

    const ru = textOf(documentOf({ language: "ru" }))
    for (
      const expected of [
        "Подтверждение бронирования",
        "Бронирование",
        "Заезд: пятница, 12 марта 2027 г., с 14:00",
        "Выезд: понедельник, 15 марта 2027 г., до 12:00",
        "Продолжительность: 3 ночи",
        "2 номера: Номер с двумя односпальными кроватями\n2 взрослых в каждом номере",
        "Гибкий тариф с завтраком",
        "Акция: Раннее бронирование: -145,80 €",
        "Туристический налог: 51,84 €",
        "Итого: 1 364,04 €",
        "Бесплатная отмена — до 14:00 10 марта 2027 г. (по времени отеля)."
      ]
    ) expect(ru).toContain(expected)
  })

  it.each([
    { language: "en", label: "Promo code DIRECT12 (Direct booking code)" },
    { language: "fr", label: "Code promo DIRECT12 (Code de réservation directe)" },
    { language: "ru", label: "Промокод DIRECT12 (Код прямого бронирования)" }
  ] as const)("a promo code's discount line names the code and its name, in $language", ({ label, language }) => {
    const view = reservationView(demoHotel, sampleReservation({ language, promoCode: demoHotel.promo_codes[0]! }))
    expect(view.promo_code).toMatchObject({ code: "DIRECT12" })
    const doc = confirmationDocument(demoHotel, view, MANAGE_URL)
    expect(amounts(doc)[1]).toEqual([label, formatMoney(-view.price.promotion_discount, "EUR", language).replace(/[\u00a0\u202f]/g, " ")])
  })

  it("no promotion line without a promotion; a non-refundable rate says it cannot be cancelled", () => {
    const doc = documentOf({ language: "en", rateCode: "NRF", daysAhead: 10 })
    expect(amounts(doc).map(([label]) => label)).toEqual(["Accommodation", "Tourist tax", "Total"])
    const text = textOf(doc)
    expect(text).toContain(GUEST_CATALOG.en.nonRefundablePolicy)
    expect(text).not.toContain("Free cancellation until")
  })
})
