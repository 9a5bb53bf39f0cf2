import { Effect } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"

/** Sets a header on the response this request will get. */
export const withResponseHeader = (name: string, value: string) =>
  HttpEffect.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeader(response, name, value)))
