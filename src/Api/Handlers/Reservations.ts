import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import { Reservations } from "../../Services/Reservations.js"
import { Api } from "../Contract/Api.js"
import { clientInfo } from "../Contract/RequestHeaders.js"
import { noStore, PresentedToken } from "../Contract/ReservationToken.js"
import { clientAddress } from "../Transport/ClientAddress.js"
import { withResponseHeader } from "../Transport/ResponseHeaders.js"

const markReplayed = withResponseHeader("idempotent-replayed", "true")

export const ReservationsHttp = HttpApiBuilder.group(Api, "reservations", (handlers) =>
  Effect.gen(function*() {
    const reservations = yield* Reservations
    const addressOf = clientAddress((yield* AppConfig).trustedProxies)
    return handlers
      .handle("createIntent", ({ headers, payload, request }) =>
        reservations.createIntent(payload, clientInfo(headers), headers["idempotency-key"], addressOf(request)).pipe(
          Effect.tap(({ replayed }) => Effect.andThen(noStore, replayed ? markReplayed : Effect.void)),
          Effect.map(({ response }) => response)
        ))
      .handle("publicView", () => PresentedToken.use(reservations.publicView))
      .handle("complete", ({ payload, request }) =>
        PresentedToken.use((token) => reservations.complete(token, payload, addressOf(request))))
  }))
