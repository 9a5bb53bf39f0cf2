import { freeRooms, type NightState } from "./Channel/Nights.js"
import type { HotelDefinition } from "./Hotel.js"
import { type Cents, cents, percentOf } from "./Money.js"

/**
 * Demand pricing (docs/decisions.md#prices): a night on which a room type is `occupancy_threshold_percent` or more
 * occupied (demo: 80 %) costs `surcharge_percent` more (demo: 10 %) for that room type, on every
 * plan (it is part of the FLEX price the plans discount from), rounded per room and night.
 */

type Demand = HotelDefinition["demand_pricing"]

/**
 * Whether a room type's night is in high demand: its occupancy before this booking, rooms sold
 * elsewhere included (docs/decisions.md#restrictions: a stop-sell is no sale, so it does not count), compared in
 * whole numbers so that 80 % of 5 rooms is exactly 4; a room type of 0 rooms counts as full.
 */
export const isHighDemand = (demand: Demand, inventory: number, night: NightState): boolean =>
  (inventory - freeRooms(inventory, night)) * 100 >= demand.occupancy_threshold_percent * inventory

/** A night's base rate with the demand surcharge when the night is in high demand. */
export const withDemandSurcharge = (demand: Demand, inventory: number, night: NightState, base: number): Cents =>
  cents(isHighDemand(demand, inventory, night) ? base + percentOf(base, demand.surcharge_percent) : base)
