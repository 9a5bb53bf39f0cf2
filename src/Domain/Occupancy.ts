import type { RoomTypeDefinition } from "./Hotel.js"

/** Age below which a child is an infant that may stay beyond standard occupancy. */
export const INFANT_AGE_LIMIT = 2

/** The oldest a child is (a guest of 18 is an adult). */
export const MAX_CHILD_AGE = 17
/** Adults of a room when a request does not say (the calendar's default, and the booking page's first search). */
export const DEFAULT_ADULTS = 2
/** Adults one room takes: standard occupancy is 2 in every room type a request may name. */
export const MAX_ADULTS_PER_ROOM = 2

/**
 * Children a request may name for one room: 2 standard guests plus 1 infant is the most any room
 * takes, so more can never fit; a request beyond it is refused before any work is sized by it.
 */
export const MAX_CHILDREN_PER_ROOM = 3

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
