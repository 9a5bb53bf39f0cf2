import { HttpApi, OpenApi } from "@effect/platform"
import { API_DESCRIPTION, API_NAME, API_VERSION } from "../Domain/Discovery.js"
import { DiscoveryGroup } from "./Discovery.js"
import { InternalErrorBody, NotFoundBody, PayloadTooLargeBody } from "./Errors.js"
import { HotelGroup } from "./Hotel.js"

/** The framework's own 400 body never reaches a client (see Http.ts): drop it from the document. */
const withoutFrameworkErrors = (spec: Record<string, any>): Record<string, any> => {
  for (const path of Object.values<Record<string, any>>(spec.paths ?? {})) {
    for (const operation of Object.values<Record<string, any>>(path)) {
      const badRequest = operation?.responses?.["400"]?.content?.["application/json"]?.schema
      if (badRequest?.anyOf) {
        badRequest.anyOf = badRequest.anyOf.filter((s: { $ref?: string }) => s.$ref !== "#/components/schemas/HttpApiDecodeError")
        if (badRequest.anyOf.length === 1) operation.responses["400"].content["application/json"].schema = badRequest.anyOf[0]
      } else if (badRequest?.$ref === "#/components/schemas/HttpApiDecodeError") {
        operation.responses["400"].content["application/json"].schema = { $ref: "#/components/schemas/Error" }
      }
    }
  }
  delete spec.components?.schemas?.HttpApiDecodeError
  delete spec.components?.schemas?.Issue
  delete spec.components?.schemas?.PropertyKey
  return spec
}

export class Api extends HttpApi.make("hotel-booking-api")
  .add(DiscoveryGroup)
  .add(HotelGroup)
  .addError(NotFoundBody, { status: 404 })
  .addError(PayloadTooLargeBody, { status: 413 })
  .addError(InternalErrorBody, { status: 500 })
  .annotateContext(OpenApi.annotations({
    title: API_NAME,
    version: API_VERSION,
    description: API_DESCRIPTION,
    transform: withoutFrameworkErrors
  }))
{}
