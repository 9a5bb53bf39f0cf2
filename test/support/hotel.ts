import { Schema } from "effect"
import * as fs from "node:fs"
import { HotelDefinition } from "../../src/Domain/Hotel.js"

/** The demo hotel of `data/hotel.json`, as the service reads it. */
export const demoHotel: HotelDefinition = Schema.decodeUnknownSync(HotelDefinition)(
  JSON.parse(fs.readFileSync(new URL("../../data/hotel.json", import.meta.url), "utf8"))
)

export const demoInventory: Record<string, number> = Object.fromEntries(demoHotel.room_types.map((r) => [r.id, r.inventory]))
