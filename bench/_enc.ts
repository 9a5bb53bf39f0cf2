import { Effect, Schema } from "effect"
import { MultiRoomQuoteRequest, MultiRoomQuoteResponse } from "../src/Domain/Quote.js"
import { call, isoDate, runBench, startService, stop } from "./service.js"
runBench(async () => {
  const service = await startService()
  const reqBody = { checkin: isoDate(30), checkout: isoDate(33), rooms: [{ room_type_id: "double", adults: 2 }, { room_type_id: "twin", adults: 1, children_ages: [5] }] }
  const answer = await call(`${service.base}/v1/quotes`, reqBody)
  await stop(service.child)
  console.log(JSON.stringify(answer.body).length, "bytes")
  ;(await import("node:fs")).writeFileSync("/tmp/quote.json", JSON.stringify(answer.body, null, 2))
  return
  const value = Schema.decodeUnknownSync(MultiRoomQuoteResponse)(answer.body)
  const time = (name: string, f: () => unknown, n = 20000) => {
    for (let i = 0; i < 2000; i++) f()
    const t = performance.now()
    for (let i = 0; i < n; i++) f()
    console.log(name, ((performance.now() - t) * 1000 / n).toFixed(1), "µs")
  }
  const enc = Schema.encodeUnknownEffect(MultiRoomQuoteResponse)
  const encNo = Schema.encodeUnknownEffect(MultiRoomQuoteResponse, { disableChecks: true } as never)
  const encSync = Schema.encodeUnknownSync(MultiRoomQuoteResponse)
  const encSyncNo = Schema.encodeUnknownSync(MultiRoomQuoteResponse, { disableChecks: true } as never)
  const dec = Schema.decodeUnknownSync(MultiRoomQuoteRequest)
  for (let r = 0; r < 5; r++) {
    time("encodeSync", () => encSync(value))
    time("encodeSync disableChecks", () => encSyncNo(value))
    time("encodeEffect runSync", () => Effect.runSync(enc(value)))
    time("encodeEffect disableChecks runSync", () => Effect.runSync(encNo(value)))
    time("decode request", () => dec(reqBody))
  }
})
