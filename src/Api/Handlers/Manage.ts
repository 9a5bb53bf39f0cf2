import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import type { ManagedReservation } from "../../Domain/Reservation.js"
import type { ChangeQuote } from "../../Domain/StayChange.js"
import { type ManageFailure, ReservationManagement } from "../../Services/ReservationManagement.js"
import { Api } from "../Contract/Api.js"
import { PresentedToken } from "../Contract/ReservationToken.js"
import { AppConfig } from "../../Layers/Platform/AppConfig.js"
import { clientAddress } from "../Transport/ClientAddress.js"
import { withResponseHeader } from "../Transport/ResponseHeaders.js"

export const ManageHttp = HttpApiBuilder.group(Api, "manage", (handlers) =>
  Effect.gen(function*() {
    const management = yield* ReservationManagement
    const addressOf = clientAddress((yield* AppConfig).trustedProxies)
    return handlers
      .handle("view", () => PresentedToken.use(management.view))
      .handle("act", ({ payload, request }) =>
        PresentedToken.use((token): Effect.Effect<ManagedReservation | ChangeQuote, ManageFailure> =>
          payload.action === "quote_change" ? management.quoteChange(token, payload) : management.act(token, payload, addressOf(request))))
      .handle("document", () =>
        PresentedToken.use(management.document).pipe(
          Effect.tap(({ filename }) => withResponseHeader("content-disposition", `attachment; filename="${filename}"`)),
          Effect.map(({ content }) => content)
        ))
  }))
