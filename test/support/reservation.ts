import type { HotelDefinition } from "../../src/Domain/Hotel.js"
import type { QuoteId, ReservationId, RoomTypeId } from "../../src/Domain/Ids.js"
import type { Language } from "../../src/Domain/Language.js"
import { daysBetween, type LocalDate } from "../../src/Domain/LocalDate.js"
import { priceStay, type RoomLine } from "../../src/Domain/Pricing.js"
import type { GuestDetails, ReservationRecord } from "../../src/Domain/Reservation.js"
import { demoHotel } from "./hotel.js"

export const sampleGuest: GuestDetails = {
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
  const outcome = priceStay({
    hotel,
    stay: { checkin, checkout, nights: daysBetween(checkin, checkout), daysAhead: options.daysAhead ?? 100 },
    rooms,
    booked: () => 0
  })
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
    line_totals: [],
    guest: sampleGuest,
    terms_version: "2026-11",
    client: { client: null, ai_agent: null, session: null },
    guest_link_expires_at: "2026-12-02T10:00:00+01:00",
    created_at: "2026-12-01T10:00:00+01:00",
    completed_at: "2026-12-01T10:05:00+01:00"
  }
}
