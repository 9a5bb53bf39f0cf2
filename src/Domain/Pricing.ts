import type { Either } from "effect"
import type { ValidationError } from "./Errors.js"
import type { HotelDefinition } from "./Hotel.js"
import type { RateCode, RoomTypeId } from "./Ids.js"
import type { LocalDate } from "./LocalDate.js"
import type { PackageOffer, RoomUnavailability, SingleRoomQuoteRequest } from "./Quote.js"
import type { Stay } from "./Stay.js"

/** One room request, normalised: `quantity` identical rooms with these guests. */
export interface RoomLine {
  readonly room_type_id: RoomTypeId
  readonly quantity: number
  readonly adults: number
  readonly children_ages: ReadonlyArray<number>
  readonly rate_code: RateCode | null
}

export interface PricingInput {
  readonly hotel: HotelDefinition
  readonly stay: Stay
  readonly rooms: ReadonlyArray<RoomLine>
  /** Rooms of a type already held on a night, before this booking. */
  readonly booked: (roomTypeId: RoomTypeId, night: LocalDate) => number
}

export type PricingOutcome =
  | { readonly _tag: "Available"; readonly offers: ReadonlyArray<PackageOffer> }
  | { readonly _tag: "Unavailable"; readonly rooms: ReadonlyArray<RoomUnavailability> }

// IMPLEMENTATION PENDING (see the helper's task)
export declare const singleRoomLine: (request: SingleRoomQuoteRequest) => Either.Either<RoomLine, ValidationError>
export declare const validateRooms: (hotel: HotelDefinition, rooms: ReadonlyArray<RoomLine>) => Either.Either<void, ValidationError>
export declare const priceStay: (input: PricingInput) => PricingOutcome
