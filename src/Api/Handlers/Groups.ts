import { Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api, RequestErrors } from "../Contract/Api.js"
import { signalEndpointErrors } from "../Transport/ErrorAnswers.js"
import { ReservationTokenAuthLive } from "../Contract/ReservationToken.js"
import { CalendarHttp } from "./Calendar.js"
import { ChannelLive } from "./Channel.js"
import { DiscoveryHttp } from "./Discovery.js"
import { DocsLive } from "./Docs.js"
import { GuestPagesLive } from "./GuestPages.js"
import { HotelHttp } from "./Hotel.js"
import { ManageHttp } from "./Manage.js"
import { MetricsLive } from "./Metrics.js"
import { QuotesHttp } from "./Quotes.js"
import { ReservationsHttp } from "./Reservations.js"

/**
 * `RequestErrors` declares errors (for the documents, the typed client and the encoding of a
 * handler's failure); each request goes on unchanged, and a failure adds what its answer says
 * besides its body (`signalEndpointErrors`: `Retry-After`, the conflicts counted).
 */
const RequestErrorsLive = Layer.succeed(RequestErrors, signalEndpointErrors)

/**
 * The middleware the API's groups declare. It is given to the server as a whole, not to the groups
 * alone, so that a request's context holds every service its group was built with, as the same
 * value: the builder then provides the group's services to none of its requests, which copied the
 * request's whole context each time, a fifth of GET /v1/hotel's instructions (patched into
 * `effect`: patches/effect+4.1.0.patch, docs/performance.md).
 */
export const ApiMiddlewareLive = Layer.mergeAll(ReservationTokenAuthLive, RequestErrorsLive)

/** The API's groups, each implemented by its handlers. Needs the services and the middleware they declare (`ApiMiddlewareLive`). */
export const ApiGroupsLive = Layer.mergeAll(DiscoveryHttp, HotelHttp, CalendarHttp, QuotesHttp, ReservationsHttp, ManageHttp)

/** The public API's routes on the server's `HttpRouter`. */
export const ApiLive = HttpApiBuilder.layer(Api).pipe(Layer.provide(ApiGroupsLive))

/**
 * Every route of the handlers: the API, its documents, the guest pages, the channel interface
 * and the metrics (when they are served). MCP's and the transport's are their own.
 */
export const RoutesLive = Layer.mergeAll(ApiLive, DocsLive, GuestPagesLive, ChannelLive, MetricsLive)
