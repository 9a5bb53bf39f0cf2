import { describe, expect, it } from "@effect/vitest"
import { parseSearch, roomRequests, searchParams } from "../../public/book-search.js"
import { GUEST_PAGE_LIMITS } from "../../src/Api/Handlers/GuestPageModule.js"

const parse = (query: string) => parseSearch(new URLSearchParams(query), GUEST_PAGE_LIMITS)

describe("the booking page's deep link (public/book-search.js)", () => {
  it("reads a metasearch link whole: straight on the offers", () => {
    const { search, errors } = parse("checkin=2027-03-12&checkout=2027-03-14&adults=2&children=3,8&rooms=1&promo=DIRECT12&lang=fr")
    expect(errors).toEqual([])
    expect(search).toEqual({
      checkin: "2027-03-12",
      checkout: "2027-03-14",
      rooms: [{ adults: 2, children_ages: [3, 8] }],
      room_type_id: null,
      package_code: null,
      promo: "DIRECT12",
      ready: true
    })
  })

  it("takes nights for the departure, across a month and a leap day", () => {
    expect(parse("checkin=2028-02-27&nights=3").search.checkout).toBe("2028-03-01")
    expect(parse("checkin=2027-12-30&nights=2").search.checkout).toBe("2028-01-01")
  })

  it("without guests: the schemas' default adults, one room, not yet ready without dates", () => {
    const { search, errors } = parse("")
    expect(errors).toEqual([])
    expect(search.rooms).toEqual([{ adults: GUEST_PAGE_LIMITS.defaultAdults, children_ages: [] }])
    expect(search.ready).toBe(false)
  })

  it("names each parameter it cannot use, and keeps the rest", () => {
    const { search, errors } = parse("checkin=2027-02-30&nights=2&adults=9&children=3,18&rooms=0&promo=" + "X".repeat(41))
    expect(errors).toEqual(["checkin", "nights", "rooms", "adults", "children", "promo"])
    expect(search.ready).toBe(false)
    expect(parse("checkin=2027-03-12&checkout=2027-03-12").errors).toEqual(["checkout"])
    expect(parse(`checkin=2027-03-12&nights=${GUEST_PAGE_LIMITS.maxNights + 1}`).errors).toEqual(["nights"])
    expect(parse("checkin=2027-03-12&nights=2&children=1,2,3,4").errors).toEqual(["children"])
    expect(parse("checkin=2027-03-12&nights=two").errors).toEqual(["nights"])
  })

  it("guests once for every room, or once per room", () => {
    expect(parse("rooms=2&adults=1&children=4").search.rooms).toEqual([
      { adults: 1, children_ages: [4] },
      { adults: 1, children_ages: [4] }
    ])
    expect(parse("rooms=2&adults=2&adults=1&children=&children=5").search.rooms).toEqual([
      { adults: 2, children_ages: [] },
      { adults: 1, children_ages: [5] }
    ])
    expect(parse("rooms=3&adults=2&adults=1").errors).toEqual(["adults"])
  })

  it("writes a search back as the link it came from", () => {
    for (const query of [
      "checkin=2027-03-12&checkout=2027-03-14&adults=2&children=3%2C8&rooms=1&promo=DIRECT12",
      "checkin=2027-03-12&checkout=2027-03-14&adults=2&adults=1&children=&children=5&rooms=2&room_type_id=twin"
    ]) {
      expect(searchParams(parse(query).search).toString()).toBe(query)
    }
    expect(searchParams(parse("checkin=2027-03-12&nights=1").search, { lang: "ru", source: null }).get("lang")).toBe("ru")
  })

  it("asks one quote line per kind of room, identical rooms as a quantity", () => {
    const { search } = parse("rooms=3&adults=2&adults=2&adults=1&children=1&children=1&children=")
    expect(roomRequests(search, "double")).toEqual([
      { room_type_id: "double", quantity: 2, adults: 2, children_ages: [1] },
      { room_type_id: "double", quantity: 1, adults: 1, children_ages: [] }
    ])
  })
})
