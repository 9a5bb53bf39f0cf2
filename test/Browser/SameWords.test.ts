import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { simpleParser } from "mailparser"
import { formatDeadline, formatMoney, formatNights, formatStayDay, roomGuests } from "../../src/Domain/GuestFormats.js"
import { say } from "../../src/Domain/GuestTexts.js"
import type { ReservationId } from "../../src/Domain/Ids.js"
import type { Language } from "../../src/Domain/Language.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import { layerWithChromium, onPage, onTestServer } from "../support/browser.js"
import { daysFromToday } from "../support/clock.js"
import { completeWith, get, post, tokenOf } from "../support/flow.js"
import { demoHotel } from "../support/hotel.js"
import { Inbox, mailingTestApp } from "../support/MailingTestApp.js"
import { manageLinkOf } from "../support/manageLink.js"
import { pdfText } from "../support/pdfText.js"

/** Spaces of any kind, and line breaks (a PDF wraps a long sentence), as one space. */
const spaced = (text: string) => text.replace(/\s+/g, " ").trim()

/** The double room for two adults and an infant: every kind of guest the guests' sentence names. */
const ROOMS = [{ room_type_id: "double", adults: 2, children_ages: [1] }]

/** The flexible rate with the hotel's promo code (its own line on every medium), or the non-refundable one without. */
const PROMO_CODE = { FLEX: "DIRECT12", NRF: undefined } as const

/**
 * A reservation completed in `language` on `rateCode`, and what the guest reads of it: the
 * confirmation email's text, the PDF attached to it, and the manage page's summary.
 */
const readBy = (language: Language, rateCode: keyof typeof PROMO_CODE, days: number) =>
  Effect.gen(function*() {
    const quoted = (yield* post("/v1/quotes", {
      checkin: daysFromToday(days),
      checkout: daysFromToday(days + 3),
      rooms: ROOMS,
      promo_code: PROMO_CODE[rateCode]
    })).body
    const offer = quoted.package_offers.find((o: { rate_code: string }) => o.rate_code === rateCode)
    const intent = yield* post("/v1/reservation-intents", { quote_id: quoted.quote_id, package_code: offer.package_code, language })
    const done = yield* completeWith(tokenOf(intent.body.continue_url), offer.price.total)
    expect(done.status).toBe(200)
    const id = done.body.reservation_id as ReservationId
    const link = yield* manageLinkOf(id)
    const view = (yield* get("/v1/reservation-manage", { "x-reservation-token": new URL(link).hash.replace("#token=", "") })).body
    const inbox = yield* Inbox
    const mails = yield* Effect.promise(() => Promise.all(inbox.map((mail) => simpleParser(mail.raw))))
    const mail = mails.find((m) => m.subject?.includes(view.reservation_number) === true)!
    const pdf = mail.attachments.find((a) => a.contentType === "application/pdf")!.content
    const url = yield* onTestServer(link)
    const page = yield* onPage({}, async (browser) => {
      await browser.goto(url)
      await browser.locator("#summary").waitFor()
      return browser.locator("#summary").innerText()
    })
    return {
      view,
      read: {
        email: spaced(mail.text ?? ""),
        pdf: spaced(yield* Effect.promise(() => pdfText(new Uint8Array(pdf)))),
        page: spaced(page)
      }
    }
  })

/** Each sentence the catalog and the formatters make of a reservation view, as every medium must show it. */
const sentences = (language: Language, view: any) => {
  const room = view.rooms[0]
  const money = (cents: number) => formatMoney(cents, view.price.currency, language)
  const promo = view.promo_code === null ? {} : {
    promoCode: say(language, "promoCodeLine", view.promo_code),
    discount: money(-Math.round(view.price.promotion_discount * 100))
  }
  return {
    ...promo,
    arrival: formatStayDay("arrivalOn", view.stay.checkin as LocalDate, view.stay.check_in_time, language),
    departure: formatStayDay("departureOn", view.stay.checkout as LocalDate, view.stay.check_out_time, language),
    length: formatNights(view.stay.nights, language),
    guests: roomGuests(room, language),
    total: money(Math.round(view.price.total * 100)),
    cancellation: view.policies.refundable
      ? say(language, "freeUntil", { when: formatDeadline(view.policies.free_cancellation_until, demoHotel.timezone, language) })
      : say(language, "nonRefundablePolicy")
  }
}

const LANGUAGES: ReadonlyArray<Language> = ["en", "fr", "ru"]

layerWithChromium(mailingTestApp({ bookingLimitPerHour: 0, roomNightsPerAddressPerDay: 0 }), { timeout: 120_000 })(
  "one sentence per fact: the PDF, the email and the page say it alike",
  (it) => {
    LANGUAGES.forEach((language, i) => {
      for (const rateCode of ["FLEX", "NRF"] as const) {
        it.effect(`in ${language}, on ${rateCode}: the stay's dates, its length, a room's guests, a promo code's line, the total, the cancellation rule`, () =>
          Effect.gen(function*() {
            const { read, view } = yield* readBy(language, rateCode, 60 + 10 * i + (rateCode === "NRF" ? 5 : 0))
            const said = sentences(language, view)
            expect(Object.keys(said)).toHaveLength(rateCode === "FLEX" ? 8 : 6)
            for (const [fact, sentence] of Object.entries(said)) {
              for (const [medium, text] of Object.entries(read)) {
                expect(text, `${language} ${rateCode} ${fact} in the ${medium}`).toContain(spaced(sentence))
              }
            }
          }))
      }
    })
  }
)
