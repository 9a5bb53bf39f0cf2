import { Effect, Semaphore } from "effect"
import { type HttpApi, type HttpApiGroup, OpenApi } from "effect/http-api"
import type { HotelDefinition } from "../../Domain/Hotel.js"
import { HotelCatalog } from "../../Services/HotelCatalog.js"

/** What a document says of the hotel (its title; the public API's licence), from its definition. */
export interface AboutTheHotel {
  readonly title: string
  readonly license?: { readonly name: string; readonly url: string }
}

/**
 * A document that says something of the hotel, made at the first request that wants it (so the
 * service starts whatever the hotel's state) and again only when what it says changes (a re-import).
 * One is made at a time: a first visitor who leaves while it is made does not leave it unmade.
 */
export const perHotel = <A, E, R>(
  about: (hotel: HotelDefinition) => AboutTheHotel,
  make: (about: AboutTheHotel) => Effect.Effect<A, E, R>
): Effect.Effect<Effect.Effect<A, E, R>, never, HotelCatalog> =>
  Effect.zipWith(Effect.service(HotelCatalog), Semaphore.make(1), (catalog, one) => {
    let made: { readonly key: string; readonly document: A } | undefined
    const documentFor = (facts: AboutTheHotel) => {
      const key = JSON.stringify(facts)
      // under the lock, a request that waited finds the document the one before it made
      const makeOnce = Effect.suspend(() =>
        made?.key === key ? Effect.succeed(made.document) : Effect.tap(make(facts), (document) =>
          Effect.sync(() => {
            made = { key, document }
          }))
      )
      return made?.key === key ? Effect.succeed(made.document) : one.withPermits(1)(Effect.uninterruptible(makeOnce))
    }
    return Effect.flatMap(catalog.definition(), (hotel) => documentFor(about(hotel)))
  })

/** An HttpApi whose documents (OpenAPI, reference) name the hotel: its title, and the licence if any. */
export const namingTheHotel = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  about: AboutTheHotel
): HttpApi.HttpApi<Id, Groups> => api.annotateMerge(OpenApi.annotations(about))

/** The OpenAPI 3.1 document generated from an HttpApi, naming the hotel, served at this deployment's base URL. */
export const documentOf = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  about: AboutTheHotel,
  publicBaseUrl: string
) => ({
  ...OpenApi.fromApi(namingTheHotel(api, about)),
  servers: [{ url: publicBaseUrl, description: "This deployment" }]
})
