import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { PDFDocument, PDFName, PDFString } from "pdf-lib"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import type { Language } from "../../src/Domain/Language.js"
import type { ReservationView } from "../../src/Domain/Reservation.js"
import { reservationView } from "../../src/Domain/ReservationViews.js"
import { Documents } from "../../src/Services/Documents.js"
import { demoHotel } from "../support/hotel.js"
import { pdfText } from "../support/pdfText.js"
import { sampleReservation } from "../support/reservation.js"

const MANAGE_URL = "https://belle-rive-nice.example/manage#token=QuvYn1pAQmivYoiZLfuZt2OM23Fs98LMd8xAzGXSpLo"
const CREATED_AT = "2026-12-01T09:05:00.000Z"

const viewIn = (language: Language) => reservationView(demoHotel, sampleReservation({ language }))

const confirmation = (view: ReservationView) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(Date.parse(CREATED_AT))
    const pdf = yield* (yield* Documents).confirmationPdf(demoHotel, view, MANAGE_URL)
    return { pdf, text: yield* Effect.promise(() => pdfText(pdf)) }
  })

layer(Documents.Default)("confirmation PDF", (it) => {
  it.effect("in English: hotel, number, guest, stay times, rooms, package, price, deadline in hotel time, link", () =>
    Effect.gen(function*() {
      const { pdf, text } = yield* confirmation(viewIn("en"))
      expect(Buffer.from(pdf.subarray(0, 5)).toString()).toBe("%PDF-")
      for (
        const expected of [
          "Hôtel Belle Rive",
          "Reservation confirmation",
          "BR-7K3Q9X",
          "Guest Ana Lopez",
          "Check-in Friday, 12 March 2027, from 14:00",
          "Check-out Monday, 15 March 2027, by 12:00",
          "3 nights",
          "Double Room",
          "2 adults, 1 child (aged 1)",
          "2 rooms Twin Room",
          "Flexible with breakfast",
          "Accommodation €1,458.00",
          "Promotion: Early booking -€145.80",
          "Tourist tax €51.84",
          "Total €1,364.04",
          "Free cancellation until 14:00 on Wednesday, 10 March 2027 (hotel time).",
          MANAGE_URL,
          "Page 1 of 1"
        ]
      ) expect(text).toContain(expected)
    }))

  it.effect("a promo code is named on the discount line with its name, in each language", () =>
    Effect.gen(function*() {
      const promoCode = demoHotel.promo_codes[0]!
      for (
        const [language, line] of [
          ["en", "Promo code DIRECT12 (Direct booking code)"],
          ["fr", "Code promo DIRECT12 (Code de réservation directe)"],
          ["ru", "Промокод DIRECT12 (Код прямого бронирования)"]
        ] as const
      ) {
        const { text } = yield* confirmation(reservationView(demoHotel, sampleReservation({ language, promoCode })))
        expect(text).toContain(line)
        expect(text).not.toContain("Early booking")
      }
    }))

  it.effect("in French, accents and all", () =>
    Effect.gen(function*() {
      const { text } = yield* confirmation(viewIn("fr"))
      for (
        const expected of [
          "Confirmation de réservation",
          "Réservation",
          "Arrivée vendredi 12 mars 2027, à partir de 14:00",
          "Départ lundi 15 mars 2027, avant 12:00",
          "1 chambre Chambre Double",
          "2 adultes, 1 enfant (1 an)",
          "Flexible avec petit-déjeuner",
          "Hébergement 1 458,00 €",
          "Promotion : Réservation anticipée -145,80 €",
          "Taxe de séjour 51,84 €",
          "Total 1 364,04 €",
          "Annulation gratuite jusqu'au mercredi 10 mars 2027 à 14:00 (heure de l'hôtel).",
          MANAGE_URL,
          "Page 1 sur 1"
        ]
      ) expect(text).toContain(expected)
    }))

  it.effect("in Russian, Cyrillic extracted as written", () =>
    Effect.gen(function*() {
      const { text } = yield* confirmation(viewIn("ru"))
      for (
        const expected of [
          "Подтверждение бронирования",
          "Бронирование",
          "Гость Ana Lopez",
          "Заезд пятница, 12 марта 2027 г., с 14:00",
          "Выезд понедельник, 15 марта 2027 г., до 12:00",
          "Продолжительность 3 ночи",
          "1 номер Номер с двуспальной кроватью",
          "2 взрослых, 1 ребёнок (1 год)",
          "Гибкий тариф с завтраком",
          "Проживание 1 458,00 €",
          "Акция: Раннее бронирование -145,80 €",
          "Туристический налог 51,84 €",
          "Итого 1 364,04 €",
          "Бесплатная отмена — до 14:00 10 марта 2027 г. (по времени отеля).",
          MANAGE_URL,
          "Страница 1 из 1"
        ]
      ) expect(text).toContain(expected)
      expect(text).not.toMatch(/Double Room|Flexible with breakfast|Check-in/)
    }))

  it.effect("metadata: title, author, language, creation date from the clock; the font is subset", () =>
    Effect.gen(function*() {
      const { pdf } = yield* confirmation(viewIn("fr"))
      const doc = yield* Effect.promise(() => PDFDocument.load(pdf, { updateMetadata: false }))
      expect(doc.getTitle()).toBe("Confirmation de réservation BR-7K3Q9X")
      expect(doc.getAuthor()).toBe("Hôtel Belle Rive")
      expect(doc.getCreationDate()?.toISOString()).toBe(CREATED_AT)
      expect(doc.catalog.lookup(PDFName.of("Lang"), PDFString).decodeText()).toBe("fr")
      expect(doc.getPages().map((p) => p.getSize())).toEqual([{ width: 595.28, height: 841.89 }])
      // the whole DejaVu Sans and its bold are 1.4 MB
      expect(pdf.length).toBeLessThan(60_000)
    }))

  it.effect("a long reservation continues on further pages; what the font cannot draw becomes '?'", () =>
    Effect.gen(function*() {
      const view = viewIn("en")
      const rooms = Array.from({ length: 24 }, (_, i) => ({ ...view.rooms[0]!, room_index: i, room_type_id: "deluxe" as RoomTypeId, room_name: "Deluxe Sea View Room" }))
      const special_requests = `Anniversary 🎉 ${"please prepare the room with flowers and a bottle of champagne. ".repeat(8)}`
      const { text } = yield* confirmation({ ...view, rooms, guest: { ...view.guest!, special_requests } })
      expect(text).toContain("Page 1 of 2")
      expect(text).toContain("Page 2 of 2")
      expect(text.match(/Deluxe Sea View Room/g)).toHaveLength(24)
      expect(text).toContain("Anniversary ? please")
      expect(text).toContain(MANAGE_URL)
    }))
})
