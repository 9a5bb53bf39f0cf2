import { describe, expect, it } from "@effect/vitest"
import { searchForm } from "../../src/Api/Handlers/BookSearchForm.js"
import { GUEST_PAGE_LIMITS } from "../../src/Api/Handlers/GuestPageModule.js"
import { GUEST_CATALOG } from "../../src/Domain/GuestTexts.js"

const TYPES = [{ id: "double", name: "Double Room" }, { id: "twin", name: "Twin Room" }]
const form = (query: string, language: "en" | "fr" = "en") => searchForm(language, new URLSearchParams(query), TYPES)

describe("the booking page's search form as the server writes it (src/Api/Handlers/BookSearchForm.ts)", () => {
  it("is a GET /book form whose fields are the deep link's parameters, filled from it, with the schemas' limits", () => {
    const html = form("checkin=2027-03-12&nights=2&rooms=2&adults=2&adults=1&children=&children=3,8&room_type_id=double&room_type_id=&promo=DIRECT12&lang=fr", "fr")
    expect(html).toMatch(/^<form id="search-form" class="card" action="\/book" method="get" data-ready>/)
    expect([...html.matchAll(/ name="(\w+)"/g)].map(([, name]) => name)).toEqual([
      "checkin", "checkout", "rooms", "adults", "children", "room_type_id", "adults", "children", "room_type_id", "promo", "lang"
    ])
    expect(html).toContain(`<input type="date" id="checkout" name="checkout" required value="2027-03-14">`)
    expect(html).toContain(`<input type="number" id="rooms" name="rooms" min="1" max="${GUEST_PAGE_LIMITS.roomsPerRequest}" required value="2">`)
    expect(html).toContain(`id="adults-1" name="adults" min="1" max="${GUEST_PAGE_LIMITS.adultsPerRoom}" required value="1"`)
    expect(html).toContain(`value="3, 8"`)
    expect(html).toMatch(/id="room-type-0" name="room_type_id"><option value="">[^<]+<\/option><option value="double" selected>/)
    expect(html).toContain(`<option value="" selected>${GUEST_CATALOG.fr.anyRoomType}</option><option value="double">`)
    expect(html).toContain(`<input type="hidden" name="lang" value="fr">`)
    expect(html).not.toContain("role=\"alert\"")
  })

  it("says each parameter it could not use on the form, marks its field, and does not open on offers", () => {
    const html = form("checkin=2027-02-30&nights=2&room_type_id=suite")
    expect(html).not.toContain("data-ready")
    expect([...html.matchAll(/<p>([^<]+)<\/p>/g)].map(([, said]) => said)).toEqual(
      [GUEST_CATALOG.en.arrival, GUEST_CATALOG.en.departure, GUEST_CATALOG.en.roomType].map((name) => GUEST_CATALOG.en.badParam.replace("{name}", name)))
    expect([...html.matchAll(/id="([\w-]+)"[^>]*aria-invalid="true"/g)].map(([, id]) => id)).toEqual(["checkin", "checkout", "room-type-0"])
  })

  it("writes what the link holds as text, never as markup", () => {
    const html = form(`checkin=2027-03-12&nights=2&promo=${encodeURIComponent("\"><img src=x onerror=alert(1)>")}&lang=${encodeURIComponent("\"><script>")}`)
    expect(html).not.toMatch(/<img|<script/)
    expect(html).toContain("&#34;&#62;&#60;script&#62;")
  })
})
