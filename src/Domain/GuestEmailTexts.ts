import type { Forms } from "./GuestTexts.js"
import type { Language } from "./Language.js"

/*
 * The words of the guest emails in each guest language: subjects, paragraphs and labels. How
 * they are laid out and put together is `GuestEmails.ts`; the words the emails share with the
 * confirmation PDF (nouns, plural forms) are `GuestTexts.ts`.
 */

/** The emails the service sends a guest. */
export type EmailKind = "confirmation" | "cancellation" | "guestDetailsUpdated" | "stayChanged"
type RequestField = "baby_cot" | "early_check_in_request" | "late_check_out_request"

export interface EmailTexts {
  readonly subject: Record<EmailKind, (number: string, hotel: string) => string>
  readonly greeting: (name: string) => string
  readonly intro: Record<EmailKind, (number: string, hotel: string) => string>
  readonly outro: Record<EmailKind, string>
  readonly link: Record<EmailKind, string>
  readonly linkIsPersonal: string
  readonly pdfAttached: string
  readonly closing: string
  /** Between a label and its value: French sets a space before the colon. */
  readonly colon: string
  readonly label: {
    readonly number: string
    readonly arrival: string
    readonly departure: string
    readonly length: string
    readonly rooms: string
    readonly package: string
    readonly total: string
    readonly promoCode: string
    readonly payment: string
    readonly cancellation: string
    readonly guest: string
    readonly email: string
    readonly phone: string
    readonly arrivalTime: string
    readonly specialRequests: string
    readonly requests: string
  }
  readonly fromTime: (time: string) => string
  readonly byTime: (time: string) => string
  /** Labels the ages of a room's children. */
  readonly ages: Forms
  readonly includingTax: (amount: string) => string
  /** A promo code's row: its name and what it took off. */
  readonly promoCodeDiscount: (name: string, discount: string) => string
  readonly freeCancellationUntil: (when: string) => string
  readonly nonRefundable: string
  readonly request: Record<RequestField, string>
}

export const EMAIL_TEXTS: Record<Language, EmailTexts> = {
  en: {
    subject: {
      confirmation: (n, hotel) => `Your reservation ${n} at ${hotel} is confirmed`,
      cancellation: (n, hotel) => `Your reservation ${n} at ${hotel} is cancelled`,
      guestDetailsUpdated: (n, hotel) => `Your reservation ${n} at ${hotel}: details updated`,
      stayChanged: (n, hotel) => `Your reservation ${n} at ${hotel} is changed`
    },
    greeting: (name) => `Dear ${name},`,
    intro: {
      confirmation: (_, hotel) => `Thank you for booking at ${hotel}. Your reservation is confirmed; here are its details.`,
      cancellation: (n) => `Your reservation ${n} has been cancelled as you asked.`,
      guestDetailsUpdated: (n) => `The details of your reservation ${n} have been updated. Here they are as we now have them.`,
      stayChanged: (n) => `Your reservation ${n} has been changed as you asked. Here is your stay as it now is.`
    },
    outro: {
      confirmation: "We look forward to welcoming you.",
      cancellation: "We hope to welcome you another time.",
      guestDetailsUpdated: "If you did not make this change, please contact us.",
      stayChanged: "If you did not make this change, please contact us."
    },
    link: {
      confirmation: "Manage your reservation",
      cancellation: "View your reservation",
      guestDetailsUpdated: "Manage your reservation",
      stayChanged: "Manage your reservation"
    },
    linkIsPersonal: "This link is personal: please do not share it.",
    pdfAttached: "Your confirmation is attached as a PDF.",
    closing: "Kind regards,",
    colon: ": ",
    label: {
      number: "Reservation number",
      arrival: "Arrival",
      departure: "Departure",
      length: "Length of stay",
      rooms: "Rooms",
      package: "Rate",
      total: "Total",
      promoCode: "Promo code",
      payment: "Payment",
      cancellation: "Cancellation",
      guest: "Guest",
      email: "Email",
      phone: "Phone",
      arrivalTime: "Expected arrival time",
      specialRequests: "Special requests",
      requests: "Requests"
    },
    fromTime: (time) => `from ${time}`,
    byTime: (time) => `by ${time}`,
    ages: { one: "age", other: "ages" },
    includingTax: (amount) => `including tourist tax ${amount}`,
    promoCodeDiscount: (name, discount) => `${name}: ${discount} off`,
    freeCancellationUntil: (when) => `Free cancellation until ${when}.`,
    nonRefundable: "Non-refundable rate: the reservation cannot be cancelled.",
    request: {
      baby_cot: "baby cot",
      early_check_in_request: "early check-in (not guaranteed)",
      late_check_out_request: "late check-out (not guaranteed)"
    }
  },
  fr: {
    subject: {
      confirmation: (n, hotel) => `Votre réservation ${n} est confirmée – ${hotel}`,
      cancellation: (n, hotel) => `Votre réservation ${n} est annulée – ${hotel}`,
      guestDetailsUpdated: (n, hotel) => `Votre réservation ${n} : informations mises à jour – ${hotel}`,
      stayChanged: (n, hotel) => `Votre réservation ${n} est modifiée – ${hotel}`
    },
    greeting: (name) => `Bonjour ${name},`,
    intro: {
      confirmation: (_, hotel) => `Merci d'avoir réservé chez ${hotel}. Votre réservation est confirmée ; en voici le détail.`,
      cancellation: (n) => `Votre réservation ${n} a été annulée comme vous l'avez demandé.`,
      guestDetailsUpdated: (n) =>
        `Les informations de votre réservation ${n} ont été mises à jour. Les voici telles que nous les avons enregistrées.`,
      stayChanged: (n) => `Votre réservation ${n} a été modifiée comme vous l'avez demandé. Voici votre séjour tel qu'il est maintenant.`
    },
    outro: {
      confirmation: "Nous nous réjouissons de vous accueillir.",
      cancellation: "Nous espérons vous accueillir une prochaine fois.",
      guestDetailsUpdated: "Si vous n'êtes pas à l'origine de cette modification, contactez-nous.",
      stayChanged: "Si vous n'êtes pas à l'origine de cette modification, contactez-nous."
    },
    link: {
      confirmation: "Gérer votre réservation",
      cancellation: "Voir votre réservation",
      guestDetailsUpdated: "Gérer votre réservation",
      stayChanged: "Gérer votre réservation"
    },
    linkIsPersonal: "Ce lien est personnel : ne le partagez pas.",
    pdfAttached: "Votre confirmation est jointe en PDF.",
    closing: "Cordialement,",
    colon: " : ",
    label: {
      number: "Numéro de réservation",
      arrival: "Arrivée",
      departure: "Départ",
      length: "Durée du séjour",
      rooms: "Chambres",
      package: "Tarif",
      total: "Total",
      promoCode: "Code promo",
      payment: "Paiement",
      cancellation: "Annulation",
      guest: "Client",
      email: "E-mail",
      phone: "Téléphone",
      arrivalTime: "Heure d'arrivée prévue",
      specialRequests: "Demandes particulières",
      requests: "Demandes"
    },
    fromTime: (time) => `à partir de ${time}`,
    byTime: (time) => `avant ${time}`,
    ages: { one: "âge", other: "âges" },
    includingTax: (amount) => `dont taxe de séjour ${amount}`,
    promoCodeDiscount: (name, discount) => `${name} : ${discount} de réduction`,
    freeCancellationUntil: (when) => `Annulation gratuite jusqu'au ${when}.`,
    nonRefundable: "Tarif non remboursable : la réservation ne peut pas être annulée.",
    request: {
      baby_cot: "lit bébé",
      early_check_in_request: "arrivée anticipée (non garantie)",
      late_check_out_request: "départ tardif (non garanti)"
    }
  },
  ru: {
    subject: {
      confirmation: (n, hotel) => `Ваше бронирование ${n} подтверждено – ${hotel}`,
      cancellation: (n, hotel) => `Ваше бронирование ${n} отменено – ${hotel}`,
      guestDetailsUpdated: (n, hotel) => `Ваше бронирование ${n}: данные обновлены – ${hotel}`,
      stayChanged: (n, hotel) => `Ваше бронирование ${n} изменено – ${hotel}`
    },
    greeting: (name) => `Здравствуйте, ${name}!`,
    intro: {
      confirmation: (_, hotel) => `Спасибо за бронирование в ${hotel}. Ваше бронирование подтверждено, подробности ниже.`,
      cancellation: (n) => `Ваше бронирование ${n} отменено по вашему запросу.`,
      guestDetailsUpdated: (n) => `Данные вашего бронирования ${n} обновлены. Ниже они в том виде, в каком мы их сохранили.`,
      stayChanged: (n) => `Ваше бронирование ${n} изменено по вашему запросу. Ниже ваше проживание в том виде, в каком оно теперь.`
    },
    outro: {
      confirmation: "Будем рады вас видеть.",
      cancellation: "Надеемся увидеть вас в другой раз.",
      guestDetailsUpdated: "Если вы не вносили это изменение, свяжитесь с нами.",
      stayChanged: "Если вы не вносили это изменение, свяжитесь с нами."
    },
    link: {
      confirmation: "Управление бронированием",
      cancellation: "Посмотреть бронирование",
      guestDetailsUpdated: "Управление бронированием",
      stayChanged: "Управление бронированием"
    },
    linkIsPersonal: "Эта ссылка персональная: не передавайте её другим.",
    pdfAttached: "Подтверждение приложено к письму в формате PDF.",
    closing: "С уважением,",
    colon: ": ",
    label: {
      number: "Номер бронирования",
      arrival: "Заезд",
      departure: "Выезд",
      length: "Продолжительность",
      rooms: "Номера",
      package: "Тариф",
      total: "Итого",
      promoCode: "Промокод",
      payment: "Оплата",
      cancellation: "Отмена",
      guest: "Гость",
      email: "Эл. почта",
      phone: "Телефон",
      arrivalTime: "Ожидаемое время прибытия",
      specialRequests: "Особые пожелания",
      requests: "Запросы"
    },
    fromTime: (time) => `с ${time}`,
    byTime: (time) => `до ${time}`,
    ages: { other: "возраст" },
    includingTax: (amount) => `включая туристический налог ${amount}`,
    promoCodeDiscount: (name, discount) => `${name}: скидка ${discount}`,
    freeCancellationUntil: (when) => `Бесплатная отмена возможна до: ${when}.`,
    nonRefundable: "Невозвратный тариф: бронирование нельзя отменить.",
    request: {
      baby_cot: "детская кроватка",
      early_check_in_request: "ранний заезд (не гарантируется)",
      late_check_out_request: "поздний выезд (не гарантируется)"
    }
  }
}
