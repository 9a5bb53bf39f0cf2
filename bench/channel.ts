/**
 * The channel run of `npm run bench` (docs/decisions.md#channel), also alone as `npm run bench:channel`:
 * 1. POST /v1/quotes and the 62-date GET /v1/calendar on a service whose database holds 500 days
 *    of the hotel's messages (rooms to sell, restrictions and a base rate on every room type and
 *    date), beside a service that holds none, measured alternately in the same window
 *    (BENCH_CHANNEL_ROUNDS rounds, default 2), as the machine drifts by minutes;
 * 2. a message of 1,000 updates applied while completions run (20 in flight), BENCH_CHANNEL_ROUNDS times;
 * 3. the largest message there may be (1,000 updates, each of every field on 500 dates of every room type), alone.
 * Prints both tables; exits 1 on a non-2xx answer, or a message applied in more than a second.
 */
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { CONNECTIONS, type Measured, measure, table } from "./load.js"
import { call, complete, isoDate, pool, prepare, runBench, startService, termsVersion } from "./service.js"

const ROUNDS = Number(process.env["BENCH_CHANNEL_ROUNDS"] ?? "2")
/** How long a message of 1,000 updates may take while completions run. */
const MESSAGE_BUDGET_MS = 1000

/** The channel's bearer token of the benched services: 32 characters, as CHANNEL_TOKEN must have at least. */
export const CHANNEL_TOKEN = randomBytes(24).toString("base64url")

const roomTypes: ReadonlyArray<{ readonly id: string; readonly inventory: number }> = JSON.parse(
  readFileSync(new URL("../data/hotel.json", import.meta.url), "utf8")
).room_types

const ari = (base: string, message: unknown) =>
  call(`${base}/internal/v1/ari`, message, { authorization: `Bearer ${CHANNEL_TOKEN}` })

/** One update per room type and date, `days` dates from `firstDay` days ahead, in messages of at most 1,000 updates. */
const messagesFor = (prefix: string, firstDay: number, days: number, fields: (room: { id: string; inventory: number }, day: number) => object) => {
  const updates = Array.from({ length: days }, (_, i) => firstDay + i).flatMap((day) =>
    roomTypes.map((room) => ({ room_type_id: room.id, from: isoDate(day), to: isoDate(day), ...fields(room, day) }))
  )
  return Array.from({ length: Math.ceil(updates.length / 1000) }, (_, i) => ({
    message_id: `${prefix}-${i}`,
    as_of: new Date().toISOString(),
    updates: updates.slice(i * 1000, (i + 1) * 1000)
  }))
}

export const CHANNEL_HEADER = ["channel", "service", "connections", "req/s (avg)", "p50 (ms)", "p99 (ms)", "non-2xx"]

export const runChannelBench = async (env: Record<string, string> = {}) => {
  const withEnv = { CHANNEL_TOKEN, ...env }
  const [none, stored] = [await startService(withEnv), await startService(withEnv)]
  // 500 days of figures on every room type: as many rooms as the file has (so the same stays are
  // bookable), a minimum stay of one night, and a base rate of the hotel's own per date
  const failures: Array<string> = []
  for (const message of messagesFor("history", 0, 500, (room, day) => ({
    rooms_to_sell: room.inventory,
    stop_sell: false,
    min_stay: 1,
    base_rate: 100 + (day % 50)
  }))) {
    const answer = await ari(stored.base, message)
    if (answer.status !== 200) failures.push(`storing 500 days: ${answer.status} ${JSON.stringify(answer.body)}`)
  }

  const quoteBody = JSON.stringify({
    checkin: isoDate(30),
    checkout: isoDate(33),
    rooms: [{ room_type_id: "double", adults: 2 }, { room_type_id: "twin", adults: 1, children_ages: [5] }]
  })
  const targets = (base: string) => [
    {
      name: "POST /v1/quotes",
      opts: { url: `${base}/v1/quotes`, method: "POST" as const, headers: { "content-type": "application/json" }, body: quoteBody },
      connections: CONNECTIONS
    },
    { name: "GET /v1/calendar (62 dates), 1 client", opts: { url: `${base}/v1/calendar?from=${isoDate(1)}&to=${isoDate(62)}` }, connections: 1 },
    { name: "GET /v1/calendar (62 dates)", opts: { url: `${base}/v1/calendar?from=${isoDate(1)}&to=${isoDate(62)}` }, connections: CONNECTIONS }
  ]
  const rows: Array<Array<string>> = []
  const row = (name: string, service: string, connections: number, m: Measured) => {
    if (m.non2xx > 0 || m.result.errors > 0) failures.push(`${name} on ${service}: ${m.non2xx} non-2xx, ${m.result.errors} errors`)
    return [name, service, String(connections), m.rps.toFixed(0), m.p50.toFixed(1), m.p99.toFixed(1), String(m.non2xx)]
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, service] of [["no messages", none], ["500 days of messages", stored]] as const) {
      for (const target of targets(service.base)) {
        console.error(`channel round ${round + 1}: ${target.name} on ${label}…`)
        rows.push(row(target.name, label, target.connections, await measure(target.opts, target.connections)))
      }
    }
  }

  // a message of 1,000 updates (334 dates of every room type: one room fewer to sell) while guests
  // complete, each round on nights of its own within those dates
  const terms = await termsVersion(stored.base, (await prepare(stored.base, { checkin: isoDate(2), checkout: isoDate(3), room_type_id: "twin" })).token)
  const messageRows: Array<Array<string>> = []
  for (let round = 0; round < ROUNDS; round++) {
    const perRound = Math.floor(334 / ROUNDS)
    const stays = Array.from({ length: perRound }, (_, i) => ({
      checkin: isoDate(60 + i + round * perRound),
      checkout: isoDate(61 + i + round * perRound),
      room_type_id: roomTypes[i % roomTypes.length]!.id
    }))
    const pending = await pool(stays, 10, (stay) => prepare(stored.base, stay))
    const [message] = messagesFor(`busy-${round}`, 60, 334, (room) => ({ rooms_to_sell: room.inventory - 1 - round }))
    const completions = pool(pending, 20, (p) => complete(stored.base, terms, p))
    await new Promise((resolve) => setTimeout(resolve, 200))
    const started = performance.now()
    const answer = await ari(stored.base, message)
    const ms = performance.now() - started
    const done = await completions
    const completed = done.filter((d) => d.answer.status === 200).length
    if (answer.status !== 200) failures.push(`message while completing: ${answer.status} ${JSON.stringify(answer.body)}`)
    if (ms > MESSAGE_BUDGET_MS) failures.push(`a message of 1,000 updates took ${ms.toFixed(0)} ms (budget ${MESSAGE_BUDGET_MS} ms)`)
    if (completed !== pending.length) failures.push(`${pending.length - completed} of ${pending.length} completions failed beside the message`)
    messageRows.push([`round ${round + 1}`, String(message!.updates.length), ms.toFixed(0), String(answer.body["applied"]), String(completed)])
  }
  // the most a message may carry: 1,000 updates, each of every field on 500 dates of every room type
  // (10.5 million cells, 1,500 nights); it must not hold the event loop or the nights for long
  const largest = {
    message_id: "largest",
    as_of: new Date().toISOString(),
    updates: Array.from({ length: 1000 }, (_, i) => ({
      from: isoDate(0),
      to: isoDate(499),
      rooms_to_sell: 1 + (i % 4),
      stop_sell: false,
      closed_to_arrival: false,
      closed_to_departure: false,
      min_stay: 1,
      max_stay: 30,
      base_rate: 100 + (i % 50)
    }))
  }
  const largestStarted = performance.now()
  const largestAnswer = await ari(stored.base, largest)
  const largestMs = performance.now() - largestStarted
  if (largestAnswer.status !== 200) failures.push(`the largest message: ${largestAnswer.status} ${JSON.stringify(largestAnswer.body).slice(0, 300)}`)
  if (largestMs > MESSAGE_BUDGET_MS) failures.push(`the largest message took ${largestMs.toFixed(0)} ms (budget ${MESSAGE_BUDGET_MS} ms)`)
  messageRows.push(["largest, alone", "1000 x 500 dates x 3 types", largestMs.toFixed(0), String(largestAnswer.body["applied"]), "-"])
  return {
    load: table(CHANNEL_HEADER, rows),
    messages: table(["message while completing", "updates", "applied in (ms)", "cells applied", "completions beside (200)"], messageRows),
    failures
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runBench(async () => {
    const { failures, load, messages } = await runChannelBench()
    console.log(`\n${load.text}\n\n${messages.text}\n\n${load.markdown}\n\n${messages.markdown}\n`)
    for (const failure of failures) console.error(`channel: ${failure}`)
    if (failures.length > 0) process.exitCode = 1
  })
}
