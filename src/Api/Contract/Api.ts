import { HttpApi, HttpApiMiddleware, OpenApi } from "effect/http-api"
import type { HotelDefinition } from "../../Domain/Hotel.js"
import { API_VERSION } from "../../Domain/Version.js"
import type { AboutTheHotel } from "../Handlers/AboutTheHotel.js"
import { HeadersTooLargeBody, InternalErrorBody, PayloadTooLargeBody, RequestTimeoutBody } from "../Transport/TransportErrors.js"
import { CalendarGroup } from "./Calendar.js"
import { asDocumented } from "./Document.js"
import { API_DESCRIPTION, apiName, DiscoveryGroup } from "./Discovery.js"
import { NotFoundBody, RateLimitedBody, ServiceUnavailableBody, ValidationErrorBody } from "./Errors.js"
import { HotelGroup } from "./Hotel.js"
import { ManageGroup } from "./Manage.js"
import { QuotesGroup } from "./Quotes.js"
import { ReservationsGroup } from "./Reservations.js"

/**
 * The errors every operation may answer, whatever it does: a request that breaks its schema, an
 * unknown path, a request too slow, too large or too frequent, a database that does not answer,
 * our own fault. Declared once for the whole API, as the framework's middleware carries them to
 * every endpoint: to its document, to the typed client, and to the encoding of a handler's
 * failure. Its implementation changes no request (Handlers/Groups.ts); the transport answers
 * the ones raised outside the handlers, a request that does not decode among them.
 */
export class RequestErrors extends HttpApiMiddleware.Service<RequestErrors>()("RequestErrors", {
  error: [
    ValidationErrorBody,
    NotFoundBody,
    RequestTimeoutBody,
    PayloadTooLargeBody,
    RateLimitedBody,
    HeadersTooLargeBody,
    ServiceUnavailableBody,
    InternalErrorBody
  ]
}) {}

const groups = [DiscoveryGroup, HotelGroup, CalendarGroup, QuotesGroup, ReservationsGroup, ManageGroup] as const

export class Api extends HttpApi.make("hotel-booking-api")
  .add(...groups)
  .middleware(RequestErrors)
  // every request body is exactly its schema: an unknown key is refused, not dropped
  .annotate(HttpApi.PayloadParseOptions, { onExcessProperty: "error", reportInput: true })
  // a refusal quotes the value refused
  .annotate(HttpApi.QueryParseOptions, { reportInput: true })
  .annotate(HttpApi.HeadersParseOptions, { reportInput: true })
  .annotateMerge(OpenApi.annotations({
    version: API_VERSION,
    description: API_DESCRIPTION,
    transform: asDocumented(groups)
  }))
{}

/** What the public API's documents say of the hotel: their title, and the licence on its website. */
export const aboutTheHotel = (hotel: HotelDefinition): AboutTheHotel => ({
  title: apiName(hotel),
  license: { name: "Proprietary", url: `${hotel.contact.website}/legal` }
})
