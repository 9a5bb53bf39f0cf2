import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { MultiRoomQuoteResponse } from "../../Domain/Quote.js"
import { Quotes } from "../../Services/Quotes.js"
import { Api } from "../Contract/Api.js"
import { QUOTE_ENCODING } from "../Contract/Quotes.js"
import { clientInfo } from "../Contract/RequestHeaders.js"
import { directAnswer } from "./DirectAnswer.js"

const answerQuote = directAnswer(MultiRoomQuoteResponse, QUOTE_ENCODING)

export const QuotesHttp = HttpApiBuilder.group(Api, "quotes", (handlers) =>
  Effect.gen(function*() {
    const quotes = yield* Quotes
    return handlers
      .handle("quoteSingleRoom", ({ headers, payload }) => Effect.map(quotes.quoteSingleRoom(payload, clientInfo(headers)), answerQuote))
      .handle("quoteRooms", ({ headers, payload }) => Effect.map(quotes.quoteRooms(payload, clientInfo(headers)), answerQuote))
  }))
