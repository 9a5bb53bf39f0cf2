import { describe, expect, it } from "@effect/vitest"
import { isMixed, parseSearch, quotedTypes, roomRequests, searchParams } from "../../public/book-search.js"
import { GUEST_PAGE_LIMITS } from "../../src/Api/Handlers/GuestPageModule.js"

const parse = (query: string) => parseSearch(new URLSearchParams(query), GUEST_PAGE_LIMITS)

describe("the booking page's deep link (public/book-search.js)", () => {
  it("reads a metasearch link whole: straight on the offers", () => {
    const { search, errors } = parse("checkin=2027-03-12&checkout=2027-03-14&adults=2&children=3,8&rooms=1&promo=DIRECT12&lang=fr")
    expect(errors).toEqual([])
    expect(search).toEqual({
      checkin: "2027-03-12",
      checkout: "2027-03-14",
      rooms: [{ adults: 2, children_ages: [3, 8], room_type_id: null }],
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
    expect(search.rooms).toEqual([{ adults: GUEST_PAGE_LIMITS.defaultAdults, children_ages: [], room_type_id: null }])
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
      { adults: 1, children_ages: [4], room_type_id: null },
      { adults: 1, children_ages: [4], room_type_id: null }
    ])
    expect(parse("rooms=2&adults=2&adults=1&children=&children=5").search.rooms).toEqual([
      { adults: 2, children_ages: [], room_type_id: null },
      { adults: 1, children_ages: [5], room_type_id: null }
    ])
    expect(parse("rooms=3&adults=2&adults=1").errors).toEqual(["adults"])
  })

  it("writes a search back as the link it came from", () => {
    for (const query of [
      "checkin=2027-03-12&checkout=2027-03-14&adults=2&children=3%2C8&rooms=1&promo=DIRECT12",
      "checkin=2027-03-12&checkout=2027-03-14&adults=2&adults=1&children=&children=5&rooms=2&room_type_id=twin",
      "checkin=2027-03-12&checkout=2027-03-14&adults=2&adults=1&children=&children=5%2C9&rooms=2&room_type_id=double&room_type_id=family",
      "checkin=2027-03-12&checkout=2027-03-14&adults=2&rooms=2&room_type_id=&room_type_id=deluxe"
    ]) {
      expect(searchParams(parse(query).search).toString()).toBe(query)
    }
    expect(searchParams(parse("checkin=2027-03-12&nights=1").search, { lang: "ru", source: null }).get("lang")).toBe("ru")
  })

  it("room_type_id once: the type shown first, every type quoted; once per room: each room's own, quoted together", () => {
    const preferred = parse("rooms=2&room_type_id=twin").search
    expect([preferred.room_type_id, preferred.rooms.map((room) => room.room_type_id)]).toEqual(["twin", [null, null]])
    expect(isMixed(preferred)).toBe(false)
    expect(quotedTypes(preferred, ["double", "twin"])).toEqual([["double", "double"], ["twin", "twin"]])

    const mixed = parse("adults=2&adults=1&children=&children=5&room_type_id=double&room_type_id=family").search
    expect([mixed.room_type_id, mixed.rooms.map((room) => room.room_type_id)]).toEqual([null, ["double", "family"]])
    expect(isMixed(mixed)).toBe(true)
    // one quote, each room as its type
    expect(quotedTypes(mixed, ["double", "twin", "family"])).toEqual([["double", "family"]])
    expect(roomRequests(mixed, ["double", "family"])).toEqual([
      { room_type_id: "double", quantity: 1, adults: 2, children_ages: [] },
      { room_type_id: "family", quantity: 1, adults: 1, children_ages: [5] }
    ])
    // a room left to any type: every type for it, with the chosen one for the other
    const open = parse("rooms=2&room_type_id=family&room_type_id=").search
    expect(quotedTypes(open, ["double", "family"])).toEqual([["family", "double"], ["family", "family"]])
    expect(roomRequests(open, ["family", "family"])).toEqual([{ room_type_id: "family", quantity: 2, adults: 2, children_ages: [] }])
    // none chosen: as if not given
    expect(isMixed(parse("rooms=2&room_type_id=&room_type_id=").search)).toBe(false)
  })

  it("room_type_id neither once nor once per room is a parameter it cannot use", () => {
    expect(parse("rooms=3&room_type_id=double&room_type_id=twin").errors).toEqual(["room_type_id"])
    expect(parse("rooms=1&room_type_id=double&room_type_id=twin").errors).toEqual(["room_type_id"])
    // without rooms, as many rooms as types
    expect(parse("room_type_id=double&room_type_id=twin").search.rooms).toHaveLength(2)
    // but never more than a quote takes
    const many = parse("adults=2&".repeat(GUEST_PAGE_LIMITS.roomsPerRequest + 1))
    expect([many.errors, many.search.rooms.length]).toEqual([["rooms", "adults"], 1])
  })

  it("asks one quote line per kind of room, identical rooms as a quantity", () => {
    const { search } = parse("rooms=3&adults=2&adults=2&adults=1&children=1&children=1&children=")
    expect(roomRequests(search, "double")).toEqual([
      { room_type_id: "double", quantity: 2, adults: 2, children_ages: [1] },
      { room_type_id: "double", quantity: 1, adults: 1, children_ages: [] }
    ])
  })
})
