import type { Language } from "./Language.js"
import type { LocalDate } from "./LocalDate.js"
import type { ReservationStatus } from "./Reservation.js"
import { asOneLine } from "./Text.js"

/*
 * What the service itself writes to guests (the hotel's own texts come from its file), and how it
 * writes dates, times, money and guests, in each guest language: shared by the confirmation PDF
 * and the emails.
 */

/**
 * The locale of each language: a European hotel writes day-month dates and 24-hour times, so the
 * hotel's `HH:MM` times read as they are in all three.
 */
const LOCALES: Record<Language, string> = { en: "en-GB", fr: "fr-FR", ru: "ru-RU" }

/** A noun's forms by plural category of the language (`other` when the category has none). */
export type Forms = Partial<Record<Intl.LDMLPluralRule, string>> & { readonly other: string }

export interface GuestTexts {
  readonly confirmationTitle: string
  readonly phone: string
  readonly email: string
  readonly reservation: string
  readonly status: string
  readonly statuses: Record<ReservationStatus, string>
  readonly guest: string
  readonly country: string
  readonly stay: string
  readonly checkIn: string
  readonly checkOut: string
  readonly checkInFrom: (date: string, time: string) => string
  readonly checkOutBy: (date: string, time: string) => string
  readonly length: string
  readonly arrivalTime: string
  readonly roomsAndGuests: string
  /** Follows the guests of a room line that books several identical rooms. */
  readonly perRoom: string
  readonly requests: string
  readonly babyCot: string
  readonly earlyCheckIn: string
  readonly lateCheckOut: string
  readonly specialRequests: string
  /** Heads the guest's own special requests, set apart so that they cannot pass for the hotel's text. */
  readonly inYourWords: string
  readonly package: string
  readonly price: string
  readonly accommodation: string
  readonly promotion: (name: string) => string
  /** The discount line of a promo code: its code and its name. */
  readonly promoCode: (code: string, name: string) => string
  readonly touristTax: string
  readonly total: string
  readonly cancellation: string
  /** `deadline` as `formatDeadline` writes it. */
  readonly freeCancellationUntil: (deadline: string) => string
  readonly nonRefundable: string
  readonly manage: string
  readonly manageText: string
  readonly page: (page: number, pages: number) => string
  readonly nouns: { readonly night: Forms; readonly room: Forms; readonly adult: Forms; readonly child: Forms }
  /** A child's age; 0 is an infant under one. */
  readonly age: (years: number) => string
  /** The ages of a room's children, as `age` writes them, in brackets after their number. */
  readonly childrenAges: (ages: string) => string
  /** A deadline's day and time in the order the language puts them after "until". */
  readonly deadline: (day: string, time: string) => string
}

export const GUEST_TEXTS: Record<Language, GuestTexts> = {
  en: {
    confirmationTitle: "Reservation confirmation",
    phone: "Phone",
    email: "Email",
    reservation: "Reservation",
    status: "Status",
    statuses: { PENDING_GUEST: "Awaiting guest details", GUEST_COMPLETED: "Confirmed", CANCELLED: "Cancelled", EXPIRED: "Expired" },
    guest: "Guest",
    country: "Country",
    stay: "Your stay",
    checkIn: "Check-in",
    checkOut: "Check-out",
    checkInFrom: (date, time) => `${date}, from ${time}`,
    checkOutBy: (date, time) => `${date}, by ${time}`,
    length: "Length of stay",
    arrivalTime: "Expected arrival",
    roomsAndGuests: "Rooms and guests",
    perRoom: "per room",
    requests: "Requests",
    babyCot: "Baby cot (free)",
    earlyCheckIn: "Early check-in (on request, not guaranteed)",
    lateCheckOut: "Late check-out (on request, not guaranteed)",
    specialRequests: "Special requests",
    inYourWords: "Your request, in your words:",
    package: "Package",
    price: "Price",
    accommodation: "Accommodation",
    promotion: (name) => `Promotion: ${name}`,
    promoCode: (code, name) => `Promo code ${code} (${name})`,
    touristTax: "Tourist tax",
    total: "Total",
    cancellation: "Cancellation",
    freeCancellationUntil: (deadline) => `Free cancellation until ${deadline} (hotel time).`,
    nonRefundable: "Non-refundable rate: this reservation cannot be cancelled or changed.",
    manage: "Manage your reservation",
    manageText: "View and manage your reservation with your personal link:",
    page: (page, pages) => `Page ${page} of ${pages}`,
    nouns: {
      night: { one: "night", other: "nights" },
      room: { one: "room", other: "rooms" },
      adult: { one: "adult", other: "adults" },
      child: { one: "child", other: "children" }
    },
    age: (years) => years === 0 ? "under 1" : String(years),
    childrenAges: (ages) => `aged ${ages}`,
    deadline: (day, time) => `${time} on ${day}`
  },
  fr: {
    confirmationTitle: "Confirmation de réservation",
    phone: "Téléphone",
    email: "E-mail",
    reservation: "Réservation",
    status: "Statut",
    statuses: { PENDING_GUEST: "En attente de vos coordonnées", GUEST_COMPLETED: "Confirmée", CANCELLED: "Annulée", EXPIRED: "Expirée" },
    guest: "Client",
    country: "Pays",
    stay: "Votre séjour",
    checkIn: "Arrivée",
    checkOut: "Départ",
    checkInFrom: (date, time) => `${date}, à partir de ${time}`,
    checkOutBy: (date, time) => `${date}, avant ${time}`,
    length: "Durée du séjour",
    arrivalTime: "Arrivée prévue",
    roomsAndGuests: "Chambres et occupants",
    perRoom: "par chambre",
    requests: "Demandes",
    babyCot: "Lit bébé (gratuit)",
    earlyCheckIn: "Arrivée anticipée (sur demande, non garantie)",
    lateCheckOut: "Départ tardif (sur demande, non garanti)",
    specialRequests: "Demandes particulières",
    inYourWords: "Votre demande, en vos mots :",
    package: "Formule",
    price: "Prix",
    accommodation: "Hébergement",
    promotion: (name) => `Promotion : ${name}`,
    promoCode: (code, name) => `Code promo ${code} (${name})`,
    touristTax: "Taxe de séjour",
    total: "Total",
    cancellation: "Annulation",
    freeCancellationUntil: (deadline) => `Annulation gratuite jusqu'au ${deadline} (heure de l'hôtel).`,
    nonRefundable: "Tarif non remboursable : cette réservation ne peut être ni annulée ni modifiée.",
    manage: "Gérer votre réservation",
    manageText: "Consultez et gérez votre réservation grâce à votre lien personnel :",
    page: (page, pages) => `Page ${page} sur ${pages}`,
    nouns: {
      night: { one: "nuit", other: "nuits" },
      room: { one: "chambre", other: "chambres" },
      adult: { one: "adulte", other: "adultes" },
      child: { one: "enfant", other: "enfants" }
    },
    age: (years) => years === 0 ? "moins d'un an" : years === 1 ? "1 an" : `${years} ans`,
    childrenAges: (ages) => ages,
    deadline: (day, time) => `${day} à ${time}`
  },
  ru: {
    confirmationTitle: "Подтверждение бронирования",
    phone: "Телефон",
    email: "Эл. почта",
    reservation: "Бронирование",
    status: "Статус",
    statuses: { PENDING_GUEST: "Ожидает данных гостя", GUEST_COMPLETED: "Подтверждено", CANCELLED: "Отменено", EXPIRED: "Истекло" },
    guest: "Гость",
    country: "Страна",
    stay: "Ваше проживание",
    checkIn: "Заезд",
    checkOut: "Выезд",
    checkInFrom: (date, time) => `${date}, с ${time}`,
    checkOutBy: (date, time) => `${date}, до ${time}`,
    length: "Продолжительность",
    arrivalTime: "Ожидаемое время прибытия",
    roomsAndGuests: "Номера и гости",
    perRoom: "в каждом номере",
    requests: "Пожелания",
    babyCot: "Детская кроватка (бесплатно)",
    earlyCheckIn: "Ранний заезд (по запросу, не гарантируется)",
    lateCheckOut: "Поздний выезд (по запросу, не гарантируется)",
    specialRequests: "Особые пожелания",
    inYourWords: "Ваша просьба, вашими словами:",
    package: "Тариф",
    price: "Стоимость",
    accommodation: "Проживание",
    promotion: (name) => `Акция: ${name}`,
    promoCode: (code, name) => `Промокод ${code} (${name})`,
    touristTax: "Туристический налог",
    total: "Итого",
    cancellation: "Отмена бронирования",
    freeCancellationUntil: (deadline) => `Бесплатная отмена — до ${deadline} (по времени отеля).`,
    nonRefundable: "Невозвратный тариф: это бронирование нельзя отменить или изменить.",
    manage: "Управление бронированием",
    manageText: "Просматривать бронирование и управлять им можно по вашей личной ссылке:",
    page: (page, pages) => `Страница ${page} из ${pages}`,
    nouns: {
      night: { one: "ночь", few: "ночи", other: "ночей" },
      room: { one: "номер", few: "номера", other: "номеров" },
      adult: { one: "взрослый", other: "взрослых" },
      child: { one: "ребёнок", few: "ребёнка", other: "детей" }
    },
    age: (years) => years === 0 ? "до года" : count("ru", years, { one: "год", few: "года", other: "лет" }),
    childrenAges: (ages) => ages,
    // "до" takes the genitive, which a weekday name would need: the date alone reads right
    deadline: (day, time) => `${time} ${day}`
  }
}

/** The form of a word that goes with the number `n`, e.g. "nights" for 3, "ночей" for 5. */
export const pluralForm = (language: Language, n: number, forms: Forms): string =>
  forms[new Intl.PluralRules(LOCALES[language]).select(n)] ?? forms.other

/** A number and its noun in the right plural form, e.g. "3 nights", "5 ночей". */
export const count = (language: Language, n: number, forms: Forms): string => `${n} ${pluralForm(language, n, forms)}`

/** A stay date, long, e.g. "Friday, 12 March 2027", "vendredi 12 mars 2027". */
export const formatDate = (date: LocalDate, language: Language): string =>
  new Intl.DateTimeFormat(LOCALES[language], { weekday: "long", day: "numeric", month: "long", year: "numeric", timeZone: "UTC" })
    .format(new Date(`${date}T00:00:00Z`))

/** An amount in cents, e.g. "€1,234.50", "1 234,50 €". */
export const formatMoney = (cents: number, currency: string, language: Language): string =>
  new Intl.NumberFormat(LOCALES[language], { style: "currency", currency }).format(cents / 100)

/**
 * An instant (ISO with offset) in hotel time, as it follows "until": "14:00 on Wednesday,
 * 10 March 2027", "mercredi 10 mars 2027 à 14:00", "14:00 10 марта 2027 г.".
 */
export const formatDeadline = (instant: string, timeZone: string, language: Language): string => {
  const at = new Date(instant)
  const locale = LOCALES[language]
  const day = new Intl.DateTimeFormat(locale, {
    ...(language === "ru" ? {} : { weekday: "long" as const }),
    day: "numeric",
    month: "long",
    year: "numeric",
    timeZone
  }).format(at)
  const time = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone }).format(at)
  return GUEST_TEXTS[language].deadline(day, time)
}

/** The number of nights, e.g. "3 nights", "3 ночи". */
export const formatNights = (nights: number, language: Language): string =>
  count(language, nights, GUEST_TEXTS[language].nouns.night)

/** The guests of one room, e.g. "2 adults, 1 child (aged 1)", "2 взрослых, 1 ребёнок (1 год)". */
export const guestsSummary = (
  room: { readonly adults: number; readonly children_ages: ReadonlyArray<number> },
  language: Language
): string => {
  const texts = GUEST_TEXTS[language]
  const adults = count(language, room.adults, texts.nouns.adult)
  if (room.children_ages.length === 0) return adults
  const ages = new Intl.ListFormat(LOCALES[language], { type: "conjunction" }).format(room.children_ages.map(texts.age))
  return `${adults}, ${count(language, room.children_ages.length, texts.nouns.child)} (${texts.childrenAges(ages)})`
}

/** The guest's full name, e.g. "Ana García", on one line whatever was stored. */
export const guestName = (guest: { readonly first_name: string; readonly last_name: string }): string =>
  asOneLine(`${guest.first_name} ${guest.last_name}`)

/** A country code's name, e.g. "ES" → "Spain", "Espagne", "Испания". */
export const formatCountry = (code: string, language: Language): string =>
  new Intl.DisplayNames(LOCALES[language], { type: "region" }).of(code) ?? code
