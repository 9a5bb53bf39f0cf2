import { Effect, Layer, Option, Redacted } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import { Channel } from "../../Services/Channel.js"
import { ReservationFeed } from "../../Services/ReservationFeed.js"
import { aboutTheHotel, ChannelApi, ChannelAuth, ChannelRequestErrors } from "../Contract/Channel.js"
import { noStore } from "../Contract/ReservationToken.js"
import { bearerRefusal } from "../Transport/BearerToken.js"
import { signalEndpointErrors } from "../Transport/ErrorAnswers.js"
import { issuesByPath } from "../Transport/Middleware.js"
import { documentOf, perHotel } from "./AboutTheHotel.js"

const ChannelHandlers = HttpApiBuilder.group(ChannelApi, "channel", (handlers) =>
  Effect.gen(function*() {
    const channel = yield* Channel
    const feed = yield* ReservationFeed
    const { publicBaseUrl } = yield* AppConfig
    const document = yield* perHotel(aboutTheHotel, (about) => Effect.sync(() => documentOf(ChannelApi, about, publicBaseUrl)))
    return handlers
      .handle("ari", ({ payload }) => channel.applyMessage(payload))
      .handle("inventory", ({ query }) => channel.inventory(query))
      .handle("reservations", ({ query }) => feed.page(query))
      .handle("document", () => document)
  }))

/** Answers are never cached: they are the hotel's own figures. */
const channelAuth = (token: Redacted.Redacted) =>
  Layer.effect(
    ChannelAuth,
    Effect.map(Effect.service(AppConfig), ({ channelAllowedAddresses, trustedProxies }) => {
      const refusal = bearerRefusal({
        token,
        allowedAddresses: channelAllowedAddresses,
        trustedProxies,
        forbidden: "this client address may not call the channel interface (CHANNEL_ALLOWED_ADDRESSES)",
        missing: "the Authorization: Bearer header with the channel token is required",
        invalid: "the bearer token is not the channel token"
      })
      return {
        channelToken: (handler, { credential }) =>
          Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) => {
            const refused = refusal(request, Redacted.value(credential))
            const checked = refused === undefined ? Effect.void : Effect.fail(refused)
            return noStore.pipe(Effect.andThen(checked), Effect.andThen(handler))
          })
      }
    })
  )

/**
 * `ChannelRequestErrors` declares errors (for the channel's document, its typed client and the
 * encoding of a handler's failure); a failure adds what its answer says besides its body, as on
 * the public API (`signalEndpointErrors`).
 */
const ChannelRequestErrorsLive = Layer.succeed(ChannelRequestErrors, signalEndpointErrors)

/**
 * The channel interface under `/internal`, when `CHANNEL_TOKEN` is set; otherwise those paths are
 * unknown like any other (404), its document included. Its routes, security and errors are its
 * own, none of which the public API's documents know: a request that breaks its schema is told
 * each bad field by its path (`issuesByPath`). The server's middleware is the same (bounded
 * bodies, the rate limit, errors of the transport as `Error` bodies).
 */
export const ChannelLive = Layer.unwrap(Effect.map(Effect.service(AppConfig), ({ channelToken }) =>
  Option.match(channelToken, {
    onNone: () => Layer.empty,
    onSome: (token) =>
      HttpApiBuilder.layer(ChannelApi).pipe(
        Layer.provide(ChannelHandlers),
        Layer.provide([channelAuth(token), ChannelRequestErrorsLive, HttpRouter.middleware(issuesByPath).layer])
      )
  })
))
