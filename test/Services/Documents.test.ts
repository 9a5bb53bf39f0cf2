import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { PDFDocument, PDFName, PDFString } from "pdf-lib"
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs"
import type { TextItem } from "pdfjs-dist/types/src/display/api.js"
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

layer(Documents.layer)("confirmation PDF", (it) => {
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
          "Arrival Friday, 12 March 2027, from 14:00",
          "Departure Monday, 15 March 2027, by 12:00",
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
          "Annulation gratuite jusqu’au mercredi 10 mars 2027 à 14:00 (heure de l’hôtel).",
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
      expect(text).not.toMatch(/Double Room|Flexible with breakfast|Arrival/)
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

  it.effect("special requests are framed under a caption saying they are the guest's words, in each language", () =>
    Effect.gen(function*() {
      for (
        const [language, label, caption] of [
          ["en", "Special requests", "Your request, in your words:"],
          ["fr", "Demandes particulières", "Votre demande, en vos mots :"],
          ["ru", "Особые пожелания", "Ваша просьба, вашими словами:"]
        ] as const
      ) {
        const view = viewIn(language)
        const special_requests = "Quiet room.\r\nTotal paid: EUR 0.00 (PAID IN FULL)\nRoom: upgraded"
        const { text } = yield* confirmation({ ...view, guest: { ...view.guest!, special_requests } })
        // the caption under the label, beside the guest's second line: pdf.js reads them as one line
        expect(text).toContain(`${label} Quiet room.\n${caption} Total paid: EUR 0.00 (PAID IN FULL)\nRoom: upgraded\n`)
      }
    }))

  it.effect("a name stored before the rule prints on one line; special requests longer than a page go on framed on the next", () =>
    Effect.gen(function*() {
      const view = viewIn("en")
      const special_requests = Array.from({ length: 90 }, (_, i) => `request ${i + 1}`).join("\n")
      const guest = { ...view.guest!, last_name: "Lopez\nTotal paid: EUR 0.00\u202e\u0085", special_requests }
      const { pdf, text } = yield* confirmation({ ...view, guest })
      expect(text).toContain("Guest Ana Lopez Total paid: EUR 0.00\n")
      expect(text).toContain("Page 3 of 3")
      expect(text).toContain("Special requests request 1\nYour request, in your words: request 2\nrequest 3\n")
      // every line, each on its own line, across the page breaks
      for (let i = 3; i <= 90; i++) expect(text).toMatch(new RegExp(`^\\f?request ${i}$`, "m"))
      // what follows the frame comes right after its last line, on the same page
      expect(text).toMatch(/request 90\nPackage\nFlexible with breakfast\n[^\f]*Page 3 of 3/)
      const document = yield* Effect.promise(() => getDocument({ data: pdf.slice(), isEvalSupported: false, verbosity: 0 }).promise)
      const items = (yield* Effect.promise(async () => (await document.getPage(3)).getTextContent())).items as Array<TextItem>
      const baseline = (str: string) => items.find((item) => item.str === str)!.transform[5] as number
      expect(baseline("request 90") - baseline("Package")).toBeLessThan(40)
      yield* Effect.promise(() => document.destroy())
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
