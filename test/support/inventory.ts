import { Effect } from "effect"
import { afterChanges, type GivenBackOn, type NightsChange } from "../../src/Domain/Channel/BookedSince.js"
import { InventoryRepo } from "../../src/Layers/Persistence/InventoryRepo.js"

/**
 * Rooms of a type taken (`rooms` above 0) or given back (below 0) as the services do: the nights
 * locked, their new figures computed by the domain and written over them.
 */
export const changeRooms = (change: NightsChange, givenBackOn?: GivenBackOn) =>
  Effect.flatMap(InventoryRepo, (repo) =>
    Effect.flatMap(
      repo.lockNights([change.roomTypeId], change.checkin, change.checkout),
      (locked) => repo.writeBookings(afterChanges(locked, [change], givenBackOn))
    ))
