import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PriceCalendar } from "../../Services/PriceCalendar.js"
import { Api } from "../Contract/Api.js"

export const CalendarHttp = HttpApiBuilder.group(Api, "calendar", (handlers) =>
  Effect.gen(function*() {
    const calendar = yield* PriceCalendar
    return handlers.handle("calendar", ({ query }) => calendar.calendar(query))
  }))
