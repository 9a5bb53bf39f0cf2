import { describe, expect, it } from "@effect/vitest"
import { Cause, Console, Effect, Layer, Logger } from "effect"
import { maskSecrets } from "../../../src/Domain/Redaction.js"
import { jsonLogger, LoggingLive, RequestLog, requestJsonLine } from "../../../src/Layers/Platform/Logging.js"
import { AppConfig } from "../../../src/Layers/Platform/AppConfig.js"

/** Runs `effect` with the JSON logger alone, and the lines it wrote. */
const linesOf = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    yield* Effect.provideService(effect, Logger.CurrentLoggers, new Set([jsonLogger((line) => lines.push(line))]))
    return lines.map((line) => JSON.parse(line) as Record<string, unknown>)
  })

describe("maskSecrets", () => {
  it("masks emails, phone numbers and tokens, and leaves dates, amounts and ids", () => {
    expect(maskSecrets("mail to ana.lopez@example.com failed")).toBe("mail to [email] failed")
    expect(maskSecrets("call +34 600 123 456 or (0)4 93 12 34 56")).toBe("call [phone] or [phone]")
    expect(maskSecrets("http://hotel.test/manage#token=ygiuuGTJjaGYoKV1_HdJ0hYtpxzb7SYpVGIRdZjhHJw")).toBe(
      "http://hotel.test/manage#token=[token]"
    )
    expect(maskSecrets("bearer ygiuuGTJjaGYoKV1_HdJ0hYtpxzb7SYpVGIRdZjhHJw")).toBe("bearer [token]")
    const plain = "stay 2027-03-10 to 2027-03-12, 45000 cents, quote q_a2HibgKYNzp5ojTAT5lF, BR-7K3Q9X"
    expect(maskSecrets(plain)).toBe(plain)
  })
})

describe("the JSON logger", () => {
  it.effect("one object per line: time, level, message and annotations as fields, secrets masked", () =>
    Effect.gen(function*() {
      const [line] = yield* linesOf(
        Effect.logWarning("mail to ana@example.com refused").pipe(Effect.annotateLogs({ "job.id": "j_1", guest: "+33 6 12 34 56 78" }))
      )
      expect(line).toMatchObject({ level: "WARN", msg: "mail to [email] refused", "job.id": "j_1", guest: "[phone]" })
      expect(typeof line!.time).toBe("string")
      expect(line).not.toHaveProperty("trace_id")
    }))

  it.effect("inside a span: its trace and span ids", () =>
    Effect.gen(function*() {
      const [line] = yield* linesOf(Effect.logInfo("inside").pipe(Effect.withSpan("Test.span")))
      expect(line!.trace_id).toMatch(/^[0-9a-f]{32}$/)
      expect(line!.span_id).toMatch(/^[0-9a-f]{16}$/)
    }))

  it.effect("a failure's cause, masked", () =>
    Effect.gen(function*() {
      const [line] = yield* linesOf(Effect.logError("failed", Cause.die(new Error("no mailbox ana@example.com"))))
      expect(line!.cause).toContain("[email]")
      expect(line!.cause).not.toContain("ana@example.com")
      const [other] = yield* linesOf(Effect.logError("failed:", new Error("no mailbox ana@example.com")))
      expect(other!.msg).toBe("failed: Error: no mailbox [email]")
    }))
})

describe("a request's line", () => {
  it("method, route, status, duration, and the server span's ids when traced", () => {
    const time = "2026-11-25T10:00:00.000Z"
    expect(JSON.parse(requestJsonLine({ method: "GET", route: "/v1/hotel", status: 200, durationMs: 1.25, traceparent: undefined }, time))).toEqual({
      time: "2026-11-25T10:00:00.000Z",
      level: "INFO",
      msg: "request",
      method: "GET",
      route: "/v1/hotel",
      status: 200,
      duration_ms: 1.25
    })
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    expect(JSON.parse(requestJsonLine({ method: "POST", route: "unmatched", status: 503, durationMs: 3, traceparent }, time)))
      .toMatchObject({ level: "ERROR", trace_id: "4bf92f3577b34da6a3ce929d0e0e4736", span_id: "00f067aa0ba902b7" })
  })
})

describe("LOG_FORMAT=pretty", () => {
  it.effect("a request's line goes through the pretty logger, with its fields", () =>
    Effect.gen(function*() {
      const printed: Array<unknown> = []
      const log = (...args: Array<unknown>) => void printed.push(...args)
      const console: Console.Console = { ...globalThis.console, log, info: log, warn: log, error: log }
      const write = yield* RequestLog.pipe(
        Effect.provide(LoggingLive.pipe(Layer.provide(AppConfig.InMemory({ logFormat: "pretty" })))),
        Effect.provideService(Console.Console, console)
      )
      write!({ method: "GET", route: "/v1/hotel", status: 200, durationMs: 1.5, traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" })
      const text = printed.map(String).join(" ")
      expect(text).toContain("request")
      for (const field of ["route: /v1/hotel", "status: 200", "duration_ms: 1.5", "trace_id: 4bf92f3577b34da6a3ce929d0e0e4736", "span_id: 00f067aa0ba902b7"]) {
        expect(text).toContain(field)
      }
    }))
})
