import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Layer, Option, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { InvalidToken } from "../../Domain/Errors.js"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import { Channel } from "../../Services/Channel.js"
import { ReservationFeed } from "../../Services/ReservationFeed.js"
import { documentOf, perHotel } from "./AboutTheHotel.js"
import { aboutTheHotel, CHANNEL_PREFIX, ChannelApi, ChannelAuth } from "../Contract/Channel.js"
import { clientAddress } from "../Transport/ClientAddress.js"
import { issuesByPath } from "../Transport/Middleware.js"
import { noStore } from "../Contract/ReservationToken.js"
import { Forbidden, MissingToken } from "../Transport/TransportErrors.js"

const ChannelHandlers = HttpApiBuilder.group(ChannelApi, "channel", (handlers) =>
  Effect.gen(function*() {
    const channel = yield* Channel
    const feed = yield* ReservationFeed
    const { publicBaseUrl } = yield* AppConfig
    const document = yield* perHotel(aboutTheHotel, (about) => Effect.sync(() => documentOf(ChannelApi, about, publicBaseUrl)))
    return handlers
      .handle("ari", ({ payload }) => channel.applyMessage(payload))
      .handle("inventory", ({ urlParams }) => channel.inventory(urlParams))
      .handle("reservations", ({ urlParams }) => feed.page(urlParams))
      .handle("document", () => document)
  }))

/** Digests of equal length whatever was sent: compared in constant time, not even the token's length shows in the time taken. */
const digest = (text: string) => createHash("sha256").update(text).digest()

/**
 * The caller's address first (outside `CHANNEL_ALLOWED_ADDRESSES`, it learns nothing of the
 * token), then the token. Answers are never cached: they are the hotel's own figures.
 */
const channelAuth = (token: Redacted.Redacted) =>
  Layer.effect(
    ChannelAuth,
    Effect.map(AppConfig, ({ channelAllowedAddresses, trustedProxies }) => {
      const expected = digest(Redacted.value(token))
      const allowed = new Set(channelAllowedAddresses)
      const addressOf = clientAddress(trustedProxies)
      return {
        channelToken: (presented) =>
          Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
            const value = Redacted.value(presented)
            const refusal = allowed.size > 0 && !allowed.has(addressOf(request))
              ? new Forbidden({ message: "this client address may not call the channel interface (CHANNEL_ALLOWED_ADDRESSES)" })
              : value === ""
              ? new MissingToken({ message: "the Authorization: Bearer header with the channel token is required" })
              : !timingSafeEqual(digest(value), expected)
              ? new InvalidToken({ message: "the bearer token is not the channel token" })
              : undefined
            return Effect.zipRight(noStore, refusal === undefined ? Effect.void : Effect.fail(refusal))
          })
      }
    })
  )

/**
 * The channel API as an application of its own: its routes, its security, and its errors encoded
 * by its own schemas, none of which the public API's documents know. Built apart from the public
 * API (as the reference in Docs.ts is), since the platform's router and API middleware are one
 * per layer graph.
 */
const channelApp = (token: Redacted.Redacted) =>
  Layer.build(
    Layer.merge(HttpApiBuilder.api(ChannelApi), HttpApiBuilder.middleware(ChannelApi, issuesByPath)).pipe(
      Layer.provide(ChannelHandlers),
      Layer.provide(channelAuth(token)),
      Layer.provideMerge(HttpApiBuilder.Router.Live),
      Layer.provideMerge(HttpApiBuilder.Middleware.layer)
    )
  ).pipe(Effect.flatMap((context) => Effect.provide(HttpApiBuilder.httpApp, context)))

/**
 * The channel interface under `/internal`, when `CHANNEL_TOKEN` is set; otherwise those paths are
 * unknown like any other (404), its document included. It sits behind the public API's middleware:
 * bounded bodies, the rate limit, errors of the transport as `Error` bodies.
 */
export const ChannelLive = Layer.unwrapEffect(Effect.map(AppConfig, ({ channelToken }) =>
  Option.match(channelToken, {
    onNone: () => Layer.empty,
    onSome: (token) =>
      HttpApiBuilder.Router.use((router) =>
        Effect.flatMap(channelApp(token), (app) => router.mountApp(CHANNEL_PREFIX, app as HttpApp.Default, { includePrefix: true }))
      )
  })
))
