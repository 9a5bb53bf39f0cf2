import type { RoomTypeDefinition } from "./Hotel.js"

/** Age below which a child is an infant that may stay beyond standard occupancy. */
export const INFANT_AGE_LIMIT = 2

export interface RoomOccupancy {
  readonly adults: number
  readonly childrenAges: ReadonlyArray<number>
}

/**
 * Whether guests fit one room: at most `max_standard_occupancy` guests, apart from up to
 * `max_additional_infants_under_2` infants under 2 beyond it.
 */
export const fitsRoom = (room: RoomTypeDefinition, occupancy: RoomOccupancy): boolean => {
  const infants = occupancy.childrenAges.filter((age) => age < INFANT_AGE_LIMIT).length
  const standardGuests = occupancy.adults + occupancy.childrenAges.length - infants
  const extraGuests = Math.max(0, standardGuests + infants - room.max_standard_occupancy)
  return standardGuests <= room.max_standard_occupancy && extraGuests <= Math.min(infants, room.max_additional_infants_under_2)
}

export const occupancyRule = (room: RoomTypeDefinition): string =>
  `room type ${room.id} takes at most ${room.max_standard_occupancy} guests, plus ${room.max_additional_infants_under_2} infant under 2`
