import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import { Effect, Layer, Option } from "effect"
import { constTrue } from "effect/Function"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import { untracedWithoutCollector } from "../../Layers/Platform/Tracing.js"
import { Api } from "../Contract/Api.js"
import { CalendarHttp } from "./Calendar.js"
import { ChannelLive } from "./Channel.js"
import { DiscoveryHttp } from "./Discovery.js"
import { DocsLive } from "./Docs.js"
import { GuestPagesLive } from "./GuestPages.js"
import { HotelHttp } from "./Hotel.js"
import { ManageHttp } from "./Manage.js"
import { McpLive } from "../Mcp/Mcp.js"
import { ErrorsAsBodiesLive } from "../Transport/Middleware.js"
import { QuotesHttp } from "./Quotes.js"
import { RateLimitLive } from "../Transport/RateLimit.js"
import { traceRequests } from "../Transport/RequestObservation.js"
import { ReservationsHttp } from "./Reservations.js"
import { ReservationTokenAuthLive } from "../Contract/ReservationToken.js"
import { RequestLoggingLive } from "../Transport/Server.js"

/** The API's groups, each implemented by its handlers. */
const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([DiscoveryHttp, HotelHttp, CalendarHttp, QuotesHttp, ReservationsHttp, ManageHttp]),
  Layer.provide(ReservationTokenAuthLive)
)

/**
 * The whole HTTP application: the API, its documents, the guest pages, MCP and the channel
 * interface, behind the middleware. Needs the services.
 */
const HttpAppLive = Layer.mergeAll(DocsLive, GuestPagesLive, McpLive, ChannelLive, ErrorsAsBodiesLive, RateLimitLive).pipe(
  Layer.provideMerge(ApiLive)
)

/**
 * The API served on the API's Node server. Without a trace collector no span is made at all, not
 * even the request's own: nobody would read them, and they cost a share of every request. With one,
 * each request's server span is `traceRequests`'s, never the platform's (which records the full
 * URL and every header). Every request is logged (`RequestLoggingLive`).
 */
export const HttpLive = untracedWithoutCollector(Layer.unwrapEffect(
  Effect.map(AppConfig, ({ otlpEndpoint }) =>
    HttpApiBuilder.serve(Option.isSome(otlpEndpoint) ? traceRequests : undefined).pipe(
      HttpMiddleware.withTracerDisabledWhen(constTrue)
    ))
)).pipe(Layer.provide(HttpAppLive), Layer.merge(RequestLoggingLive))
