import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"
import { Availability, AvailabilityQuery } from "../../Domain/Availability.js"
import { DatabaseDown } from "../../Domain/Errors.js"
import { Hotel, RoomTypes, RoomTypesQuery } from "../../Domain/Hotel.js"
import { RULES } from "../Handlers/AgentRules.js"
import { ValidationErrorBody } from "./Errors.js"

export const HealthStatus = Schema.Struct({
  status: Schema.Literal("ok"),
  database: Schema.Literal("ok", "busy").annotations({
    description: "busy: the database answered, or would have, but this instance's event loop lags (it is working hard)"
  })
}).annotations({ identifier: "Health" })

/** The health check's 503: the same shape as its 200, so a load balancer reads one document. */
const HealthDegraded = Schema.transform(
  Schema.Struct({ status: Schema.Literal("degraded"), database: Schema.Literal("unavailable") }),
  Schema.typeSchema(DatabaseDown),
  {
    strict: true,
    decode: () => new DatabaseDown({ message: "the database does not answer" }, true),
    encode: () => ({ status: "degraded" as const, database: "unavailable" as const })
  }
).annotations({ identifier: "HealthDegraded", description: "The database does not answer within a second." })
  .annotations(HttpApiSchema.annotations({ status: 503 }))

/** Endpoints 3 to 6: the hotel's read-only facts and live availability. */
export class HotelGroup extends HttpApiGroup.make("hotel")
  .add(
    HttpApiEndpoint.get("health", "/v1/health")
      .addSuccess(HealthStatus)
      .addError(HealthDegraded)
      .annotate(OpenApi.Summary, "API is online")
      .annotate(
        OpenApi.Description,
        "200 when the API and its database answer (the check has connections of its own, so a full pool does not " +
          "matter), with database busy when only this instance's event loop lags; " +
          "503 { status: degraded, database: unavailable } when the database does not answer within a second."
      )
  )
  .add(
    HttpApiEndpoint.get("hotel", "/v1/hotel")
      .addSuccess(Hotel)
      .annotate(OpenApi.Summary, "Hotel facts, policies and contact information")
      .annotate(
        OpenApi.Description,
        `${RULES.times} The tourist tax is dynamic: its official amount is only in live quotes.`
      )
  )
  .add(
    HttpApiEndpoint.get("roomTypes", "/v1/room-types")
      .setUrlParams(RoomTypesQuery)
      .addSuccess(RoomTypes)
      .addError(ValidationErrorBody)
      .annotate(OpenApi.Summary, "Room types and occupancy rules")
      .annotate(
        OpenApi.Description,
        "At most 2 guests per room; one infant under 2 may be added beyond that, with a free baby cot on request. " +
          "Names and descriptions are English unless language asks for fr or ru."
      )
  )
  .add(
    HttpApiEndpoint.get("availability", "/v1/availability")
      .setUrlParams(AvailabilityQuery)
      .addSuccess(Availability)
      .addError(ValidationErrorBody)
      .annotate(OpenApi.Summary, "Live room availability for a stay")
      .annotate(
        OpenApi.Description,
        "Per room type, the rooms free on every night of the stay, whether the guests fit one room and, when the stay cannot " +
          `be booked in it, the reason. Never a price: quote for that. ${RULES.unavailable} ${RULES.hotelSystems}`
      )
  )
  .annotate(OpenApi.Title, "Hotel")
  .annotate(OpenApi.Description, "Hotel facts, room types and live availability")
{}
