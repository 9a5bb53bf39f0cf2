import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"

/** Sets a header on the response this request will get. */
export const withResponseHeader = (name: string, value: string) =>
  HttpApp.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeader(response, name, value)))
