import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Option } from "effect"

/**
 * The client a request comes from, as the limits per client count it (requests a minute,
 * completions an hour): the connection's peer address. No forwarded header is trusted, as any
 * client could write one.
 */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest): string =>
  Option.getOrElse(request.remoteAddress, () => "unknown")
