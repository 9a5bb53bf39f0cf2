import { expect } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import * as SchemaAST from "effect/SchemaAST"
import type { QuoteId } from "../../../src/Domain/Ids.js"
import { MultiRoomQuoteResponse } from "../../../src/Domain/Quote.js"
import { QuoteRepo } from "../../../src/Layers/Persistence/QuoteRepo.js"
import { contract } from "../../support/contract.js"

/** The quote the OpenAPI document shows (its example is on the wire: amounts in euros). */
const example = Schema.decodeUnknownSync(MultiRoomQuoteResponse)(SchemaAST.resolveAt<ReadonlyArray<unknown>>("examples")(MultiRoomQuoteResponse.ast)![0])

contract("QuoteRepo", { inMemory: QuoteRepo.InMemory, postgres: QuoteRepo.layer }, (it) => {
  it.effect("a stored quote is found as it was stored, with who asked for it; an unknown one is not", () =>
    Effect.gen(function*() {
      const repo = yield* QuoteRepo
      const quote = { response: example, client: { client: "web", ai_agent: "agent", session: null } }
      const other = {
        response: { ...example, quote_id: "q_other" as QuoteId, status: "unavailable" as const, package_offers: [], reservable: false },
        client: { client: null, ai_agent: null, session: null }
      }
      // stored in the same batch, its responses one a line: line breaks, quotes and backslashes in a text stay in it
      const [offer] = example.package_offers
      const written = {
        response: {
          ...example,
          quote_id: "q_written" as QuoteId,
          package_offers: [{ ...offer!, description: "Line one,\nline \"two\" \\ \r\n\u2028three" }]
        },
        client: { client: "a\nclient", ai_agent: null, session: null }
      }
      yield* Effect.all([repo.insert(quote), repo.insert(other), repo.insert(written)], { concurrency: "unbounded" })
      expect(yield* repo.find(example.quote_id)).toEqual(Option.some(quote))
      expect(yield* repo.find("q_other" as QuoteId)).toEqual(Option.some(other))
      expect(yield* repo.find("q_written" as QuoteId)).toEqual(Option.some(written))
      expect(yield* repo.find("q_unknown" as QuoteId)).toEqual(Option.none())
    }))
})
