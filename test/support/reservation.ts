import type { CompletedReservation } from "../../src/Domain/CompletedReservation.js"
import type { PackageCode, RateCode, ReservationId, RoomTypeId } from "../../src/Domain/Ids.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import type { Cents } from "../../src/Domain/Money.js"
import type { Language } from "../../src/Domain/Reservation.js"
import { demoHotel } from "./hotel.js"

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
  policies: {
    refundable: true,
    free_cancellation_until: "2027-03-10T14:00:00+01:00",
    check_in_from: "14:00",
    check_out_by: "12:00",
    cancellation: demoHotel.policies["cancellation"]!,
    payment: demoHotel.policies["payment"]!
  },
  allowed_actions: ["update_guest", "cancel"],
  payment_required: false,
  workflow: "v12"
})
