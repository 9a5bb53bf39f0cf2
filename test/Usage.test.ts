import * as NodeServices from "@effect/platform-node/NodeServices"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { execFile } from "node:child_process"
import * as path from "node:path"
import type { LocalDate } from "../src/Domain/LocalDate.js"
import { cents } from "../src/Domain/Money.js"
import type { UsageRow } from "../src/Domain/Usage.js"
import { formatUsage } from "../src/bin/UsageReport.js"
import { AppSecret } from "../src/Layers/Platform/AppSecret.js"
import { Repositories } from "../src/Composition.js"
import { UsageRepo } from "../src/Layers/Persistence/UsageRepo.js"
import { AppConfig } from "../src/Layers/Platform/AppConfig.js"
import { poolOn, testDatabaseUrl } from "./support/database.js"

/** Known traffic: instants in UTC; the hotel (Europe/Paris) is an hour ahead in November. */
const traffic = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  let n = 0
  const quote = (at: string, client: string | null, agent: string | null) =>
    sql`INSERT INTO quotes (id, created_at, expires_at, checkin, checkout, status, session_id, client, response)
        VALUES (${`q_${++n}`}, ${at}::timestamptz, ${at}::timestamptz + interval '15 minutes', '2027-03-10', '2027-03-12',
          'available', NULL, ${JSON.stringify({ client, ai_agent: agent, session: "s" })}::jsonb, '{}'::jsonb)`
  const reservation = (at: string, client: string | null, agent: string | null, completed: { at: string; total: number; cancelled?: boolean } | null) =>
    sql`INSERT INTO reservations (id, status, language, quote_id, checkin, checkout, rooms, offer, line_totals, client,
          guest_link_expires_at, created_at, completed_at)
        VALUES (${`r_${++n}`}, ${completed === null ? "PENDING_GUEST" : completed.cancelled ? "CANCELLED" : "GUEST_COMPLETED"}, 'en',
          'q_1', '2027-03-10', '2027-03-12', '[]'::jsonb,
          ${JSON.stringify({ price: { total: completed?.total ?? 0 } })}::jsonb, '[]'::jsonb,
          ${JSON.stringify({ client, ai_agent: agent, session: null })}::jsonb,
          ${at}::timestamptz + interval '1 day', ${at}::timestamptz, ${completed?.at ?? null}::timestamptz)`
  // 24 November: acme through agent-a: 4 quotes, 2 intents, 1 completion worth 481.60
  for (let i = 0; i < 4; i++) yield* quote(`2026-11-24T10:0${i}:00Z`, "acme", "agent-a")
  yield* reservation("2026-11-24T10:10:00Z", "acme", "agent-a", { at: "2026-11-24T10:20:00Z", total: 48160 })
  yield* reservation("2026-11-24T11:00:00Z", "acme", "agent-a", null)
  // 23:30 UTC is 00:30 on the 25th at the hotel
  yield* quote("2026-11-24T23:30:00Z", "acme", null)
  // 25 November: no client header, agent gpt: 2 quotes, 1 intent completed then cancelled (worth 0)
  yield* quote("2026-11-25T09:00:00Z", null, "gpt")
  yield* quote("2026-11-25T09:01:00Z", null, "gpt")
  yield* reservation("2026-11-25T09:05:00Z", null, "gpt", { at: "2026-11-25T09:10:00Z", total: 30000, cancelled: true })
  // the 26th at the hotel: outside the period
  yield* quote("2026-11-25T23:30:00Z", "acme", "agent-a")
})

const row = (
  day: string,
  dimension: UsageRow["dimension"],
  value: string,
  quotes: number,
  intents: number,
  completions: number,
  revenue: number
): UsageRow => ({ day, dimension, value, quotes, intents, completions, revenue: cents(revenue) })

const expected: ReadonlyArray<UsageRow> = [
  row("2026-11-24", "ai_agent", "agent-a", 4, 2, 1, 48160),
  row("2026-11-24", "client", "acme", 4, 2, 1, 48160),
  row("2026-11-25", "ai_agent", "gpt", 2, 1, 1, 0),
  row("2026-11-25", "ai_agent", "(none)", 1, 0, 0, 0),
  row("2026-11-25", "client", "acme", 1, 0, 0, 0),
  row("2026-11-25", "client", "(none)", 2, 1, 1, 0)
]

class CommandFailed extends Schema.TaggedError<CommandFailed>()("CommandFailed", { message: Schema.String }) {}

/** `npm run usage` on the database at `url`: what it prints. */
const usage = (url: Redacted.Redacted, args: ReadonlyArray<string>) =>
  Effect.callback<string, CommandFailed>((resume) => {
    execFile("npx", ["tsx", "src/bin/usage.ts", ...args], {
      env: { ...process.env, DATABASE_URL: Redacted.value(url), LOG_FORMAT: "json" }
    }, (error, stdout, stderr) => resume(error ? Effect.fail(new CommandFailed({ message: `${error.message}\n${stderr}` })) : Effect.succeed(stdout)))
  })

describe("usage report", () => {
  it.live("per day in hotel time, per X-Hotel-Client and per X-AI-Agent, from the stored quotes and reservations", () =>
    Effect.gen(function*() {
      const url = yield* testDatabaseUrl
      const rows = yield* Effect.gen(function*() {
        yield* traffic
        return yield* (yield* UsageRepo).report("2026-11-24" as LocalDate, "2026-11-25" as LocalDate)
      }).pipe(Effect.provide(UsageRepo.layer.pipe(
        Layer.provideMerge(Repositories),
        Layer.provideMerge(poolOn(url)),
        Layer.provideMerge(Layer.mergeAll(AppConfig.InMemory({ hotelFile: path.resolve("data/hotel.json") }), NodeServices.layer, AppSecret.InMemory))
      )))
      expect(rows).toEqual(expected)

      // the command prints those figures
      const csv = yield* usage(url, ["--from", "2026-11-24", "--to", "2026-11-25", "--format", "csv"])
      expect(csv.trim().split("\n")).toEqual([
        "day,header,value,quotes,intents,completions,conversion,revenue,currency",
        "2026-11-24,X-AI-Agent,agent-a,4,2,1,0.2500,481.60,EUR",
        "2026-11-24,X-Hotel-Client,acme,4,2,1,0.2500,481.60,EUR",
        "2026-11-25,X-AI-Agent,gpt,2,1,1,0.5000,0.00,EUR",
        "2026-11-25,X-AI-Agent,(none),1,0,0,0.0000,0.00,EUR",
        "2026-11-25,X-Hotel-Client,acme,1,0,0,0.0000,0.00,EUR",
        "2026-11-25,X-Hotel-Client,(none),2,1,1,0.5000,0.00,EUR"
      ])
      const table = yield* usage(url, ["--from", "2026-11-24", "--to", "2026-11-24"])
      expect(table).toBe(formatUsage(expected.slice(0, 2), "table", "EUR") + "\n")
      expect(table).toContain("25.0 %")
      const json = JSON.parse(yield* usage(url, ["--from", "2026-11-26", "--to", "2026-11-26", "--format", "json"]))
      expect(json).toEqual([
        { day: "2026-11-26", header: "X-AI-Agent", value: "agent-a", quotes: 1, intents: 0, completions: 0, conversion: 0, revenue_cents: 0, currency: "EUR" },
        { day: "2026-11-26", header: "X-Hotel-Client", value: "acme", quotes: 1, intents: 0, completions: 0, conversion: 0, revenue_cents: 0, currency: "EUR" }
      ])
    }), 60_000)

  it("a table for people", () => {
    expect(formatUsage(expected.slice(0, 1), "table", "EUR")).toBe([
      "day         header      value    quotes  intents  completions  conversion  revenue (EUR)",
      "----------  ----------  -------  ------  -------  -----------  ----------  -------------",
      "2026-11-24  X-AI-Agent  agent-a       4        2            1      25.0 %         481.60"
    ].join("\n"))
    expect(formatUsage([], "table", "EUR")).toBe("no traffic in this period")
  })

  // header values are the callers' own text: an MCP client names itself in JSON, where any character goes
  it("the table shows no terminal escape sequence or control character a caller sent", () => {
    const hostile = "agent\u001b]0;owned\u0007\u001b[2J\u001b[31m-red\u001b[0m\u009b1;31m\u001bc\u0000\u0085\u0008/1.0"
    const table = formatUsage([row("2026-11-24", "ai_agent", hostile, 4, 2, 1, 48160)], "table", "EUR")
    expect(table.split("\n")[2]).toBe("2026-11-24  X-AI-Agent  agent-red/1.0       4        2            1      25.0 %         481.60")
    expect(table).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
  })

  it("the CSV shows no control character, and a cell a spreadsheet would run as a formula is text", () => {
    const values = ["=HYPERLINK(\"http://evil.example\",\"x\")", "+1", "-2+3", "@SUM(A1)", "\t=1+1", "\r-1", "\u001b[31m=1", "a=b", "(none)"]
    const csv = formatUsage(values.map((value) => row("2026-11-24", "client", value, 1, 0, 0, 0)), "csv", "EUR")
    expect(csv.split("\n").slice(1).map((line) => line.split(",")[2])).toEqual([
      "\"'=HYPERLINK(\"\"http://evil.example\"\"",
      "'+1",
      "'-2+3",
      "'@SUM(A1)",
      "'=1+1",
      "'-1",
      "'=1",
      "a=b",
      "(none)"
    ])
    expect(csv).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
  })
})
