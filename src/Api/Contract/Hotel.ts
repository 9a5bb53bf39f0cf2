import { Schema, SchemaTransformation } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Availability, AvailabilityQuery } from "../../Domain/Availability.js"
import { DatabaseDown } from "../../Domain/Errors.js"
import { Hotel, RoomTypes, RoomTypesQuery } from "../../Domain/Hotel.js"
import { RULES } from "../Handlers/AgentRules.js"
import { ServiceUnavailableBody, ValidationErrorBody } from "./Errors.js"

export const HealthStatus = Schema.Struct({
  status: Schema.Literal("ok"),
  database: Schema.Literals(["ok", "busy"]).annotate({
    description: "busy: the database answered, or would have, but this instance's event loop lags (it is working hard)"
  }),
  channel: Schema.optionalKey(Schema.Literals(["ok", "stale"]).annotate({
    description: "Only while the hotel's system feeds the channel interface: stale when it sent no message, not even a " +
      "heartbeat, for CHANNEL_STALE_AFTER_MINUTES (the figures may be old; still 200)"
  }))
}).annotate({ identifier: "Health" })

/** The health check's 503: the same shape as its 200, so a load balancer reads one document. */
const HEALTH_DEGRADED = "The database does not answer within a second."
const HealthDegraded = Schema.Struct({ status: Schema.Literal("degraded"), database: Schema.Literal("unavailable") })
  .annotate({ identifier: "DatabaseDown", description: HEALTH_DEGRADED })
  .pipe(
    Schema.decodeTo(
      Schema.toType(DatabaseDown),
      SchemaTransformation.transform({
        decode: () => new DatabaseDown({ message: "the database does not answer" }),
        encode: () => ({ status: "degraded" as const, database: "unavailable" as const })
      })
    ),
    Schema.annotate({ description: HEALTH_DEGRADED, httpApiStatus: 503 })
  )

/** Endpoints 3 to 6: the hotel's read-only facts and live availability. */
export class HotelGroup extends HttpApiGroup.make("hotel")
  .add(
    // a dependency that does not answer first, as for every endpoint: the 503 is described by it
    HttpApiEndpoint.get("health", "/v1/health", { success: HealthStatus, error: [ServiceUnavailableBody, HealthDegraded] })
      .annotate(OpenApi.Summary, "API is online")
      .annotate(
        OpenApi.Description,
        "200 when the API and its database answer (the check has connections of its own, so a full pool does not " +
          "matter), with database busy when only this instance's event loop lags, and channel stale when the hotel's system fed " +
          "the channel interface nothing for a while; " +
          "503 { status: degraded, database: unavailable } when the database does not answer within a second."
      ),
    HttpApiEndpoint.get("hotel", "/v1/hotel", { success: Hotel })
      .annotate(OpenApi.Summary, "Hotel facts, policies and contact information")
      .annotate(
        OpenApi.Description,
        `${RULES.times} The tourist tax is dynamic: its official amount is only in live quotes.`
      ),
    HttpApiEndpoint.get("roomTypes", "/v1/room-types", { query: RoomTypesQuery, success: RoomTypes, error: ValidationErrorBody })
      .annotate(OpenApi.Summary, "Room types and occupancy rules")
      .annotate(
        OpenApi.Description,
        "At most 2 guests per room; one infant under 2 may be added beyond that, with a free baby cot on request. " +
          "Names and descriptions are English unless language asks for fr or ru."
      ),
    HttpApiEndpoint.get("availability", "/v1/availability", {
      query: AvailabilityQuery,
      success: Availability,
      error: ValidationErrorBody
    })
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
