import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Quotes } from "../../Services/Quotes.js"
import { Api } from "../Contract/Api.js"
import { clientInfo } from "../Contract/RequestHeaders.js"

export const QuotesHttp = HttpApiBuilder.group(Api, "quotes", (handlers) =>
  Effect.gen(function*() {
    const quotes = yield* Quotes
    return handlers
      .handle("quoteSingleRoom", ({ headers, payload }) => quotes.quoteSingleRoom(payload, clientInfo(headers)))
      .handle("quoteRooms", ({ headers, payload }) => quotes.quoteRooms(payload, clientInfo(headers)))
  }))
