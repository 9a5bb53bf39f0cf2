import {
  cancellationTerms,
  formatCountry,
  formatMoney,
  formatNights,
  formatStayDay,
  formatTime,
  guestName,
  guestRequests,
  promoCodeLabel,
  roomGuests
} from "./GuestFormats.js"
import { GUEST_CATALOG, say, type SentenceKey, type TextValues, word } from "./GuestTexts.js"
import type { HotelDefinition } from "./Hotel.js"
import type { PromotionCode } from "./Ids.js"
import { type Language, localized } from "./Language.js"
import type { ReservationView } from "./Reservation.js"
import { asLines, asOneLine } from "./Text.js"

/** One line of a section: a labelled value, an amount set right, or running text. */
export type DocumentLine =
  | { readonly _tag: "Field"; readonly label: string; readonly value: string }
  | { readonly _tag: "Amount"; readonly label: string; readonly amount: string; readonly total: boolean }
  | { readonly _tag: "Text"; readonly text: string; readonly strong: boolean }
  | { readonly _tag: "Link"; readonly url: string }
  /** The guest's own words, each of its lines as written, under a caption that says whose they are. */
  | { readonly _tag: "GuestWords"; readonly label: string; readonly caption: string; readonly lines: ReadonlyArray<string> }

export interface DocumentSection {
  readonly heading: string
  readonly lines: ReadonlyArray<DocumentLine>
}

/** The confirmation's content, in the reservation's language, ready for any layout. */
export interface ConfirmationDocument {
  readonly language: Language
  readonly title: string
  readonly reservationNumber: string
  readonly hotelName: string
  /** Address and contact lines under the hotel's name. */
  readonly hotelLines: ReadonlyArray<string>
  readonly sections: ReadonlyArray<DocumentSection>
  /** At the foot of every page. */
  readonly footer: string
}

const field = (label: string, value: string): DocumentLine => ({ _tag: "Field", label, value })
const amount = (label: string, value: string, total = false): DocumentLine => ({ _tag: "Amount", label, amount: value, total })
const text = (value: string, strong = false): DocumentLine => ({ _tag: "Text", text: value, strong })
const guestWords = (label: string, caption: string, words: string): DocumentLine => ({
  _tag: "GuestWords",
  label,
  caption,
  lines: asLines(words)
})

/** The confirmation of a reservation, as its guest reads it: every text in the reservation's language. */
export const confirmationDocument = (hotel: HotelDefinition, view: ReservationView, manageUrl: string): ConfirmationDocument => {
  const language = view.language
  const t = GUEST_CATALOG[language]
  const sayIn = (key: SentenceKey, values?: TextValues) => say(language, key, values)
  const money = (cents: number) => formatMoney(cents, view.price.currency, language)
  const { address, contact } = hotel
  const guest = view.guest
  const reservationNumber = view.reservation_number ?? view.reservation_id

  const promotionName = (code: PromotionCode) => {
    const promotion = hotel.promotions.find((p) => p.code === code)
    return promotion === undefined ? code : localized(promotion.name, language)
  }

  // the one promotion applied: the guest's promo code, or an automatic promotion
  const discountLabel = view.promo_code === null
    ? sayIn("promotion", { name: view.package.promotions.map(promotionName).join(", ") })
    : promoCodeLabel(view.promo_code, language)

  const requests = guest === null ? [] : guestRequests(guest, language)

  const sections: ReadonlyArray<DocumentSection> = [
    {
      heading: t.reservation,
      lines: [
        field(t.status, word(language, "statuses", view.status)),
        ...(guest === null ? [] : [
          field(t.guest, guestName(guest)),
          field(t.email, asOneLine(guest.email)),
          field(t.phone, guest.phone),
          ...(guest.country === null ? [] : [field(t.country, formatCountry(guest.country, language))])
        ])
      ]
    },
    {
      heading: t.yourStay,
      lines: [
        field(t.arrival, formatStayDay("arrivalOn", view.stay.checkin, view.stay.check_in_time, language)),
        field(t.departure, formatStayDay("departureOn", view.stay.checkout, view.stay.check_out_time, language)),
        field(t.length, formatNights(view.stay.nights, language)),
        ...(guest === null || guest.arrival_time === null ? [] : [field(t.arrival_time, formatTime(guest.arrival_time, language))])
      ]
    },
    {
      heading: t.roomsAndGuests,
      lines: [
        ...view.rooms.map((room) =>
          field(sayIn("roomCountLabel", { n: room.quantity }), `${room.room_name}\n${roomGuests(room, language)}`)
        ),
        ...(requests.length === 0 ? [] : [field(t.requests, requests.join("\n"))]),
        ...(guest === null || guest.special_requests === null ? [] : [guestWords(t.special_requests, t.inYourWords, guest.special_requests)])
      ]
    },
    {
      heading: t.package,
      lines: [text(view.package.name, true), text(view.package.description)]
    },
    {
      heading: t.price,
      lines: [
        amount(t.roomTotal, money(view.price.room_total)),
        ...(view.price.promotion_discount > 0 ? [amount(discountLabel, money(-view.price.promotion_discount))] : []),
        amount(t.tax, money(view.price.tourist_tax)),
        amount(t.total, money(view.price.total), true),
        text(view.policies.payment)
      ]
    },
    {
      heading: t.cancellation,
      lines: [
        text(cancellationTerms(view.policies, hotel.timezone, language))
      ]
    },
    {
      heading: t.manage,
      lines: [text(t.manageText), { _tag: "Link", url: manageUrl }]
    }
  ]

  return {
    language,
    title: t.confirmationTitle,
    reservationNumber,
    hotelName: hotel.name,
    hotelLines: [
      `${address.street}, ${address.postal_code} ${address.city}, ${formatCountry(address.country, language)}`,
      `${t.phone} ${contact.phone} · ${contact.email} · ${contact.website}`
    ],
    sections,
    footer: `${hotel.name} · ${reservationNumber} · ${contact.phone} · ${contact.email}`
  }
}
