import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import { emptyNight, freeDuringStay, nightLookup, type NightLookup } from "../../src/Domain/Channel/Nights.js"
import { HotelDefinition } from "../../src/Domain/Hotel.js"
import type { RoomTypeId } from "../../src/Domain/Ids.js"
import type { LocalDate } from "../../src/Domain/LocalDate.js"
import { InventoryRepo } from "../../src/Layers/Persistence/InventoryRepo.js"

/** The demo hotel of `data/hotel.json`, as the service reads it. */
export const demoHotel: HotelDefinition = Schema.decodeUnknownSync(HotelDefinition)(
  JSON.parse(fs.readFileSync(new URL("../../data/hotel.json", import.meta.url), "utf8"))
)

export const demoInventory: Record<string, number> = Object.fromEntries(demoHotel.room_types.map((r) => [r.id, r.inventory]))

/** Nights on which only this service's bookings count: no message from the hotel's systems. */
export const bookedOnly = (booked: (roomTypeId: RoomTypeId, night: LocalDate) => number): NightLookup => (roomTypeId, night) => ({
  ...emptyNight,
  booked: booked(roomTypeId, night)
})

/** Per room type of the demo hotel, the rooms free on every night from `checkin` up to `checkout`, as the services count them. */
export const freeRooms = (checkin: LocalDate, checkout: LocalDate) =>
  Effect.map(Effect.flatMap(InventoryRepo, (repo) => repo.nights(checkin, checkout)), (rows) => {
    const nights = nightLookup(rows)
    return demoHotel.room_types.map((room) => ({
      room_type_id: room.id,
      free: freeDuringStay(room.inventory, nights, room.id, checkin, checkout)
    }))
  })
