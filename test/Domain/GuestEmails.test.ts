import { describe, expect, it } from "@effect/vitest"
import type { CompletedReservation } from "../../src/Domain/CompletedReservation.js"
import {
  cancellationEmail,
  confirmationEmail,
  confirmationPdfFilename,
  guestDetailsUpdatedEmail
} from "../../src/Domain/GuestEmails.js"
import type { MailContent } from "../../src/Domain/Mail.js"
import type { PromotionCode } from "../../src/Domain/Ids.js"
import { type Language, localized as localizedText } from "../../src/Domain/Language.js"
import type { Cents } from "../../src/Domain/Money.js"
import { demoHotel } from "../support/hotel.js"
import { completedReservation } from "../support/reservation.js"

const manageUrl = "https://book.belle-rive-nice.example/manage#token=QuvYn1pAQmivYoiZLfuZt2OM23Fs98LMd8xAzGXSpLo"
const pdf = { filename: "BR-7K3Q9X.pdf", content: new Uint8Array([37, 80, 68, 70, 45]) }

/** Intl separates thousands and currency with no-break spaces: compare with plain ones. */
const plain = (text: string) => text.replace(/\s/g, " ")
/** What a reader of the HTML part sees. */
const htmlText = (html: string) =>
  plain(html.replace(/<[^>]*>/g, " ").replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))))

/** The hotel's own texts as the view gives them once they are localized (another change). */
const localized = (language: Language, texts: { room: string; rate: string; cancellation: string; payment: string }): CompletedReservation => {
  const view = completedReservation(language)
  return {
    ...view,
    rooms: view.rooms.map((room) => ({ ...room, room_name: texts.room })),
    package: { ...view.package, name: texts.rate },
    policies: { ...view.policies, cancellation: texts.cancellation, payment: texts.payment }
  }
}

const views: Record<Language, CompletedReservation> = {
  en: completedReservation("en"),
  fr: localized("fr", {
    room: "Chambre double",
    rate: "Flexible avec petit-déjeuner",
    cancellation: "Les tarifs remboursables s'annulent sans frais jusqu'à 14:00 deux jours avant l'arrivée.",
    payment: "Aucun paiement n'est demandé ; le séjour se règle à l'hôtel."
  }),
  ru: localized("ru", {
    room: "Двухместный номер",
    rate: "Гибкий с завтраком",
    cancellation: "Возвратные тарифы отменяются бесплатно до 14:00 за два дня до заезда.",
    payment: "Оплата при бронировании не требуется; проживание оплачивается в отеле."
  })
}

const emails = (language: Language): ReadonlyArray<MailContent> => [
  confirmationEmail(demoHotel, views[language], manageUrl, pdf),
  cancellationEmail(demoHotel, views[language], manageUrl),
  guestDetailsUpdatedEmail(demoHotel, views[language], manageUrl)
]

describe("guest emails", () => {
  it("the confirmation carries the number, stay, total, manage link and the PDF, to the guest", () => {
    const mail = confirmationEmail(demoHotel, views.en, manageUrl, pdf)
    expect(mail.to).toEqual({ name: "Jeanne Dupont", address: "jeanne.dupont@example.org" })
    expect(mail.subject).toBe("Your reservation BR-7K3Q9X at Hôtel Belle Rive is confirmed")
    for (const body of [plain(mail.text), htmlText(mail.html)]) {
      expect(body).toContain("BR-7K3Q9X")
      expect(body).toContain("Friday, 12 March 2027, from 14:00")
      expect(body).toContain("Monday, 15 March 2027, by 12:00")
      expect(body).toContain("3 nights")
      expect(body).toContain("1 × Double Room: 2 adults, 1 child (aged 1)")
      expect(body).toContain("1 × Twin Room: 1 adult")
      expect(body).toContain("€483.28 (including tourist tax €17.28)")
      expect(body).toContain("Free cancellation until 14:00 on Wednesday, 10 March 2027 (hotel time).")
      expect(body).toContain("Baby cot (free)")
      expect(body).toContain("Late check-out (on request, not guaranteed)")
      expect(body).toContain("Your confirmation is attached as a PDF.")
    }
    expect(mail.text).toContain(`Manage your reservation: ${manageUrl}`)
    expect(mail.html).toContain(`<a href="${manageUrl}">Manage your reservation</a>`)
    expect(mail.attachments).toEqual([{ filename: "BR-7K3Q9X.pdf", contentType: "application/pdf", content: pdf.content }])
    expect(confirmationPdfFilename(views.en)).toBe("BR-7K3Q9X.pdf")
  })

  it.each([
    { language: "fr", numberLine: "Numéro de réservation : BR-7K3Q9X", subjects: ["Votre réservation BR-7K3Q9X est confirmée – Hôtel Belle Rive", "Votre réservation BR-7K3Q9X est annulée – Hôtel Belle Rive", "Votre réservation BR-7K3Q9X : informations mises à jour – Hôtel Belle Rive"], says: ["Bonjour Jeanne Dupont,", "vendredi 12 mars 2027, à partir de 14:00", "lundi 15 mars 2027, avant 12:00", "3 nuits", "Chambre double : 2 adultes, 1 enfant (1 an)", "483,28 € (dont taxe de séjour 17,28 €)", "Annulation gratuite jusqu’au mercredi 10 mars 2027 à 14:00 (heure de l’hôtel).", "Gérer votre réservation", "Lit bébé (gratuit)", "Départ tardif (sur demande, non garanti)"] },
    { language: "ru", numberLine: "Номер бронирования: BR-7K3Q9X", subjects: ["Ваше бронирование BR-7K3Q9X подтверждено – Hôtel Belle Rive", "Ваше бронирование BR-7K3Q9X отменено – Hôtel Belle Rive", "Ваше бронирование BR-7K3Q9X: данные обновлены – Hôtel Belle Rive"], says: ["Здравствуйте, Jeanne Dupont!", "пятница, 12 марта 2027 г., с 14:00", "понедельник, 15 марта 2027 г., до 12:00", "3 ночи", "2 взрослых, 1 ребёнок (1 год)", "1 взрослый", "483,28 € (включая туристический налог 17,28 €)", "Бесплатная отмена — до 14:00 10 марта 2027 г. (по времени отеля).", "Управление бронированием", "Детская кроватка (бесплатно)", "Поздний выезд (по запросу, не гарантируется)"] }
  ] as const)("in $language: subjects and the confirmation's body in the language", ({ language, numberLine, says, subjects }) => {
    const all = emails(language)
    expect(all.map((mail) => mail.subject)).toEqual(subjects)
    expect(all[0]!.text).toContain(numberLine)
    for (const body of [plain(all[0]!.text), htmlText(all[0]!.html)]) {
      for (const phrase of says) expect(body).toContain(phrase)
    }
    expect(all[0]!.html).toContain(`<html lang="${language}">`)
  })

  /** Every English word of the emails' own wording (the hotel's texts come localized in the view). */
  const english = [
    "Dear", "Thank you", "confirmed", "cancelled", "updated", "details", "Reservation", "reservation", "Arrival",
    "Departure", "Length", "Rooms", "Rate", "Payment", "Cancellation", "Guest", "Email", "Phone", "Expected",
    "Special", "Requests", "night", "adult", "child", "age", "including", "tourist", "Free", "Non-refundable",
    "from", "by", "Manage", "View", "personal", "attached", "Kind regards", "welcome", "baby", "late", "Monday", "March"
  ]

  it.each(["fr", "ru"] as const)("in %s, no English wording is left in any email, text or HTML", (language) => {
    for (const mail of emails(language)) {
      for (const body of [mail.subject, mail.text, htmlText(mail.html)]) {
        // the guest's and hotel's names, address and the link are not wording
        const wording = body.replaceAll(manageUrl, "").replaceAll("jeanne.dupont@example.org", "")
          .replaceAll(demoHotel.contact.email, "").replaceAll(demoHotel.address.street, "")
        for (const word of english) expect(wording, `${language}: "${word}"`).not.toMatch(new RegExp(`(?<!\\p{L})${word}(?!\\p{L})`, "u"))
      }
    }
  })

  it.each([
    { language: "en", row: "Promo code DIRECT12 (Direct booking code): -€50.40" },
    { language: "fr", row: "Code promo DIRECT12 (Code de réservation directe) : -50,40 €" },
    { language: "ru", row: "Промокод DIRECT12 (Код прямого бронирования): -50,40 €" }
  ] as const)("the confirmation names the promo code and what it took off, in $language; none without one", ({ language, row }) => {
    const view = {
      ...views[language],
      package: { ...views[language].package, promotions: ["DIRECT12" as PromotionCode] },
      price: { ...views[language].price, promotion_discount: 5040 as Cents },
      promo_code: { code: "DIRECT12", name: localizedText(demoHotel.promo_codes[0]!.name, language) }
    }
    const mail = confirmationEmail(demoHotel, view, manageUrl, pdf)
    expect(plain(mail.text)).toContain(row)
    expect(htmlText(mail.html)).toContain(`DIRECT12 (${view.promo_code.name})`)
    expect(plain(confirmationEmail(demoHotel, views[language], manageUrl, pdf).text)).not.toContain("DIRECT12")
  })

  it("a non-refundable reservation says it cannot be cancelled", () => {
    const view = completedReservation("en")
    const mail = confirmationEmail(demoHotel, { ...view, policies: { ...view.policies, refundable: false, free_cancellation_until: null } }, manageUrl, pdf)
    expect(mail.text).toContain("Non-refundable rate: this reservation cannot be cancelled or changed free of charge. To discuss it, contact the hotel.")
    expect(mail.text).not.toContain("Free cancellation until")
  })

  it.each([
    ["en", "Special requests: ", "Your request, in your words:"],
    ["fr", "Demandes particulières : ", "Votre demande, en vos mots :"],
    ["ru", "Особые пожелания: ", "Ваша просьба, вашими словами:"]
  ] as const)("in %s, special requests are quoted as the guest's words under a caption, in text and HTML", (language, label, caption) => {
    const view = views[language]
    const guest = { ...view.guest, special_requests: "Quiet room.\r\nTotal paid: EUR 0.00 (PAID IN FULL)" }
    for (const mail of [confirmationEmail(demoHotel, { ...view, guest }, manageUrl, pdf), guestDetailsUpdatedEmail(demoHotel, { ...view, guest }, manageUrl)]) {
      expect(plain(mail.text)).toContain(plain(`${label}${caption}\n  > Quiet room.\n  > Total paid: EUR 0.00 (PAID IN FULL)\n`))
      expect(mail.html).toMatch(/<blockquote style="[^"]*border:1px solid[^"]*">Quiet room\.<br>Total paid: EUR 0\.00 \(PAID IN FULL\)<\/blockquote>/)
      expect(htmlText(mail.html)).toContain(plain(caption))
    }
  })

  it("text stored before the rule stays on its line: controls, separators and bidi controls as spaces", () => {
    const view = completedReservation("en")
    const guest = {
      ...view.guest,
      last_name: "Dupont\nTotal paid: EUR 0.00\u202e",
      email: "jeanne\u2066@example.org",
      special_requests: "Quiet\u2028room\u0085\nHigh\tfloor"
    }
    const mail = confirmationEmail(demoHotel, { ...view, guest }, manageUrl, pdf)
    expect(mail.text).toContain("Dear Jeanne Dupont Total paid: EUR 0.00 ,\n")
    expect(mail.text).toContain("Guest: Jeanne Dupont Total paid: EUR 0.00 \n")
    expect(mail.text).toContain("Email: jeanne @example.org\n")
    expect(mail.text).toContain("> Quiet room \n  > High floor\n")
    expect(mail.to.name).toBe("Jeanne Dupont Total paid: EUR 0.00 ")
    expect(mail.html).not.toMatch(/[\u0085\u2028\u202e\u2066\t]/)
  })

  it("every value the guest typed is escaped in the HTML, and left as typed in the text", () => {
    const view = completedReservation("en")
    const hostile: CompletedReservation = {
      ...view,
      guest: {
        ...view.guest,
        first_name: "<script>alert(1)</script>",
        special_requests: "\"><img src=x onerror=alert(2)> & 'quotes'\nsecond line"
      }
    }
    const link = "https://book.example/manage?x=1&y=\"2\"#token=abc"
    for (const mail of [confirmationEmail(demoHotel, hostile, link, pdf), guestDetailsUpdatedEmail(demoHotel, hostile, link)]) {
      expect(mail.html).not.toContain("<script")
      expect(mail.html).not.toContain("<img")
      expect(mail.html).toContain("&#60;script&#62;alert(1)&#60;/script&#62;")
      expect(mail.html).toContain("&#34;&#62;&#60;img src=x onerror=alert(2)&#62; &#38; &#39;quotes&#39;<br>second line</blockquote>")
      expect(mail.html).toContain(`href="https://book.example/manage?x=1&#38;y=&#34;2&#34;#token=abc"`)
      expect(mail.text).toContain("Dear <script>alert(1)</script> Dupont,")
      expect(mail.text).toContain("> \"><img src=x onerror=alert(2)> & 'quotes'\n  > second line")
    }
  })
})
