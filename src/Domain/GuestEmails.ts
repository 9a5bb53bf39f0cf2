import type { CompletedReservation } from "./CompletedReservation.js"
import {
  cancellationTerms,
  formatMoney,
  formatNights,
  formatStayDay,
  formatTime,
  guestName,
  guestRequests,
  promoCodeLabel,
  roomGuests
} from "./GuestFormats.js"
import { type Catalog, GUEST_CATALOG, say, type SentenceKey, type TextValues } from "./GuestTexts.js"
import type { HotelDefinition } from "./Hotel.js"
import type { MailContent } from "./Mail.js"
import type { Language } from "./Language.js"
import { asLines, asOneLine } from "./Text.js"

/** The emails the service sends a guest. */
type EmailKind = "confirmation" | "cancellation" | "guestDetailsUpdated" | "stayChanged"

/** The confirmation PDF, made elsewhere, attached to the confirmation email. */
export interface ConfirmationPdf {
  readonly filename: string
  readonly content: Uint8Array
}

/** The PDF's file name: the reservation number, e.g. `BR-7K3Q9X.pdf`. */
export const confirmationPdfFilename = (view: CompletedReservation): string => `${view.reservation_number}.pdf`

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The guest's own words, each of its lines as written, under a caption that says whose they are. */
interface GuestWords {
  readonly caption: string
  readonly lines: ReadonlyArray<string>
}

/** A labelled line of the details table; a value of several lines is an array. */
type Row = readonly [label: string, value: string | ReadonlyArray<string> | GuestWords]

/** The words of one email: its language's catalog, and its sentences with their values. */
interface Words {
  readonly language: Language
  readonly t: Catalog
  readonly say: (key: SentenceKey, values?: TextValues) => string
}
const wordsOf = (language: Language): Words => ({
  language,
  t: GUEST_CATALOG[language],
  say: (key, values) => say(language, key, values)
})

const stayRows = (view: CompletedReservation, { language, t }: Words): ReadonlyArray<Row> => [
  [t.number, view.reservation_number],
  [t.arrival, formatStayDay("arrivalOn", view.stay.checkin, view.stay.check_in_time, language)],
  [t.departure, formatStayDay("departureOn", view.stay.checkout, view.stay.check_out_time, language)],
  [t.length, formatNights(view.stay.nights, language)],
  [t.rooms, view.rooms.map((room) => `${room.quantity} × ${room.room_name}${t.colon}${roomGuests(room, language)}`)],
  [t.package, view.package.name]
]

const priceRows = (view: CompletedReservation, { language, say, t }: Words): ReadonlyArray<Row> => {
  const { currency, tourist_tax, total } = view.price
  const money = (cents: number) => formatMoney(cents, currency, language)
  const promo = view.promo_code
  return [
    ...(promo === null ? [] : [[promoCodeLabel(promo, language), money(-view.price.promotion_discount)] as const]),
    [t.total, `${money(total)} (${say("includingTax", { amount: money(tourist_tax) })})`],
    [t.payment, view.policies.payment]
  ]
}

const cancellationRow = (hotel: HotelDefinition, view: CompletedReservation, { language, t }: Words): Row => {
  const rule = cancellationTerms(view.policies, hotel.timezone, language)
  return [t.cancellation, [rule, view.policies.cancellation].filter((line) => line !== "")]
}

const guestRows = (view: CompletedReservation, { language, t }: Words): ReadonlyArray<Row> => {
  const guest = view.guest
  const requests = guestRequests(guest, language)
  return [
    [t.guest, guestName(guest)],
    [t.email, asOneLine(guest.email)],
    [t.phone, guest.phone],
    ...(guest.arrival_time === null ? [] : [[t.arrival_time, formatTime(guest.arrival_time, language)] as const]),
    ...(guest.special_requests === null ? [] : [[t.special_requests, {
      caption: t.inYourWords,
      lines: asLines(guest.special_requests)
    }] as const]),
    ...(requests.length === 0 ? [] : [[t.requests, requests] as const])
  ]
}

interface Letter {
  readonly colon: string
  readonly subject: string
  readonly greeting: string
  readonly paragraphs: ReadonlyArray<string>
  readonly rows: ReadonlyArray<Row>
  readonly notes: ReadonlyArray<string>
  readonly link: { readonly label: string; readonly url: string; readonly note: string }
  readonly signature: ReadonlyArray<string>
}

const lines = (value: string | ReadonlyArray<string>): ReadonlyArray<string> => typeof value === "string" ? [value] : value
const isGuestWords = (value: Row[1]): value is GuestWords => typeof value === "object" && "caption" in value

/** A value in the text part: the guest's words quoted under their caption, as a reply quotes a letter. */
const textValue = (value: Row[1]): string =>
  isGuestWords(value) ? [value.caption, ...value.lines.map((line) => `> ${line}`)].join("\n  ") : lines(value).join("\n  ")

/** A value in the HTML part: the guest's words in a framed block under their caption. */
const htmlValue = (value: Row[1]): string =>
  isGuestWords(value)
    ? `${escapeHtml(value.caption)}<blockquote style="margin:4px 0;padding:6px 10px;border:1px solid #c8d0d8;border-radius:4px">` +
      `${value.lines.map(escapeHtml).join("<br>")}</blockquote>`
    : lines(value).map(escapeHtml).join("<br>")

const renderText = (letter: Letter): string =>
  [
    letter.greeting,
    "",
    ...letter.paragraphs.flatMap((p) => [p, ""]),
    ...letter.rows.map(([label, value]) => `${label}${letter.colon}${textValue(value)}`),
    "",
    ...letter.notes.flatMap((note) => [note, ""]),
    `${letter.link.label}${letter.colon}${letter.link.url}`,
    letter.link.note,
    "",
    ...letter.signature
  ].join("\n") + "\n"

const renderHtml = (language: Language, letter: Letter): string => {
  const e = escapeHtml
  const rows = letter.rows.map(([label, value]) =>
    `<tr><th align="left" valign="top" style="padding:4px 16px 4px 0">${e(label)}</th>` +
    `<td style="padding:4px 0">${htmlValue(value)}</td></tr>`
  )
  return [
    "<!DOCTYPE html>",
    `<html lang="${language}"><head><meta charset="utf-8"><title>${e(letter.subject)}</title></head>`,
    `<body style="font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#1a1a1a">`,
    `<p>${e(letter.greeting)}</p>`,
    ...letter.paragraphs.map((p) => `<p>${e(p)}</p>`),
    `<table role="presentation" cellpadding="0" cellspacing="0">${rows.join("")}</table>`,
    ...letter.notes.map((note) => `<p>${e(note)}</p>`),
    `<p><a href="${e(letter.link.url)}">${e(letter.link.label)}</a><br><small>${e(letter.link.note)}</small></p>`,
    `<p>${letter.signature.map(e).join("<br>")}</p>`,
    "</body></html>"
  ].join("\n")
}

const compose = (
  kind: EmailKind,
  hotel: HotelDefinition,
  view: CompletedReservation,
  manageUrl: string,
  rows: ReadonlyArray<Row>,
  notes: ReadonlyArray<string>
): Omit<MailContent, "attachments"> => {
  const { say, t } = wordsOf(view.language)
  const about = { number: view.reservation_number, hotel: hotel.name }
  const letter: Letter = {
    colon: t.colon,
    subject: say(`subject_${kind}`, about),
    greeting: say("greeting", { name: guestName(view.guest) }),
    paragraphs: [say(`intro_${kind}`, about)],
    rows,
    notes: [...notes, t[`outro_${kind}`]],
    // the reservation cannot be managed any more once cancelled: its link shows it
    link: { label: kind === "cancellation" ? t.viewReservation : t.manage, url: manageUrl, note: t.linkIsPersonal },
    signature: [
      t.closing,
      hotel.name,
      `${hotel.address.street}, ${hotel.address.postal_code} ${hotel.address.city}`,
      `${hotel.contact.phone} · ${hotel.contact.email}`
    ]
  }
  return {
    to: { name: guestName(view.guest), address: view.guest.email },
    subject: letter.subject,
    text: renderText(letter),
    html: renderHtml(view.language, letter)
  }
}

/** The whole reservation, its confirmation PDF attached: at completion, and after a stay change. */
const withConfirmation = (
  kind: "confirmation" | "stayChanged",
  hotel: HotelDefinition,
  view: CompletedReservation,
  manageUrl: string,
  pdf: ConfirmationPdf
): MailContent => {
  const words = wordsOf(view.language)
  return {
    ...compose(kind, hotel, view, manageUrl, [
      ...stayRows(view, words),
      ...priceRows(view, words),
      cancellationRow(hotel, view, words),
      ...guestRows(view, words)
    ], [words.t.pdfAttached]),
    attachments: [{ filename: pdf.filename, contentType: "application/pdf", content: pdf.content }]
  }
}

/** Sent at completion: the number, stay, total, manage link, and the confirmation PDF attached. */
export const confirmationEmail = (hotel: HotelDefinition, view: CompletedReservation, manageUrl: string, pdf: ConfirmationPdf) =>
  withConfirmation("confirmation", hotel, view, manageUrl, pdf)

/** Sent after the guest changed the stay: the same reservation number, the new stay and total, the new confirmation PDF. */
export const stayChangedEmail = (hotel: HotelDefinition, view: CompletedReservation, manageUrl: string, pdf: ConfirmationPdf) =>
  withConfirmation("stayChanged", hotel, view, manageUrl, pdf)

/** Sent when the guest cancels. */
export const cancellationEmail = (hotel: HotelDefinition, view: CompletedReservation, manageUrl: string): MailContent => ({
  ...compose("cancellation", hotel, view, manageUrl, stayRows(view, wordsOf(view.language)), []),
  attachments: []
})

/** Sent when the guest changes their details through the manage link: what is now on file. */
export const guestDetailsUpdatedEmail = (hotel: HotelDefinition, view: CompletedReservation, manageUrl: string): MailContent => {
  const words = wordsOf(view.language)
  return {
    ...compose("guestDetailsUpdated", hotel, view, manageUrl, [...stayRows(view, words), ...guestRows(view, words)], []),
    attachments: []
  }
}
