import { measure } from "./load.js"
import { isoDate, runBench, startService, stop } from "./service.js"
runBench(async () => {
  const service = await startService({ RATE_LIMIT_PER_MINUTE: "1000000" }, process.env["ROOT"] ?? undefined)
  const body = JSON.stringify({ checkin: isoDate(30), checkout: isoDate(33), rooms: [{ room_type_id: "double", adults: 2 }, { room_type_id: "twin", adults: 1, children_ages: [5] }] })
  const target = process.env["TARGET"] ?? "quotes"
  const opts = target === "hotel" ? { url: `${service.base}/v1/hotel` } : { url: `${service.base}/v1/quotes`, method: "POST" as const, headers: { "content-type": "application/json" }, body }
  const m = await measure(opts, 50)
  console.log(target, m.rps.toFixed(0), m.p99, m.non2xx)
  await stop(service.child)
})
