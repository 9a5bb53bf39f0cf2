import { Option } from "effect"
import type { HttpServerRequest } from "effect/http"
import { clientAddressOf } from "../../Domain/ClientAddress.js"

/** The client a request comes from, as the limits per client count it (`clientAddressOf`), behind these trusted proxies. */
export const clientAddress = (trustedProxies: ReadonlyArray<string>) => {
  const trusted = new Set(trustedProxies)
  return (request: HttpServerRequest.HttpServerRequest): string =>
    clientAddressOf(Option.getOrElse(request.remoteAddress, () => "unknown"), request.headers["x-forwarded-for"], trusted)
}
