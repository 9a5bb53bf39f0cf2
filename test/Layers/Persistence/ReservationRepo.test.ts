import { expect } from "@effect/vitest"
import { Cause, Effect, Exit, Option } from "effect"
import type { ReservationId } from "../../../src/Domain/Ids.js"
import type { LocalDate } from "../../../src/Domain/LocalDate.js"
import type { Cents } from "../../../src/Domain/Money.js"
import type { ReservationRecord } from "../../../src/Domain/Reservation.js"
import { ReservationRepo } from "../../../src/Layers/Persistence/ReservationRepo.js"
import { contract } from "../../support/contract.js"
import { sampleReservation } from "../../support/reservation.js"

const completed = sampleReservation()

/** A reservation as an intent leaves it, its instants written with the hotel's offset. */
const pending = (id: string): ReservationRecord => ({
  ...completed,
  id: id as ReservationId,
  number: null,
  status: "PENDING_GUEST",
  pms_status: null,
  guest: null,
  terms_version: null,
  guest_link_expires_at: "2026-12-02T10:00:00+01:00",
  created_at: "2026-12-01T10:00:00+01:00",
  completed_at: null
})

/** What the guest's completion writes; a reservation number is one reservation's. */
const completionNumbered = (number: string) => ({
  number,
  guest: completed.guest!,
  terms_version: completed.terms_version!,
  offer: completed.offer,
  line_totals: completed.line_totals,
  completed_at: "2026-12-01T10:05:00+01:00",
  promo_code: null
})
const completion = completionNumbered("BR-COMPLETED")

const find = (id: string) => Effect.flatMap(ReservationRepo, (repo) => Effect.map(repo.find(id as ReservationId), Option.getOrThrow))

contract("ReservationRepo", { inMemory: ReservationRepo.InMemory, postgres: ReservationRepo.layer }, (it) => {
  it.effect("intents are counted per client address and hour up to the limit; a full hour counts nothing more", () =>
    Effect.gen(function*() {
      const repo = yield* ReservationRepo
      const hour = new Date("2026-12-01T10:00:00Z")
      const next = new Date("2026-12-01T11:00:00Z")
      const counted = (address: string, at: Date) => repo.countIntentFrom(address, at, 2)
      expect([yield* counted("192.0.2.1", hour), yield* counted("192.0.2.1", hour), yield* counted("192.0.2.1", hour)]).toEqual([true, true, false])
      expect(yield* counted("192.0.2.1", hour)).toBe(false)
      expect(yield* counted("192.0.2.2", hour)).toBe(true)
      expect(yield* counted("192.0.2.1", next)).toBe(true)
      // a limit raised meanwhile counts on from what was made
      expect(yield* repo.countIntentFrom("192.0.2.1", hour, 3)).toBe(true)
      expect(yield* repo.countIntentFrom("192.0.2.1", hour, 3)).toBe(false)
    }))

  it.effect("a reservation is found as it was written, its instants in UTC; an unknown one is not", () =>
    Effect.gen(function*() {
      const repo = yield* ReservationRepo
      yield* repo.insert(pending("r_found"))
      const utc = { guest_link_expires_at: "2026-12-02T09:00:00.000Z", created_at: "2026-12-01T09:00:00.000Z" }
      expect(yield* find("r_found")).toEqual({ ...pending("r_found"), ...utc })
      expect(yield* repo.findForUpdate("r_found" as ReservationId)).toEqual(Option.some({ ...pending("r_found"), ...utc }))
      expect(yield* repo.find("r_unknown" as ReservationId)).toEqual(Option.none())
    }))

  it.effect("only a pending reservation is completed, or expired", () =>
    Effect.gen(function*() {
      const repo = yield* ReservationRepo
      yield* repo.insert(pending("r_completed"))
      yield* repo.complete("r_completed" as ReservationId, completion)
      const done = yield* find("r_completed")
      expect(done).toMatchObject({
        status: "GUEST_COMPLETED",
        pms_status: "PENDING",
        number: completion.number,
        guest: completion.guest,
        terms_version: completion.terms_version,
        completed_at: "2026-12-01T09:05:00.000Z",
      })
      yield* repo.complete("r_completed" as ReservationId, { ...completion, number: "BR-OTHER" })
      yield* repo.markExpired("r_completed" as ReservationId)
      expect(yield* find("r_completed")).toEqual(done)

      yield* repo.insert(pending("r_expired"))
      yield* repo.markExpired("r_expired" as ReservationId)
      yield* repo.complete("r_expired" as ReservationId, completion)
      expect(yield* find("r_expired")).toMatchObject({ status: "EXPIRED", number: null, guest: null })
    }))

  it.effect("only a completed reservation has its guest updated, or is cancelled; the PMS status is set in any state", () =>
    Effect.gen(function*() {
      const repo = yield* ReservationRepo
      const id = "r_cancelled" as ReservationId
      yield* repo.insert(pending(id))
      const guest = { ...completion.guest, phone: "+33 6 00 00 00 01" }
      yield* repo.updateGuest(id, guest)
      yield* repo.cancel(id, "2026-12-03T10:00:00.000Z", "PENDING")
      expect(yield* find(id)).toMatchObject({ status: "PENDING_GUEST", guest: null })

      yield* repo.complete(id, completionNumbered("BR-CANCELLED"))
      yield* repo.updateGuest(id, guest)
      yield* repo.setPmsStatus(id, "SYNCED", Option.some("PMS-1"))
      expect(yield* find(id)).toMatchObject({ status: "GUEST_COMPLETED", pms_status: "SYNCED", guest })
      yield* repo.cancel(id, "2026-12-03T10:00:00.000Z", "PENDING")
      expect(yield* find(id)).toMatchObject({ status: "CANCELLED", pms_status: "PENDING" })
      yield* repo.updateGuest(id, completion.guest)
      yield* repo.cancel(id, "2026-12-04T10:00:00.000Z", null)
      expect(yield* find(id)).toMatchObject({ status: "CANCELLED", pms_status: "PENDING", guest })
      yield* repo.setPmsStatus(id, "FAILED", Option.none())
      expect((yield* find(id)).pms_status).toBe("FAILED")
    }))

  it.effect("guest text stored before the guest-text rule (line breaks, controls, bidi controls) reads back as it was", () =>
    Effect.gen(function*() {
      const repo = yield* ReservationRepo
      const id = "r_older_text" as ReservationId
      yield* repo.insert(pending(id))
      yield* repo.complete(id, completionNumbered("BR-OLDER"))
      const guest = {
        ...completion.guest,
        last_name: "Dupont\nTotal paid: EUR 0.00\u202e",
        email: "ana\u0085@example.com",
        special_requests: "Quiet\u2028room\r\n\u2066late\u2069\tarrival"
      }
      yield* repo.updateGuest(id, guest)
      expect((yield* find(id)).guest).toEqual(guest)
    }))

  it.effect("only a completed reservation has its stay changed: dates, rooms, offer, line totals, promo code, PMS status", () =>
    Effect.gen(function*() {
      const repo = yield* ReservationRepo
      const id = "r_changed" as ReservationId
      const change = {
        checkin: "2027-03-13" as LocalDate,
        checkout: "2027-03-14" as LocalDate,
        rooms: [{ ...completed.rooms[0]!, quantity: 3 }],
        offer: { ...completed.offer, price: { ...completed.offer.price, total: 12345 as Cents } },
        line_totals: [12345 as Cents],
        promo_code: null,
        pms_status: "PENDING" as const,
      }
      yield* repo.insert(pending(id))
      yield* repo.changeStay(id, change)
      expect(yield* find(id)).toMatchObject({ status: "PENDING_GUEST", checkin: pending(id).checkin, rooms: pending(id).rooms })
      yield* repo.complete(id, completionNumbered("BR-CHANGED"))
      yield* repo.setPmsStatus(id, "SYNCED", Option.none())
      yield* repo.changeStay(id, change)
      const changed = yield* find(id)
      expect(changed).toMatchObject({ ...change, number: "BR-CHANGED", status: "GUEST_COMPLETED", guest: completion.guest })
      yield* repo.cancel(id, "2026-12-05T10:00:00.000Z", "PENDING")
      yield* repo.changeStay(id, { ...change, checkin: "2027-04-01" as LocalDate, checkout: "2027-04-02" as LocalDate })
      expect((yield* find(id)).checkin).toBe("2027-03-13")
    }))

  it.effect("a reservation number is one reservation's: completing another with it is a defect that changes nothing", () =>
    Effect.gen(function*() {
      const repo = yield* ReservationRepo
      yield* repo.insert(pending("r_numbered"))
      yield* repo.complete("r_numbered" as ReservationId, completionNumbered("BR-TAKEN"))
      yield* repo.insert(pending("r_same_number"))
      const taken = yield* Effect.exit(repo.complete("r_same_number" as ReservationId, completionNumbered("BR-TAKEN")))
      expect(Exit.isFailure(taken) && Cause.hasDies(taken.cause)).toBe(true)
      expect(yield* find("r_same_number")).toMatchObject({ status: "PENDING_GUEST", number: null })
    }))

  it.effect("the completions from an address are those after `since`, oldest first, with their room-nights", () =>
    Effect.gen(function*() {
      const repo = yield* ReservationRepo
      const at = (iso: string) => new Date(iso)
      for (const [id, address, when, roomNights] of [
        ["r_from_a2", "203.0.113.7", "2026-12-01T10:30:00.000Z", 12],
        ["r_from_a1", "203.0.113.7", "2026-12-01T10:10:00.000Z", 1],
        ["r_from_a0", "203.0.113.7", "2026-12-01T09:00:00.000Z", 3],
        ["r_from_b", "198.51.100.1", "2026-12-01T10:20:00.000Z", 2]
      ] as const) {
        yield* repo.insert(pending(id))
        yield* repo.recordCompletionFrom(id as ReservationId, address, { at: Date.parse(when), roomNights })
      }
      expect(yield* repo.lockCompletionsFrom("203.0.113.7", at("2026-12-01T09:00:00.000Z"))).toEqual([
        { at: Date.parse("2026-12-01T10:10:00.000Z"), roomNights: 1 },
        { at: Date.parse("2026-12-01T10:30:00.000Z"), roomNights: 12 }
      ])
      expect(yield* repo.lockCompletionsFrom("192.0.2.1", at("2026-12-01T09:00:00.000Z"))).toEqual([])
    }))

  it.effect("a promo code's uses are the completed, not cancelled reservations whose completion kept it", () =>
    Effect.gen(function*() {
      const repo = yield* ReservationRepo
      const withCode = (id: string) => ({ ...pending(id), promo_code: "USES3" })
      const uses = Effect.all([repo.countPromoCodeUses("USES3"), repo.lockPromoCodeUses("USES3")])
      yield* repo.insert(withCode("r_code_pending"))
      expect(yield* uses).toEqual([0, 0])
      yield* repo.insert(withCode("r_code_used"))
      yield* repo.complete("r_code_used" as ReservationId, { ...completionNumbered("BR-CODE1"), promo_code: "USES3" })
      expect(yield* find("r_code_used")).toMatchObject({ status: "GUEST_COMPLETED", promo_code: "USES3" })
      expect(yield* uses).toEqual([1, 1])
      // completed without it: the code could no longer be used when the guest completed
      yield* repo.insert(withCode("r_code_dropped"))
      yield* repo.complete("r_code_dropped" as ReservationId, completionNumbered("BR-CODE2"))
      expect((yield* find("r_code_dropped")).promo_code).toBeNull()
      yield* repo.insert(withCode("r_code_cancelled"))
      yield* repo.complete("r_code_cancelled" as ReservationId, { ...completionNumbered("BR-CODE3"), promo_code: "USES3" })
      expect(yield* uses).toEqual([2, 2])
      yield* repo.cancel("r_code_cancelled" as ReservationId, "2026-12-03T10:00:00.000Z", null)
      expect(yield* uses).toEqual([1, 1])
      expect(yield* repo.countPromoCodeUses("uses3")).toBe(0)
      expect(yield* repo.countPromoCodeUses("OTHER")).toBe(0)
    }))
})
