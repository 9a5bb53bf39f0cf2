import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import fc from "fast-check"
import {
  AriMessage,
  type AriUpdate,
  applyMessage,
  CHANNEL_FIELDS,
  type ChannelCells,
  countsAsTakenSince,
  emptyNight,
  freeDuringStay,
  freeRooms,
  inventoryNight,
  isOversold,
  messageIssues,
  messageRanges,
  type NightLookup,
  type NightState,
  noCells,
  released,
  restrictionBound,
  stayRestriction,
  taken
} from "../../src/Domain/Channel.js"
import { listIssues } from "../../src/Domain/Errors.js"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import { addDays, type LocalDate } from "../../src/Domain/LocalDate.js"
import type { Cents } from "../../src/Domain/Money.js"
import { demoHotel as hotel } from "../support/hotel.js"
import { prop } from "./prop.js"

const d = (s: string) => s as LocalDate
const deluxe = "deluxe" as RoomTypeId
const double = "double" as RoomTypeId
const twin = "twin" as RoomTypeId
const roomIds = [double, twin, deluxe]
const ms = (iso: string) => Date.parse(iso)

/** A night with these cells set (each at `asOf`), `booked` rooms held of which `since` taken after the figure. */
const nightWith = (
  values: Partial<{ readonly [K in keyof ChannelCells]: ChannelCells[K]["value"] }>,
  booked = 0,
  since = 0,
  asOf = ms("2027-01-01T00:00:00Z")
): NightState => ({
  booked,
  booked_since: since,
  cells: Object.fromEntries(
    CHANNEL_FIELDS.map((field) => [field, field in values ? { value: values[field], as_of: asOf } : noCells[field]])
  ) as unknown as ChannelCells
})

/** A lookup of some (room type, night) states; every other night is empty. */
const lookupOf = (states: Readonly<Record<string, NightState>>): NightLookup => (roomTypeId, night) =>
  states[`${roomTypeId} ${night}`] ?? emptyNight

const message = (as_of: string, updates: ReadonlyArray<AriUpdate>, message_id = "m-1"): AriMessage => ({ message_id, as_of, updates })
const update = (fields: Omit<AriUpdate, "from" | "to"> & { readonly from: string; readonly to: string }): AriUpdate =>
  ({ ...fields, from: d(fields.from), to: d(fields.to) }) as AriUpdate

// --- freeRooms -------------------------------------------------------------------

describe("freeRooms", () => {
  it("without a figure from the hotel, the file's count less this service's bookings", () => {
    expect(freeRooms(5, emptyNight)).toBe(5)
    expect(freeRooms(5, { ...emptyNight, booked: 3 })).toBe(2)
    expect(freeRooms(5, { ...emptyNight, booked: 5 })).toBe(0)
    // a cleared figure (null, with its as_of) is no figure
    expect(freeRooms(5, nightWith({ rooms_to_sell: null }, 2, 1))).toBe(3)
  })

  it("with a figure: min(rooms - booked_here, rooms_to_sell - booked_here_since), never below 0", () => {
    // the hotel's 2 already count the 3 booked before its as_of
    expect(freeRooms(5, nightWith({ rooms_to_sell: 2 }, 3, 0))).toBe(2)
    // one of ours since: the figure cannot count it
    expect(freeRooms(5, nightWith({ rooms_to_sell: 2 }, 3, 1))).toBe(1)
    // the file's count binds: 4 booked of 5
    expect(freeRooms(5, nightWith({ rooms_to_sell: 5 }, 4, 0))).toBe(1)
    expect(freeRooms(5, nightWith({ rooms_to_sell: 0 }, 0, 0))).toBe(0)
    // oversold: the figure is below what we took since it was computed
    expect(freeRooms(5, nightWith({ rooms_to_sell: 1 }, 3, 3))).toBe(0)
    expect(isOversold(nightWith({ rooms_to_sell: 1 }, 3, 3))).toBe(true)
    expect(isOversold(nightWith({ rooms_to_sell: 3 }, 3, 3))).toBe(false)
    expect(isOversold(nightWith({ rooms_to_sell: null }, 3, 3))).toBe(false)
  })

  it("during a stay: the fewest free on any night", () => {
    const nights = lookupOf({
      "deluxe 2027-03-10": nightWith({ rooms_to_sell: 3 }),
      "deluxe 2027-03-11": nightWith({ rooms_to_sell: 4 }, 2, 2),
      "deluxe 2027-03-12": nightWith({ rooms_to_sell: 0 })
    })
    expect(freeDuringStay(5, nights, deluxe, d("2027-03-10"), d("2027-03-12"))).toBe(2)
    // the check-out date is no night of the stay
    expect(freeDuringStay(5, nights, deluxe, d("2027-03-09"), d("2027-03-11"))).toBe(3)
    expect(freeDuringStay(5, nights, deluxe, d("2027-03-10"), d("2027-03-13"))).toBe(0)
    expect(freeDuringStay(5, nights, twin, d("2027-03-10"), d("2027-03-13"))).toBe(5)
  })

  it("taken counts rooms as taken since only on a night with a figure; released gives back only those taken after it", () => {
    const asOf = ms("2027-01-01T00:00:00Z")
    expect(taken(emptyNight, 2)).toEqual({ ...emptyNight, booked: 2, booked_since: 0 })
    const withFigure = nightWith({ rooms_to_sell: 3 }, 1, 0, asOf)
    expect(taken(withFigure, 2)).toMatchObject({ booked: 3, booked_since: 2 })
    // taken after the figure, cancelled after it: leaves the count
    expect(released(taken(withFigure, 2), 2, asOf + 1)).toMatchObject({ booked: 1, booked_since: 0 })
    // taken before (the figure counts it), cancelled after: gives nothing back until the next figure
    expect(released(taken(withFigure, 2), 1, asOf - 1)).toMatchObject({ booked: 2, booked_since: 2 })
    expect(freeRooms(5, released(taken(withFigure, 2), 1, asOf - 1))).toBe(1)
    // taken at the very instant of the figure: maybe after it was computed, so counted as taken since
    expect(released(taken(withFigure, 2), 1, asOf)).toMatchObject({ booked: 2, booked_since: 1 })
    // booked_since never counts more than is booked
    expect(released(nightWith({ rooms_to_sell: 3 }, 2, 2, asOf), 2, asOf - 1)).toMatchObject({ booked: 0, booked_since: 0 })
  })
})

// --- restrictions ----------------------------------------------------------------

describe("stayRestriction", () => {
  const stay = (states: Readonly<Record<string, NightState>>, checkin = "2027-03-10", checkout = "2027-03-13", room = deluxe) =>
    stayRestriction(lookupOf(states), room, d(checkin), d(checkout))

  it("none without cells, nor for another room type", () => {
    expect(stay({})).toBeUndefined()
    expect(stay({ "deluxe 2027-03-11": nightWith({ stop_sell: true }) }, "2027-03-10", "2027-03-13", twin)).toBeUndefined()
  })

  it("stop_sell on any night of the stay; not on the check-out date; false or null is no stop", () => {
    expect(stay({ "deluxe 2027-03-12": nightWith({ stop_sell: true }) })).toEqual({ reason: "stop_sell" })
    expect(stay({ "deluxe 2027-03-13": nightWith({ stop_sell: true }) })).toBeUndefined()
    expect(stay({ "deluxe 2027-03-11": nightWith({ stop_sell: false }) })).toBeUndefined()
    expect(stay({ "deluxe 2027-03-11": nightWith({ stop_sell: null }) })).toBeUndefined()
  })

  it("closed_to_arrival on the check-in date only", () => {
    expect(stay({ "deluxe 2027-03-10": nightWith({ closed_to_arrival: true }) })).toEqual({ reason: "closed_to_arrival" })
    expect(stay({ "deluxe 2027-03-11": nightWith({ closed_to_arrival: true }) })).toBeUndefined()
    expect(stay({ "deluxe 2027-03-13": nightWith({ closed_to_arrival: true }) })).toBeUndefined()
  })

  it("closed_to_departure reads the check-out date, never a night of the stay nor its check-in", () => {
    expect(stay({ "deluxe 2027-03-13": nightWith({ closed_to_departure: true }) })).toEqual({ reason: "closed_to_departure" })
    expect(stay({ "deluxe 2027-03-12": nightWith({ closed_to_departure: true }) })).toBeUndefined()
    expect(stay({ "deluxe 2027-03-10": nightWith({ closed_to_departure: true }) })).toBeUndefined()
    // one night shorter leaves on the closed date
    expect(stay({ "deluxe 2027-03-12": nightWith({ closed_to_departure: true }) }, "2027-03-10", "2027-03-12"))
      .toEqual({ reason: "closed_to_departure" })
  })

  it("min_stay and max_stay of the check-in date bound the nights (arrival-based), with the number", () => {
    const arrival = (values: Parameters<typeof nightWith>[0]) => ({ "deluxe 2027-03-10": nightWith(values) })
    expect(stay(arrival({ min_stay: 4 }))).toEqual({ reason: "min_stay", nights: 4 })
    expect(stay(arrival({ min_stay: 3 }))).toBeUndefined()
    expect(stay(arrival({ max_stay: 2 }))).toEqual({ reason: "max_stay", nights: 2 })
    expect(stay(arrival({ max_stay: 3 }))).toBeUndefined()
    // a bound on a later night of the stay does not apply to it
    expect(stay({ "deluxe 2027-03-11": nightWith({ min_stay: 7, max_stay: 1 }) })).toBeUndefined()
    expect(restrictionBound({ reason: "min_stay", nights: 4 })).toEqual({ min_stay: 4 })
    expect(restrictionBound({ reason: "max_stay", nights: 2 })).toEqual({ max_stay: 2 })
    expect(restrictionBound({ reason: "stop_sell" })).toEqual({})
    expect(restrictionBound(undefined)).toEqual({})
  })

  it("precedence: stop_sell > closed_to_arrival > closed_to_departure > min_stay > max_stay (then sold_out, counted apart)", () => {
    const all = {
      "deluxe 2027-03-10": nightWith({ closed_to_arrival: true, min_stay: 5, max_stay: 2 }),
      "deluxe 2027-03-11": nightWith({ stop_sell: true }),
      "deluxe 2027-03-13": nightWith({ closed_to_departure: true })
    }
    expect(stay(all)).toEqual({ reason: "stop_sell" })
    const withoutStop = { ...all, "deluxe 2027-03-11": emptyNight }
    expect(stay(withoutStop)).toEqual({ reason: "closed_to_arrival" })
    const departure = { ...withoutStop, "deluxe 2027-03-10": nightWith({ min_stay: 5, max_stay: 2 }) }
    expect(stay(departure)).toEqual({ reason: "closed_to_departure" })
    const bounds = { ...departure, "deluxe 2027-03-13": emptyNight }
    // crossed bounds cannot be stored, but if they were, min_stay is named first
    expect(stay(bounds)).toEqual({ reason: "min_stay", nights: 5 })
    expect(stay({ "deluxe 2027-03-10": nightWith({ min_stay: 1, max_stay: 2 }) })).toEqual({ reason: "max_stay", nights: 2 })
  })

  prop("a restricted stay is named whatever rooms are free; an unrestricted one is the same as without cells", {
    stop: fc.boolean(),
    cta: fc.boolean(),
    ctd: fc.boolean(),
    min: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }),
    max: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }),
    nights: fc.integer({ min: 1, max: 10 }),
    toSell: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null })
  }, ({ cta, ctd, max, min, nights, stop, toSell }) => {
    const checkin = d("2027-03-10")
    const checkout = addDays(checkin, nights)
    // the last night may be the check-in date: its cells are merged
    const lastNight = addDays(checkin, nights - 1)
    const states = {
      [`deluxe ${lastNight}`]: nightWith({ stop_sell: stop, rooms_to_sell: toSell }),
      [`deluxe ${checkin}`]: nightWith({
        closed_to_arrival: cta,
        min_stay: min,
        max_stay: max,
        rooms_to_sell: toSell,
        ...(lastNight === checkin ? { stop_sell: stop } : {})
      }),
      [`deluxe ${checkout}`]: nightWith({ closed_to_departure: ctd })
    }
    const expected = stop
      ? "stop_sell"
      : cta
      ? "closed_to_arrival"
      : ctd
      ? "closed_to_departure"
      : min !== null && nights < min
      ? "min_stay"
      : max !== null && nights > max
      ? "max_stay"
      : undefined
    expect(stayRestriction(lookupOf(states), deluxe, checkin, checkout)?.reason).toBe(expected)
  })
})

// --- messages --------------------------------------------------------------------

describe("messageIssues", () => {
  const today = d("2026-11-22")
  const now = ms("2026-11-22T10:00:00Z")
  const issuesOf = (updates: ReadonlyArray<AriUpdate>, asOf = "2026-11-22T10:00:00Z") =>
    messageIssues(hotel, today, now, message(asOf, updates)).map((issue) => issue.path)

  it("as_of at most 5 minutes ahead; milliseconds and offsets allowed", () => {
    expect(issuesOf([], "2026-11-22T10:05:00.000Z")).toEqual([])
    expect(issuesOf([], "2026-11-22T11:05:00+01:00")).toEqual([])
    expect(issuesOf([], "2026-11-22T10:05:00.001Z")).toEqual(["as_of"])
    expect(issuesOf([], "2026-11-22T12:05:00.001+02:00")).toEqual(["as_of"])
    expect(issuesOf([], "2020-01-01T00:00:00Z")).toEqual([])
  })

  it("dates: from at least yesterday, to at most today + max_days_ahead, to not before from, at most 500 dates", () => {
    expect(issuesOf([update({ from: "2026-11-21", to: "2026-11-21", stop_sell: true })])).toEqual([])
    expect(issuesOf([update({ from: "2026-11-20", to: "2026-11-21", stop_sell: true })])).toEqual(["updates[0].from"])
    const last = addDays(today, hotel.booking.max_days_ahead)
    expect(issuesOf([update({ from: last, to: last, stop_sell: true })])).toEqual([])
    expect(issuesOf([update({ from: last, to: addDays(last, 1), stop_sell: true })])).toEqual(["updates[0].to"])
    expect(issuesOf([update({ from: "2027-01-02", to: "2027-01-01", stop_sell: true })])).toEqual(["updates[0].to"])
    expect(issuesOf([update({ from: today, to: addDays(today, 499), stop_sell: true })])).toEqual([])
    expect(issuesOf([update({ from: today, to: addDays(today, 500), stop_sell: true })])).toEqual(["updates[0].to"])
    expect(messageIssues(hotel, today, now, message("2026-11-22T10:00:00Z", [update({ from: today, to: addDays(today, 500), stop_sell: true })]))[0]!.message)
      .toContain("at most 500")
  })

  it("rooms_to_sell bounded by the room type's count, or by each type's count without room_type_id", () => {
    expect(issuesOf([update({ room_type_id: deluxe, from: "2027-01-01", to: "2027-01-02", rooms_to_sell: 5 })])).toEqual([])
    expect(issuesOf([update({ room_type_id: deluxe, from: "2027-01-01", to: "2027-01-02", rooms_to_sell: 6 })]))
      .toEqual(["updates[0].rooms_to_sell"])
    expect(issuesOf([update({ room_type_id: double, from: "2027-01-01", to: "2027-01-02", rooms_to_sell: 12 })])).toEqual([])
    expect(issuesOf([update({ from: "2027-01-01", to: "2027-01-02", rooms_to_sell: 5 })])).toEqual([])
    expect(issuesOf([update({ from: "2027-01-01", to: "2027-01-02", rooms_to_sell: 6 })])).toEqual(["updates[0].rooms_to_sell"])
    expect(issuesOf([update({ from: "2027-01-01", to: "2027-01-02", rooms_to_sell: null })])).toEqual([])
  })

  it("an unknown room type and min_stay above max_stay in one update are named by their path; every bad update is named", () => {
    expect(issuesOf([
      update({ from: "2027-01-01", to: "2027-01-01", stop_sell: true }),
      update({ room_type_id: "suite" as RoomTypeId, from: "2027-01-01", to: "2027-01-01", stop_sell: true }),
      update({ room_type_id: twin, from: "2027-01-01", to: "2027-01-01", min_stay: 4, max_stay: 3 }),
      update({ room_type_id: twin, from: "2027-01-01", to: "2027-01-01", min_stay: 3, max_stay: 3 })
    ])).toEqual(["updates[1].room_type_id", "updates[2].min_stay"])
  })
})

describe("AriMessage schema bounds", () => {
  // as the endpoint decodes a message: an unknown field is refused
  const decode = Schema.decodeUnknownResult(AriMessage, { onExcessProperty: "error" })
  const withUpdate = (fields: Record<string, unknown>) =>
    decode({ message_id: "m", as_of: "2027-01-01T00:00:00Z", updates: [{ from: "2027-01-01", to: "2027-01-01", ...fields }] })

  it("base_rate above 0, at most 100000.00, 2 decimals; decoded as cents", () => {
    expect(Result.getOrThrow(withUpdate({ base_rate: 139.99 })).updates[0]!.base_rate).toBe(13999)
    expect(Result.getOrThrow(withUpdate({ base_rate: 100000 })).updates[0]!.base_rate).toBe(10_000_000)
    expect(Result.getOrThrow(withUpdate({ base_rate: 0.01 })).updates[0]!.base_rate).toBe(1)
    for (const bad of [0, -1, 100000.01, 1.234, 2 ** 53, "12"]) expect(Result.isFailure(withUpdate({ base_rate: bad }))).toBe(true)
  })

  it("stay bounds 1-30, rooms_to_sell an integer from 0, message_id 1-64, at most 1,000 updates, no unknown field", () => {
    for (const bad of [0, 31, 1.5, 2 ** 31]) expect(Result.isFailure(withUpdate({ min_stay: bad }))).toBe(true)
    expect(Result.isSuccess(withUpdate({ min_stay: 30, max_stay: 1 }))).toBe(true)
    for (const bad of [-1, 2 ** 31, 2 ** 53, 0.5]) expect(Result.isFailure(withUpdate({ rooms_to_sell: bad }))).toBe(true)
    expect(Result.isFailure(withUpdate({ rooms: 3 }))).toBe(true)
    expect(Result.isFailure(decode({ message_id: "", as_of: "2027-01-01T00:00:00Z", updates: [] }))).toBe(true)
    expect(Result.isFailure(decode({ message_id: "x".repeat(65), as_of: "2027-01-01T00:00:00Z", updates: [] }))).toBe(true)
    expect(Result.isSuccess(decode({ message_id: "x".repeat(64), as_of: "2027-01-01T00:00:00.5+01:00", updates: [] }))).toBe(true)
    expect(Result.isFailure(decode({ message_id: "m", as_of: "2027-01-01T00:00:00", updates: [] }))).toBe(true)
    const many = Array.from({ length: 1001 }, () => ({ from: "2027-01-01", to: "2027-01-01", stop_sell: true }))
    expect(Result.isFailure(decode({ message_id: "m", as_of: "2027-01-01T00:00:00Z", updates: many }))).toBe(true)
    expect(Result.isSuccess(decode({ message_id: "m", as_of: "2027-01-01T00:00:00Z", updates: many.slice(1) }))).toBe(true)
  })
})

describe("applyMessage", () => {
  const t0 = "2027-01-01T10:00:00Z"
  const t1 = "2027-01-01T11:00:00Z"

  it("a field present sets it, absent leaves it, null clears it; the answer counts (room type, date, field) cells", () => {
    const first = applyMessage(hotel, lookupOf({}), message(t0, [
      update({ room_type_id: deluxe, from: "2027-03-10", to: "2027-03-11", rooms_to_sell: 2, min_stay: 2 })
    ]))
    expect(first).toMatchObject({ applied: 4, stale: 0, issues: [] })
    expect(first.nights.map((n) => [n.night, n.cells.rooms_to_sell, n.cells.min_stay, n.cells.stop_sell, n.roomsToSellWritten])).toEqual([
      ["2027-03-10", { value: 2, as_of: ms(t0) }, { value: 2, as_of: ms(t0) }, noCells.stop_sell, true],
      ["2027-03-11", { value: 2, as_of: ms(t0) }, { value: 2, as_of: ms(t0) }, noCells.stop_sell, true]
    ])
    const stored = lookupOf(Object.fromEntries(first.nights.map((n) => [`${n.room_type_id} ${n.night}`, { ...emptyNight, cells: n.cells }])))
    const second = applyMessage(hotel, stored, message(t1, [update({ room_type_id: deluxe, from: "2027-03-10", to: "2027-03-10", min_stay: null })]))
    expect(second).toMatchObject({ applied: 1, stale: 0 })
    expect(second.nights).toEqual([{
      room_type_id: deluxe,
      night: "2027-03-10",
      roomsToSellWritten: false,
      cells: { ...first.nights[0]!.cells, min_stay: { value: null, as_of: ms(t1) } }
    }])
    // without room_type_id: every room type
    expect(applyMessage(hotel, lookupOf({}), message(t0, [update({ from: "2027-03-10", to: "2027-03-10", stop_sell: true })])).applied).toBe(3)
    // a heartbeat changes nothing
    expect(applyMessage(hotel, lookupOf({}), message(t0, []))).toEqual({ nights: [], applied: 0, stale: 0, issues: [] })
  })

  it("an older message leaves newer cells alone and counts them stale; a cleared cell stays cleared", () => {
    const newer = lookupOf({ "deluxe 2027-03-10": nightWith({ stop_sell: null, rooms_to_sell: 1 }, 0, 0, ms(t1)) })
    const outcome = applyMessage(hotel, newer, message(t0, [
      update({ room_type_id: deluxe, from: "2027-03-10", to: "2027-03-11", stop_sell: true, rooms_to_sell: 4 })
    ]))
    expect(outcome).toMatchObject({ applied: 2, stale: 2 })
    const [tenth, eleventh] = outcome.nights
    expect(tenth).toMatchObject({ roomsToSellWritten: false, cells: { stop_sell: { value: null, as_of: ms(t1) }, rooms_to_sell: { value: 1 } } })
    expect(eleventh).toMatchObject({ roomsToSellWritten: true, cells: { stop_sell: { value: true, as_of: ms(t0) }, rooms_to_sell: { value: 4 } } })
  })

  it("within a message a later update wins over an earlier one on the same cell", () => {
    const outcome = applyMessage(hotel, lookupOf({}), message(t0, [
      update({ from: "2027-03-10", to: "2027-03-12", base_rate: 15000 as Cents }),
      update({ room_type_id: twin, from: "2027-03-11", to: "2027-03-11", base_rate: 9900 as Cents })
    ]))
    const twin11 = outcome.nights.find((n) => n.room_type_id === twin && n.night === "2027-03-11")!
    expect(twin11.cells.base_rate).toEqual({ value: 9900, as_of: ms(t0) })
    expect(outcome.nights).toHaveLength(9)
  })

  it("min_stay above max_stay after the message is an issue, across two updates or against what is stored", () => {
    const across = applyMessage(hotel, lookupOf({}), message(t0, [
      update({ room_type_id: deluxe, from: "2027-03-10", to: "2027-03-12", min_stay: 5 }),
      update({ room_type_id: deluxe, from: "2027-03-11", to: "2027-03-11", max_stay: 3 })
    ]))
    expect(across.issues.map((i) => i.path)).toEqual(["updates[1].max_stay"])
    expect(across.issues[0]!.message).toContain("2027-03-11")
    // stored max 2 (older): a min of 4 crosses it
    const stored = lookupOf({ "deluxe 2027-03-10": nightWith({ max_stay: 2 }, 0, 0, ms(t0)) })
    expect(applyMessage(hotel, stored, message(t1, [update({ room_type_id: deluxe, from: "2027-03-10", to: "2027-03-10", min_stay: 4 })]))
      .issues.map((i) => i.path)).toEqual(["updates[0].min_stay"])
    // raising both in one message, or clearing the max, is fine
    expect(applyMessage(hotel, stored, message(t1, [update({ room_type_id: deluxe, from: "2027-03-10", to: "2027-03-10", min_stay: 4, max_stay: 6 })]))
      .issues).toEqual([])
    expect(applyMessage(hotel, stored, message(t1, [
      update({ room_type_id: deluxe, from: "2027-03-10", to: "2027-03-10", min_stay: 4 }),
      update({ room_type_id: deluxe, from: "2027-03-10", to: "2027-03-10", max_stay: null })
    ])).issues).toEqual([])
    // a stale min_stay cannot cross anything: it is not written
    const newerMax = lookupOf({ "deluxe 2027-03-10": nightWith({ max_stay: 2, min_stay: 1 }, 0, 0, ms(t1)) })
    expect(applyMessage(hotel, newerMax, message(t0, [update({ room_type_id: deluxe, from: "2027-03-10", to: "2027-03-10", min_stay: 4 })])))
      .toMatchObject({ issues: [], stale: 1, applied: 0 })
  })
})

describe("messageRanges", () => {
  it("per room type, the updates' dates merged where they overlap or meet; a date's row up to to + 1", () => {
    const ranges = messageRanges(hotel, message("2027-01-01T00:00:00Z", [
      update({ room_type_id: deluxe, from: "2027-03-10", to: "2027-03-11", stop_sell: true }),
      update({ room_type_id: deluxe, from: "2027-03-12", to: "2027-03-12", stop_sell: true }),
      update({ room_type_id: deluxe, from: "2027-03-20", to: "2027-03-21", stop_sell: true }),
      update({ room_type_id: deluxe, from: "2027-03-05", to: "2027-03-10", stop_sell: true }),
      update({ room_type_id: twin, from: "2027-03-15", to: "2027-03-15", stop_sell: true }),
      update({ room_type_id: twin, from: "2027-03-16", to: "2027-03-16", stop_sell: true }),
      update({ room_type_id: twin, from: "2027-03-18", to: "2027-03-18", stop_sell: true })
    ]))
    expect(ranges).toEqual([
      { roomTypeIds: [twin], checkin: "2027-03-15", checkout: "2027-03-17" },
      { roomTypeIds: [twin], checkin: "2027-03-18", checkout: "2027-03-19" },
      { roomTypeIds: [deluxe], checkin: "2027-03-05", checkout: "2027-03-13" },
      { roomTypeIds: [deluxe], checkin: "2027-03-20", checkout: "2027-03-22" }
    ])
  })

  it("an update without room_type_id is every type's; a contained range adds nothing", () => {
    expect(messageRanges(hotel, message("2027-01-01T00:00:00Z", [
      update({ from: "2027-03-01", to: "2027-03-09", min_stay: 2 }),
      update({ room_type_id: double, from: "2027-03-03", to: "2027-03-04", min_stay: 3 })
    ]))).toEqual(roomIds.map((id) => ({ roomTypeIds: [id], checkin: "2027-03-01", checkout: "2027-03-10" })))
    expect(messageRanges(hotel, message("2027-01-01T00:00:00Z", []))).toEqual([])
  })

  prop("the ranges cover exactly the (room type, date) cells the message touches", {
    updates: fc.array(fc.record({
      room: fc.option(fc.constantFrom(...roomIds), { nil: undefined }),
      start: fc.integer({ min: 0, max: 30 }),
      length: fc.integer({ min: 1, max: 6 })
    }), { maxLength: 8 })
  }, ({ updates }) => {
    const m = message("2027-01-01T00:00:00Z", updates.map(({ length, room, start }) =>
      update({
        ...(room === undefined ? {} : { room_type_id: room }),
        from: addDays(d("2027-03-01"), start),
        to: addDays(d("2027-03-01"), start + length - 1),
        stop_sell: true
      })
    ))
    const covered = messageRanges(hotel, m).flatMap((r) => {
      const cells: Array<string> = []
      for (let night = r.checkin; night < r.checkout; night = addDays(night, 1)) cells.push(`${r.roomTypeIds[0]} ${night}`)
      return cells
    })
    const touched = applyMessage(hotel, lookupOf({}), m).nights.map((n) => `${n.room_type_id} ${n.night}`)
    expect(new Set(covered)).toEqual(new Set(touched))
    // merged: no date covered twice
    expect(covered.length).toBe(new Set(covered).size)
  })
})

// --- properties: a stale message never wins, twice is once ----------------------------

/** A store of cells per (room type, night), as the repository keeps them. */
const applyAll = (messages: ReadonlyArray<AriMessage>) => {
  const store = new Map<string, ChannelCells>()
  const lookup: NightLookup = (roomTypeId, night) => ({ ...emptyNight, cells: store.get(`${roomTypeId} ${night}`) ?? noCells })
  for (const m of messages) {
    for (const n of applyMessage(hotel, lookup, m).nights) store.set(`${n.room_type_id} ${n.night}`, n.cells)
  }
  return store
}

const flag = fc.option(fc.boolean(), { nil: null })
const updateArb = fc.record({
  room_type_id: fc.option(fc.constantFrom(...roomIds), { nil: undefined }),
  start: fc.integer({ min: 0, max: 4 }),
  length: fc.integer({ min: 1, max: 3 }),
  rooms_to_sell: fc.option(fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }), { nil: undefined }),
  stop_sell: fc.option(flag, { nil: undefined }),
  closed_to_arrival: fc.option(flag, { nil: undefined }),
  closed_to_departure: fc.option(flag, { nil: undefined }),
  // never crossing: every order of these messages is a valid one
  min_stay: fc.option(fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }), { nil: undefined }),
  max_stay: fc.option(fc.option(fc.integer({ min: 3, max: 6 }), { nil: null }), { nil: undefined }),
  base_rate: fc.option(fc.option(fc.integer({ min: 1, max: 50_000 }), { nil: null }), { nil: undefined })
}).map(({ length, start, ...fields }): AriUpdate =>
  Object.fromEntries(Object.entries({
    ...fields,
    from: addDays(d("2027-03-01"), start),
    to: addDays(d("2027-03-01"), start + length - 1)
  }).filter(([, value]) => value !== undefined)) as AriUpdate
)
/** Messages computed at distinct instants (some a millisecond apart), listed in a random order of arrival. */
const messagesArb = fc.uniqueArray(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 6 }).chain((instants) =>
  fc.tuple(...instants.map((instant, i) =>
    fc.array(updateArb, { maxLength: 4 }).map((updates) =>
      message(new Date(ms("2027-01-01T10:00:00Z") + instant).toISOString(), updates, `m-${i}`)
    )
  ))
)

describe("applyMessage properties", () => {
  prop("messages arriving in any order leave the cells that applying them in as_of order leaves", {
    messages: messagesArb,
    seed: fc.integer()
  }, ({ messages }) => {
    const inOrder = [...messages].sort((a, b) => ms(a.as_of) - ms(b.as_of))
    expect(applyAll(messages)).toEqual(applyAll(inOrder))
  })

  prop("each cell keeps the value of the newest message that set it", { messages: messagesArb }, ({ messages }) => {
    const store = applyAll(messages)
    const newestFirst = [...messages].sort((a, b) => ms(b.as_of) - ms(a.as_of))
    for (const [key, cells] of store) {
      const [roomTypeId, night] = key.split(" ") as [RoomTypeId, LocalDate]
      for (const field of CHANNEL_FIELDS) {
        const setter = newestFirst.find((m) =>
          m.updates.some((u) =>
            Object.hasOwn(u, field) && (u.room_type_id === undefined || u.room_type_id === roomTypeId) && u.from <= night && night <= u.to
          )
        )
        if (setter === undefined) {
          expect(cells[field]).toEqual(noCells[field])
          continue
        }
        const last = [...setter.updates].reverse().find((u) =>
          Object.hasOwn(u, field) && (u.room_type_id === undefined || u.room_type_id === roomTypeId) && u.from <= night && night <= u.to
        )!
        expect(cells[field]).toEqual({ value: last[field], as_of: ms(setter.as_of) })
      }
    }
  })

  prop("a message applied twice leaves what it left once, and counts no cell stale the second time", {
    messages: messagesArb
  }, ({ messages }) => {
    const once = applyAll(messages)
    const last = messages[messages.length - 1]!
    expect(applyAll([...messages, last])).toEqual(once)
    const lookup: NightLookup = (roomTypeId, night) => ({ ...emptyNight, cells: once.get(`${roomTypeId} ${night}`) ?? noCells })
    const again = applyMessage(hotel, lookup, last)
    const first = applyMessage(hotel, lookup, { ...last, message_id: "other" })
    expect(again).toEqual(first)
    // every message sent again is either fully stale-free or newer cells were there: never a changed cell
    for (const n of again.nights) expect(n.cells).toEqual(once.get(`${n.room_type_id} ${n.night}`))
  })
})

// --- properties: never more sold than the hotel's figure allows ---------------------------

const NIGHT = d("2027-03-10")
const ROOMS = 5

type Event =
  | { readonly kind: "book"; readonly tick: boolean }
  | { readonly kind: "cancel"; readonly pick: number; readonly tick: boolean }
  | { readonly kind: "compute"; readonly figure: number | null; readonly tick: boolean }
  | { readonly kind: "deliver"; readonly pick: number; readonly keep: boolean; readonly tick: boolean }

const eventArb = fc.oneof(
  fc.record({ kind: fc.constant("book" as const), tick: fc.boolean() }),
  fc.record({ kind: fc.constant("book" as const), tick: fc.boolean() }),
  fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat(), tick: fc.boolean() }),
  fc.record({ kind: fc.constant("compute" as const), figure: fc.option(fc.integer({ min: 0, max: ROOMS }), { nil: null }), tick: fc.boolean() }),
  fc.record({ kind: fc.constant("deliver" as const), pick: fc.nat(), keep: fc.boolean(), tick: fc.boolean() })
) as fc.Arbitrary<Event>

interface Booking {
  readonly takenAt: number
  held: boolean
}

/**
 * One room type's night, as this service and the hotel's systems see it: guests book whenever
 * `freeRooms` says a room is free, some cancel; the hotel computes figures at some instant and
 * they arrive later, out of order, some twice (`keep`). A message writing `rooms_to_sell` counts
 * again the rooms taken since its as_of, as the repository's `takenSince` does.
 */
const simulate = (
  events: ReadonlyArray<Event>,
  figureAt: (computed: { readonly event: number | null; readonly heldNow: number }) => number | null,
  check: (state: NightState, bookings: ReadonlyArray<Booking>, booked: boolean) => void
) => {
  let now = ms("2027-01-01T10:00:00Z")
  let state: NightState = emptyNight
  const bookings: Array<Booking> = []
  const pending: Array<AriMessage> = []
  const heldTakenAfter = (asOf: number) => bookings.filter((b) => b.held && countsAsTakenSince(b.takenAt, asOf)).length
  events.forEach((event, i) => {
    if (event.tick) now += 1
    let booked = false
    switch (event.kind) {
      case "book":
        if (freeRooms(ROOMS, state) > 0) {
          state = taken(state, 1)
          bookings.push({ takenAt: now, held: true })
          booked = true
        }
        break
      case "cancel": {
        const held = bookings.filter((b) => b.held)
        if (held.length === 0) break
        const booking = held[event.pick % held.length]!
        booking.held = false
        state = released(state, 1, booking.takenAt)
        break
      }
      case "compute":
        pending.push(message(new Date(now).toISOString(), [
          update({
            room_type_id: deluxe,
            from: NIGHT,
            to: NIGHT,
            rooms_to_sell: figureAt({ event: event.figure, heldNow: bookings.filter((b) => b.held).length })
          })
        ], `m-${i}`))
        break
      case "deliver": {
        if (pending.length === 0) break
        const m = pending[event.pick % pending.length]!
        if (!event.keep) pending.splice(pending.indexOf(m), 1)
        const [night] = applyMessage(hotel, lookupOf({ [`deluxe ${NIGHT}`]: state }), m).nights
        state = {
          booked: state.booked,
          booked_since: night!.roomsToSellWritten ? heldTakenAfter(Date.parse(m.as_of)) : state.booked_since,
          cells: night!.cells
        }
        break
      }
    }
    check(state, bookings, booked)
  })
}

describe("selling against the hotel's figures", () => {
  prop("a booking succeeds only while the figure allows it: rooms held that were taken after its as_of never exceed it", {
    events: fc.array(eventArb, { maxLength: 80 })
  }, ({ events }) => {
    simulate(events, ({ event }) => event, (state, bookings, booked) => {
      const held = bookings.filter((b) => b.held)
      expect(state.booked).toBe(held.length)
      expect(state.booked).toBeLessThanOrEqual(ROOMS)
      const { as_of, value } = state.cells.rooms_to_sell
      if (as_of !== null) {
        const since = held.filter((b) => countsAsTakenSince(b.takenAt, as_of)).length
        // counted at least as the reservations count them (never a room the figure cannot know), never more than is booked
        expect(state.booked_since).toBeGreaterThanOrEqual(since)
        expect(state.booked_since).toBeLessThanOrEqual(state.booked)
        if (booked && value !== null) expect(since).toBeLessThanOrEqual(value)
      }
    })
  })

  prop("a hotel with A rooms for this service, whose figures count our bookings up to their as_of: we never hold more than A", {
    allotment: fc.integer({ min: 0, max: ROOMS }),
    events: fc.array(eventArb, { maxLength: 80 })
  }, ({ allotment, events }) => {
    // the first figure arrives before any booking
    const first: Array<Event> = [{ kind: "compute", figure: null, tick: false }, { kind: "deliver", pick: 0, keep: false, tick: false }]
    simulate([...first, ...events], ({ heldNow }) => Math.max(0, allotment - heldNow), (_state, bookings) => {
      expect(bookings.filter((b) => b.held).length).toBeLessThanOrEqual(allotment)
    })
  })
})

// --- the inventory view -----------------------------------------------------------------

describe("inventoryNight", () => {
  it("without a message: the file's count and rate, no figure, no since", () => {
    expect(inventoryNight(hotel, 5, NIGHT, { ...emptyNight, booked: 2 }, 18000 as Cents)).toEqual({
      date: NIGHT,
      rooms: 5,
      booked_here: 2,
      rooms_to_sell: null,
      rooms_to_sell_as_of: null,
      booked_here_since: null,
      free: 3,
      oversold: false,
      stop_sell: false,
      closed_to_arrival: false,
      closed_to_departure: false,
      min_stay: null,
      max_stay: null,
      base_rate: 18000,
      base_rate_source: "hotel_file"
    })
  })

  it("with one: the figure and its as_of in hotel time (milliseconds kept), what was taken since, the message's rate", () => {
    const state = nightWith({ rooms_to_sell: 1, stop_sell: true, min_stay: 2, base_rate: 15050 as Cents }, 3, 2, ms("2027-01-01T09:30:00.250Z"))
    expect(inventoryNight(hotel, 5, NIGHT, state, 18000 as Cents)).toMatchObject({
      booked_here: 3,
      rooms_to_sell: 1,
      rooms_to_sell_as_of: expect.stringMatching(/^2027-01-01T10:30:00\.250\+01:00$/),
      booked_here_since: 2,
      free: 0,
      oversold: true,
      stop_sell: true,
      min_stay: 2,
      base_rate: 15050,
      base_rate_source: "message"
    })
  })
})

describe("listIssues", () => {
  it("names the first 5 issues and says where the rest are: a message of 1,000 bad updates stays a short line", () => {
    const issues = Array.from({ length: 1000 }, (_, i) => ({ path: `updates[${i}].to`, message: "must not be after 2028-04-09" }))
    const line = listIssues(issues)
    expect(line).toBe(
      issues.slice(0, 5).map((issue) => `${issue.path}: ${issue.message}`).join("; ") + "; and 995 more in error.details.issues"
    )
    expect(listIssues(issues.slice(0, 5))).not.toMatch(/more/)
  })
})
