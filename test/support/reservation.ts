import { emptyNight } from "../../src/Domain/Channel/Nights.js"
import type { HotelDefinition, PromoCodeDefinition } from "../../src/Domain/Hotel.js"
import type { PackageCode, QuoteId, RateCode, ReservationId, RoomTypeId } from "../../src/Domain/Ids.js"
import { type Language, localized } from "../../src/Domain/Language.js"
import { daysBetween, type LocalDate } from "../../src/Domain/LocalDate.js"
import type { Cents } from "../../src/Domain/Money.js"
import { lineTotals, priceStay, type RoomLine } from "../../src/Domain/Pricing.js"
import { appliedPromoCode } from "../../src/Domain/PromoCodes.js"
import type { GuestDetails, ReservationRecord } from "../../src/Domain/Reservation.js"
import { demoHotel } from "./hotel.js"
import type { CompletedReservation } from "../../src/Domain/CompletedReservation.js"


const sampleGuest: GuestDetails = {
  first_name: "Ana",
  last_name: "Lopez",
  email: "ana@example.com",
  phone: "+34 600 123 456",
  country: "ES",
  arrival_time: "18:30",
  special_requests: "A quiet room, please.",
  baby_cot: true,
  early_check_in_request: false,
  late_check_out_request: true
}

export interface SampleOptions {
  readonly language?: Language
  readonly rateCode?: string
  readonly hotel?: HotelDefinition
  readonly checkin?: string
  readonly checkout?: string
  /** Calendar days from booking to check-in: 45 or more earns the early-booking promotion. */
  readonly daysAhead?: number
  /** A promo code the offer may apply (priced as a quote with it would be). */
  readonly promoCode?: PromoCodeDefinition
}

const line = (room: string, adults: number, children_ages: ReadonlyArray<number> = [], quantity = 1): RoomLine => ({
  room_type_id: room as RoomTypeId,
  quantity,
  adults,
  children_ages,
  rate_code: null
})

/**
 * A completed reservation priced by the real pricing rules: a double room for two adults and an
 * infant, two twin rooms for two adults each; by default Friday 12 to Monday 15 March 2027,
 * booked 100 days ahead (early booking), flexible with breakfast.
 */
export const sampleReservation = (options: SampleOptions = {}): ReservationRecord => {
  const hotel = options.hotel ?? demoHotel
  const checkin = (options.checkin ?? "2027-03-12") as LocalDate
  const checkout = (options.checkout ?? "2027-03-15") as LocalDate
  const rooms = [line("double", 2, [1]), line("twin", 2, [], 2)]
  const input = {
    hotel,
    stay: { checkin, checkout, nights: daysBetween(checkin, checkout), daysAhead: options.daysAhead ?? 100 },
    rooms,
    nights: () => emptyNight,
    promoCode: options.promoCode ?? null
  }
  const outcome = priceStay(input)
  const rateCode = options.rateCode ?? "FLEX_BB"
  const offer = outcome._tag === "Available" ? outcome.offers.find((o) => o.rate_code === rateCode) : undefined
  if (offer === undefined) throw new Error(`no ${rateCode} offer for the sample stay`)
  return {
    id: "r_sample" as ReservationId,
    number: "BR-7K3Q9X",
    status: "GUEST_COMPLETED",
    pms_status: "PENDING",
    language: options.language ?? "en",
    quote_id: "q_sample" as QuoteId,
    checkin,
    checkout,
    rooms: rooms.map((room, room_index) => ({ ...room, room_index })),
    offer,
    line_totals: lineTotals(input, offer.rate_code),
    guest: sampleGuest,
    terms_version: "2026-11",
    client: { client: null, ai_agent: null, session: null },
    promo_code: appliedPromoCode(hotel, offer),
    guest_link_expires_at: "2026-12-02T10:00:00+01:00",
    created_at: "2026-12-01T10:00:00+01:00",
    completed_at: "2026-12-01T10:05:00+01:00"
  }
}

/** A completed reservation of the demo hotel: two rooms, a child, every optional guest field set. */
export const completedReservation = (language: Language = "en"): CompletedReservation => ({
  reservation_id: "r_bMs8aVQCIqWPbAYx6TM5" as ReservationId,
  reservation_number: "BR-7K3Q9X",
  status: "GUEST_COMPLETED",
  pms_status: "PENDING",
  language,
  stay: { checkin: "2027-03-12" as LocalDate, checkout: "2027-03-15" as LocalDate, nights: 3, check_in_time: "14:00", check_out_time: "12:00" },
  rooms: [
    { room_index: 0, room_type_id: "double" as RoomTypeId, room_name: "Double Room", quantity: 1, adults: 2, children_ages: [1] },
    { room_index: 1, room_type_id: "twin" as RoomTypeId, room_name: "Twin Room", quantity: 1, adults: 1, children_ages: [] }
  ],
  guest: {
    first_name: "Jeanne",
    last_name: "Dupont",
    email: "jeanne.dupont@example.org",
    phone: "+33 6 12 34 56 78",
    country: "FR",
    arrival_time: "18:30",
    special_requests: "Quiet room, please",
    baby_cot: true,
    early_check_in_request: false,
    late_check_out_request: true
  },
  package: {
    package_code: "FLEX_BB" as PackageCode,
    rate_code: "FLEX_BB" as RateCode,
    name: "Flexible with breakfast",
    description: "Room and breakfast buffet for every guest.",
    breakfast_included: true,
    refundable: true,
    promotions: []
  },
  price: { room_total: 46600 as Cents, promotion_discount: 0 as Cents, tourist_tax: 1728 as Cents, total: 48328 as Cents, currency: "EUR" },
  promo_code: null,
  policies: {
    refundable: true,
    free_cancellation_until: "2027-03-10T14:00:00+01:00",
    check_in_from: "14:00",
    check_out_by: "12:00",
    cancellation: localized(demoHotel.policies["cancellation"]!, language),
    payment: localized(demoHotel.policies["payment"]!, language)
  },
  allowed_actions: ["update_guest", "cancel"],
  payment_required: false,
  workflow: "v12"
})
