import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { execFile } from "node:child_process"
import { createRequire } from "node:module"
import * as path from "node:path"
import { HttpLive } from "../../src/Api/Transport/Http.js"
import { makeTestClock } from "../support/clock.js"
import { baseUrl, ServicesInMemory, TestServer } from "../support/TestApp.js"

// Today is Sunday 2026-11-22 in hotel time.
const clock = makeTestClock("2026-11-22T10:00:00Z")

/** The suite's command line, run by the Node that runs the tests. */
const CONFORMANCE = createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/dist/index.js")
const EXPECTED_FAILURES = path.resolve("test/Api/McpConformance.expected-failures.yml")

/**
 * The service on localhost, its public origin its own (as a server on localhost is deployed): the
 * suite's DNS-rebinding scenario sends that origin, and another one that must be refused.
 */
const OnLocalhost = Layer.unwrap(
  Effect.map(baseUrl, (publicBaseUrl) => HttpLive.pipe(Layer.provideMerge(ServicesInMemory({ config: { publicBaseUrl } }))))
).pipe(Layer.provideMerge(TestServer))

/** The suite's server scenarios against `url`: its exit code and what it printed. */
const runConformance = (url: string) =>
  Effect.callback<{ readonly exitCode: number; readonly output: string }>((resume) => {
    const child = execFile(
      process.execPath,
      [CONFORMANCE, "server", "--url", url, "--expected-failures", EXPECTED_FAILURES],
      { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resume(Effect.succeed({ exitCode: error === null ? 0 : Number(error.code ?? 1), output: `${stdout}${stderr}` }))
    )
    return Effect.sync(() => child.kill())
  })

layer(OnLocalhost.pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("the official MCP conformance suite", (it) => {
  it.effect("passes every server scenario but those calling the suite's own fixtures (McpConformance.expected-failures.yml)", () =>
    Effect.gen(function*() {
      const { exitCode, output } = yield* runConformance(`${yield* baseUrl}/mcp`)
      // the suite says which scenario failed unexpectedly, or which listed one now passes
      expect(exitCode, output).toBe(0)
      for (const scenario of ["server-initialize", "logging-set-level", "ping", "completion-complete", "tools-list", "resources-list", "prompts-list", "dns-rebinding-protection"]) {
        expect(output).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`))
      }
    }), { timeout: 90_000 })
})
