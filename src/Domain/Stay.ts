import { Result } from "effect"
import { bookingWindowExceeded, invalidDates, stayTooLong, ValidationError } from "./Errors.js"
import type { HotelDefinition } from "./Hotel.js"
import { daysBetween, type LocalDate } from "./LocalDate.js"

export interface Stay {
  readonly checkin: LocalDate
  readonly checkout: LocalDate
  readonly nights: number
  /** Calendar days in hotel time from today to check-in. */
  readonly daysAhead: number
}

/** Checks a stay against the hotel's booking rules, given today's date in hotel time. */
export const validateStay = (
  hotel: HotelDefinition,
  today: LocalDate,
  checkin: LocalDate,
  checkout: LocalDate
): Result.Result<Stay, ValidationError> => {
  const nights = daysBetween(checkin, checkout)
  const daysAhead = daysBetween(today, checkin)
  if (nights < 1) {
    return Result.fail(invalidDates("checkout must be after checkin"))
  }
  if (daysAhead < 0) {
    return Result.fail(
      invalidDates(`checkin must not be in the past (today is ${today} in hotel time)`)
    )
  }
  if (nights > hotel.booking.max_nights) {
    return Result.fail(
      stayTooLong(`a stay is at most ${hotel.booking.max_nights} nights (checkin to checkout)`)
    )
  }
  if (daysAhead > hotel.booking.max_days_ahead) {
    return Result.fail(
      bookingWindowExceeded(`checkin may be at most ${hotel.booking.max_days_ahead} days ahead`)
    )
  }
  return Result.succeed({ checkin, checkout, nights, daysAhead })
}
