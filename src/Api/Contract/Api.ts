import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import type { HotelDefinition } from "../../Domain/Hotel.js"
import { API_VERSION } from "../../Domain/Version.js"
import { CalendarGroup } from "./Calendar.js"
import { API_DESCRIPTION, apiName, DiscoveryGroup } from "./Discovery.js"
import type { AboutTheHotel } from "../Handlers/AboutTheHotel.js"
import { NotFoundBody, RateLimitedBody, ServiceUnavailableBody } from "./Errors.js"
import { HotelGroup } from "./Hotel.js"
import { ManageGroup } from "./Manage.js"
import { QuotesGroup } from "./Quotes.js"
import { ReservationsGroup } from "./Reservations.js"
import { HeadersTooLargeBody, InternalErrorBody, PayloadTooLargeBody, RequestTimeoutBody } from "../Transport/TransportErrors.js"

const FRAMEWORK_DECODE_ERROR = "#/components/schemas/HttpApiDecodeError"

/**
 * The framework's own 400 body never reaches a client (Http.ts answers an `Error` instead):
 * drop it from the document, and the 400 of operations that take no input at all.
 */
export const withoutFrameworkErrors = (spec: Record<string, any>): Record<string, any> => {
  for (const path of Object.values<Record<string, any>>(spec.paths ?? {})) {
    for (const operation of Object.values<Record<string, any>>(path)) {
      const badRequest = operation.responses?.["400"]
      const schema = badRequest?.content?.["application/json"]?.schema
      if (schema?.anyOf) {
        schema.anyOf = schema.anyOf.filter((s: { $ref?: string }) => s.$ref !== FRAMEWORK_DECODE_ERROR)
        if (schema.anyOf.length === 1) badRequest.content["application/json"].schema = schema.anyOf[0]
        badRequest.description = "Invalid request; error.code says which rule, error.message names the field"
      } else if (schema?.$ref === FRAMEWORK_DECODE_ERROR || schema?.$ref === "#/components/schemas/Error") {
        delete operation.responses["400"]
      } else if (badRequest) {
        badRequest.description = "Invalid request; error.code says which rule, error.message names the field"
      }
    }
  }
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete spec.components?.schemas?.[name]
  return spec
}

export class Api extends HttpApi.make("hotel-booking-api")
  .add(DiscoveryGroup)
  .add(HotelGroup)
  .add(CalendarGroup)
  .add(QuotesGroup)
  .add(ReservationsGroup)
  .add(ManageGroup)
  .addError(NotFoundBody)
  .addError(RequestTimeoutBody)
  .addError(PayloadTooLargeBody)
  .addError(RateLimitedBody)
  .addError(HeadersTooLargeBody)
  .addError(ServiceUnavailableBody)
  .addError(InternalErrorBody)
  .annotateContext(OpenApi.annotations({
    version: API_VERSION,
    description: API_DESCRIPTION,
    transform: withoutFrameworkErrors
  }))
{}

/** What the public API's documents say of the hotel: their title, and the licence on its website. */
export const aboutTheHotel = (hotel: HotelDefinition): AboutTheHotel => ({
  title: apiName(hotel),
  license: { name: "Proprietary", url: `${hotel.contact.website}/legal` }
})
