/**
 * The stay-change run of `npm run bench`: completed reservations change their stays (POST
 * /v1/reservation-manage change_stay), first each to nights of its own, then all at once to the
 * last rooms of one night while as many guests complete reservations of those rooms. Afterwards
 * the database must show no overbooking and no lost room.
 */
import { simpleParser } from "mailparser"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import pg from "pg"
import { MISCOUNTED_NIGHTS, OVERBOOKED_NIGHTS } from "../test/support/inventoryAudit.js"
import { outboxIdle } from "./pdfs.js"
import { type Answer, call, complete, isoDate, type Pending, percentile, pool, prepare, type Stay } from "./service.js"

/** Reservations that change their stays. */
export const CHANGERS = Number(process.env["BENCH_CHANGES"] ?? "40")

/** The rooms every contended change and completion is for: the 5 deluxe rooms of one night. */
const LAST_ROOMS: Stay = { checkin: isoDate(12), checkout: isoDate(13), room_type_id: "deluxe" }
const LAST_ROOMS_COUNT = 5

export const CHANGES_HEADER = [
  "stay changes",
  "calls",
  "concurrency",
  "time (ms)",
  "calls/s",
  "p50 (ms)",
  "p99 (ms)",
  "changed",
  "completed",
  "409 sold out",
  "repriced",
  "other"
]

interface Changer {
  readonly manageToken: string
  readonly number: string
}

/** The manage link's token of each reservation, read from its confirmation email as the guest would. */
const manageTokensOf = async (dataDir: string, numbers: ReadonlyArray<string>) => {
  const wanted = new Set(numbers)
  const found = new Map<string, string>()
  const dir = join(dataDir, "mail")
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".eml"))) {
    const mail = await simpleParser(readFileSync(join(dir, file)))
    const number = [...wanted].find((n) => mail.subject?.includes(n) === true)
    const token = /\/manage#token=([A-Za-z0-9_-]+)/.exec(mail.text ?? "")?.[1]
    if (number !== undefined && token !== undefined) found.set(number, token)
  }
  if (found.size !== wanted.size) throw new Error(`${found.size} of ${wanted.size} manage links found in ${dir}`)
  return numbers.map((number) => found.get(number)!)
}

/** Completed reservations of one deluxe room, each on a night of its own far ahead: their manage tokens. */
export const prepareChangers = async (base: string, terms: string, dataDir: string, databaseUrl: string): Promise<Array<Changer>> => {
  const stays = Array.from({ length: CHANGERS }, (_, i): Stay => ({ checkin: isoDate(420 + 2 * i), checkout: isoDate(421 + 2 * i), room_type_id: "deluxe" }))
  const pending = await pool(stays, 10, (stay) => prepare(base, stay))
  const done = await pool(pending, 10, (p) => complete(base, terms, p))
  const numbers = done.map(({ answer }) => {
    if (answer.status !== 200) throw new Error(`completion: ${answer.status} ${JSON.stringify(answer.body)}`)
    return String(answer.body["reservation_number"])
  })
  await outboxIdle(databaseUrl)
  const tokens = await manageTokensOf(dataDir, numbers)
  return numbers.map((number, i) => ({ number, manageToken: tokens[i]! }))
}

const manage = (base: string, token: string, body: unknown) => call(`${base}/v1/reservation-manage`, body, { "x-reservation-token": token })

/** quote_change, untimed; then `timed`, the change_stay at its new_total, once more at the new total after a 409 price_changed. */
const quoteThenChange = async (base: string, token: string, stay: Stay) => {
  const body = { checkin: stay.checkin, checkout: stay.checkout, rooms: [{ room_type_id: stay.room_type_id, adults: 2 }] }
  const quoted = await manage(base, token, { action: "quote_change", ...body })
  if (quoted.status !== 200) throw new Error(`quote_change: ${quoted.status} ${JSON.stringify(quoted.body)}`)
  return {
    timed: async () => {
      const started = performance.now()
      const send = (expected_total: number) => manage(base, token, { action: "change_stay", ...body, expected_total })
      let answer = await send(Number(quoted.body["new_total"]))
      const repriced = answer.status === 409 && answer.body.error?.code === "price_changed"
      if (repriced) answer = await send(answer.body.error?.details?.new_total ?? Number.NaN)
      return { answer, repriced, ms: performance.now() - started }
    }
  }
}

interface Settled {
  readonly kind: "change" | "completion"
  readonly answer: Answer
  readonly repriced: boolean
  readonly ms: number
}

const row = (name: string, concurrency: number, elapsed: number, settled: ReadonlyArray<Settled>) => {
  const ok = (kind: Settled["kind"]) => settled.filter((s) => s.kind === kind && s.answer.status === 200).length
  const soldOut = settled.filter((s) => s.answer.status === 409 && s.answer.body.error?.code === "availability_changed").length
  const other = settled.length - ok("change") - ok("completion") - soldOut
  const latencies = settled.map((s) => s.ms)
  return {
    cells: [
      name,
      String(settled.length),
      String(concurrency),
      elapsed.toFixed(0),
      (settled.length / (elapsed / 1000)).toFixed(1),
      percentile(latencies, 50).toFixed(1),
      percentile(latencies, 99).toFixed(1),
      String(ok("change")),
      String(ok("completion")),
      String(soldOut),
      String(settled.filter((s) => s.repriced).length),
      String(other)
    ],
    booked: ok("change") + ok("completion"),
    other
  }
}

/** Rooms held beyond a type's inventory, and nights whose count differs from the completed reservations staying then. */
const inventoryFaults = async (databaseUrl: string) => {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const overbooked = await client.query(OVERBOOKED_NIGHTS)
    const lost = await client.query(MISCOUNTED_NIGHTS)
    return { overbooked: overbooked.rowCount ?? 0, lost: lost.rowCount ?? 0 }
  } finally {
    await client.end()
  }
}

/**
 * "spread": each reservation moves to the next night, 20 in flight; "contended": every one of them
 * changes to the last 5 deluxe rooms of one night while as many guests complete reservations of
 * those rooms, all at once. Each change is quoted first, untimed; a 409 price_changed is confirmed
 * once at the new total, as the guest would. Fails when "spread" lost a change, when "contended"
 * did not book exactly the 5 rooms, or when the database shows an overbooking or a lost room.
 */
export const runChanges = async (base: string, terms: string, changers: ReadonlyArray<Changer>, databaseUrl: string) => {
  const rows: Array<Array<string>> = []
  const failures: Array<string> = []

  const spreadStays = changers.map((_, i): Stay => ({ checkin: isoDate(421 + 2 * i), checkout: isoDate(422 + 2 * i), room_type_id: "deluxe" }))
  const spreadCalls = await pool(changers.map((c, i) => ({ token: c.manageToken, stay: spreadStays[i]! })), 10, ({ stay, token }) =>
    quoteThenChange(base, token, stay))
  let started = performance.now()
  const spread = await pool(spreadCalls, 20, async (c) => ({ kind: "change" as const, ...await c.timed() }))
  const spreadRow = row("spread", 20, performance.now() - started, spread)
  rows.push(spreadRow.cells)
  if (spreadRow.booked !== changers.length) failures.push(`spread: ${spreadRow.booked} of ${changers.length} changes made`)

  const contendedChanges = await pool(changers, 10, (c) => quoteThenChange(base, c.manageToken, LAST_ROOMS))
  const pending: ReadonlyArray<Pending> = await pool(changers, 10, () => prepare(base, LAST_ROOMS))
  // a change, then a completion, and so on: neither kind starts ahead of the other
  const contenders = contendedChanges.flatMap((c, i) => [
    async (): Promise<Settled> => ({ kind: "change", ...await c.timed() }),
    async (): Promise<Settled> => ({ kind: "completion", ...await complete(base, terms, pending[i]!) })
  ])
  started = performance.now()
  const contended = await Promise.all(contenders.map((contender) => contender()))
  const contendedRow = row("contended, beside completions", contenders.length, performance.now() - started, contended)
  rows.push(contendedRow.cells)
  if (contendedRow.booked !== LAST_ROOMS_COUNT || contendedRow.other > 0) {
    failures.push(`contended: ${contendedRow.booked} rooms booked, ${LAST_ROOMS_COUNT} expected; ${contendedRow.other} other answers`)
  }

  const faults = await inventoryFaults(databaseUrl)
  if (faults.overbooked > 0 || faults.lost > 0) failures.push(`${faults.overbooked} overbooked nights, ${faults.lost} nights off their reservations`)
  return { rows, failures }
}
