import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import type { HotelDefinition } from "../../src/Domain/Hotel.js"
import type { LocalizedText } from "../../src/Domain/Language.js"
import { Phone } from "../../src/Domain/Reservation.js"
import { publicReservation, reservationView } from "../../src/Domain/ReservationViews.js"
import { demoHotel } from "../support/hotel.js"
import { sampleReservation } from "../support/reservation.js"

/** Every English text of the hotel file that has a translation of its own. */
const englishTexts = (hotel: HotelDefinition): ReadonlyArray<string> => {
  const texts: Array<LocalizedText> = [
    hotel.description,
    hotel.tourist_tax.description,
    ...Object.values(hotel.policies),
    ...hotel.room_types.flatMap((r) => [r.name, r.description, r.beds]),
    ...hotel.rate_plans.flatMap((p) => [p.name, p.description]),
    ...hotel.promotions.flatMap((p) => [p.name, p.description])
  ]
  return texts.filter((t) => t.fr !== undefined && t.ru !== undefined).map((t) => t.en)
}

/** The demo hotel with its French texts removed: as a file that has only English and Russian. */
const withoutFrench = (hotel: HotelDefinition): HotelDefinition => {
  const drop = ({ en, ru }: LocalizedText): LocalizedText => (ru === undefined ? { en } : { en, ru })
  return {
    ...hotel,
    policies: Object.fromEntries(Object.entries(hotel.policies).map(([k, v]) => [k, drop(v)])),
    room_types: hotel.room_types.map((r) => ({ ...r, name: drop(r.name) })),
    rate_plans: hotel.rate_plans.map((p) => ({ ...p, name: drop(p.name), description: drop(p.description) }))
  }
}

describe("reservation views", () => {
  it("the demo hotel translates every guest-facing text", () => {
    expect(englishTexts(demoHotel).length).toBeGreaterThan(25)
  })

  it.each(["fr", "ru"] as const)("a %s reservation shows no English text of the hotel", (language) => {
    const reservation = sampleReservation({ language })
    const shown = JSON.stringify(publicReservation(demoHotel, reservation, "2026-12-02T10:00:00+01:00"))
    for (const english of englishTexts(demoHotel)) expect(shown).not.toContain(english)
  })

  it("the form lets the guest type the longest phone number the API takes, and no longer", () => {
    const longest = "+3" + "3".repeat(24)
    expect(Schema.is(Phone)(longest)).toBe(true)
    expect(Schema.is(Phone)(longest + "3")).toBe(false)
    const phone = publicReservation(demoHotel, sampleReservation(), "2026-12-02T10:00:00+01:00").guest_fields.find((f) => f.name === "phone")
    expect(phone?.max_length).toBe(longest.length)
  })

  it("shows room names, package and policies in the reservation's language", () => {
    const fr = reservationView(demoHotel, sampleReservation({ language: "fr" }))
    expect(fr.rooms.map((r) => r.room_name)).toEqual(["Chambre Double", "Chambre Twin"])
    expect(fr.package).toMatchObject({ rate_code: "FLEX_BB", name: "Flexible avec petit-déjeuner" })
    expect(fr.package.description).toContain("petit-déjeuner buffet")
    expect(fr.policies.cancellation).toContain("sans frais jusqu'à 14h00")
    expect(fr.policies.payment).toContain("se règle à l'hôtel")

    const ru = reservationView(demoHotel, sampleReservation({ language: "ru" }))
    expect(ru.rooms.map((r) => r.room_name)).toEqual(["Номер с двуспальной кроватью", "Номер с двумя односпальными кроватями"])
    expect(ru.package.name).toBe("Гибкий тариф с завтраком")
    expect(ru.policies.payment).toContain("оплачивается в отеле")

    const en = reservationView(demoHotel, sampleReservation({ language: "en" }))
    expect(en.rooms.map((r) => r.room_name)).toEqual(["Double Room", "Twin Room"])
    expect(en.package.name).toBe("Flexible with breakfast")
  })

  it("a language missing from the hotel file falls back to English", () => {
    const hotel = withoutFrench(demoHotel)
    const fr = reservationView(hotel, sampleReservation({ language: "fr", hotel }))
    expect(fr.rooms[0]!.room_name).toBe("Double Room")
    expect(fr.package.name).toBe("Flexible with breakfast")
    expect(fr.policies.cancellation).toBe(demoHotel.policies.cancellation!.en)
    // the other languages keep their own text
    expect(reservationView(hotel, sampleReservation({ language: "ru", hotel })).package.name).toBe("Гибкий тариф с завтраком")
  })

  it("a rate plan gone from the hotel file shows the booked offer's text", () => {
    const reservation = sampleReservation({ language: "fr" })
    const hotel = { ...demoHotel, rate_plans: demoHotel.rate_plans.filter((p) => p.code !== "FLEX_BB") }
    const view = reservationView(hotel, reservation)
    expect(view.package.name).toBe(reservation.offer.name)
    expect(view.package.description).toBe(reservation.offer.description)
  })
})
