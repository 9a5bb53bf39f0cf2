import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { PriceCalendar } from "../../Services/PriceCalendar.js"
import { Api } from "../Contract/Api.js"

export const CalendarHttp = HttpApiBuilder.group(Api, "calendar", (handlers) =>
  Effect.gen(function*() {
    const calendar = yield* PriceCalendar
    return handlers.handle("calendar", ({ urlParams }) => calendar.calendar(urlParams))
  }))
