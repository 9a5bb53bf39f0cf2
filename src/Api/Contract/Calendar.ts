import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CalendarQuery, MAX_CALENDAR_DATES, PriceCalendar } from "../../Domain/PriceCalendar.js"
import { RULES } from "../Handlers/AgentRules.js"
import { InvalidPromoCodeBody, ValidationErrorBody } from "./Errors.js"

/** The price calendar: which arrival dates are cheapest, to choose dates before quoting. */
export class CalendarGroup extends HttpApiGroup.make("calendar")
  .add(
    HttpApiEndpoint.get("calendar", "/v1/calendar", {
      query: CalendarQuery,
      success: PriceCalendar,
      error: [ValidationErrorBody, InvalidPromoCodeBody]
    })
      .annotate(OpenApi.Summary, "Lowest live total per arrival date, for one room")
      .annotate(
        OpenApi.Description,
        `For each arrival date from from to to (at most ${MAX_CALENDAR_DATES}), the lowest price.total POST /v1/quotes would ` +
          "answer now for one room of this occupancy and number of nights (any room type the guests fit, or room_type_id), " +
          "with the room type and package that give it; on a tie, the first room type in GET /v1/room-types order, then the " +
          "first offer. A date with nothing to offer is available false with a reason: past, beyond_booking_window, " +
          "stay_too_long, no_eligible_rate, or a quote's reason (below). " +
          `${RULES.calendar} ${RULES.unavailable} ${RULES.hotelSystems} ` +
          "A promo_code counts as in a quote (the package_code then names it when " +
          "it applies); unknown, inactive or used up, it is 400 invalid_promo_code. Nothing is stored."
      )
  )
  .annotate(OpenApi.Title, "Calendar")
  .annotate(OpenApi.Description, "Lowest live totals per arrival date")
{}
