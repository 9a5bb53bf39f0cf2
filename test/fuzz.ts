/**
 * `npm run fuzz`: every operation of /openapi.json and every MCP tool fuzzed with FUZZ_RUNS
 * generated requests each (default 1,000) after the edges of its fields, from FUZZ_SEED (default:
 * a new one, printed), against the service spawned as `npm start` runs it (bench/service.ts: a
 * fresh database on BENCH_DATABASE_URL's server, a temporary DATA_DIR). In a process of its own, a
 * request that takes the service down is seen as such: the health check after its batch fails,
 * and the report gives the end of the process' output. Prints a table per operation and exits 1
 * on any 5xx, answer the document does not allow, field without an upper bound, or server down.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer, Option, Redacted } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { runBench, startService } from "../bench/service.js"
import type { ReservationId } from "../src/Domain/Ids.js"
import { AppSecret } from "../src/Layers/Platform/AppSecret.js"
import { pgClientLayer } from "../src/Layers/Persistence/Database.js"
import { TokenRepo } from "../src/Layers/Persistence/TokenRepo.js"
import { Tokens } from "../src/Services/Tokens.js"
import { formatReport, fuzz, FuzzTarget, type OperationReport, passed } from "./support/fuzz.js"

const options = {
  runs: Number(process.env.FUZZ_RUNS ?? 1000),
  seed: Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31)),
  only: process.env.FUZZ_ONLY,
  done: (r: OperationReport) =>
    console.error(`${r.id}: ${r.requests} requests, ${r.serverErrors} 5xx, ${r.invalid} invalid, ${(r.elapsedMs / 1000).toFixed(1)} s`)
}

/** The spawned service as the fuzzer's target: its database moves expiries, its secret reveals manage tokens. */
const spawnedTarget = (service: Awaited<ReturnType<typeof startService>>, appSecret: string) =>
  Layer.effect(
    FuzzTarget,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const tokens = yield* Tokens
      return {
        port: Number(new URL(service.base).port),
        now: Date.now,
        expire: (quoteId: string, reservationId: ReservationId) => {
          const past = new Date(Date.now() - 60_000).toISOString()
          // the service reads a quote's expiry from the answer it stored
          return Effect.orDie(Effect.all([
            sql`UPDATE quotes SET expires_at = ${past}, response = jsonb_set(response::jsonb, '{expires_at}', to_jsonb(${past}::text)) WHERE id = ${quoteId}`,
            sql`UPDATE reservation_tokens SET expires_at = ${past} WHERE reservation_id = ${reservationId} AND purpose = 'guest'`,
            sql`UPDATE reservations SET guest_link_expires_at = ${past} WHERE id = ${reservationId}`
          ]))
        },
        manageToken: (reservationId: ReservationId) => Effect.map(tokens.reveal(reservationId, "manage"), Option.getOrThrow),
        gone: () => {
          const { exitCode, signalCode } = service.child
          return exitCode === null && signalCode === null
            ? undefined
            : `the service process ended (${signalCode ?? `exit code ${exitCode}`}); its last output:\n${service.tail.join("").slice(-3000)}`
        }
      }
    })
  ).pipe(
    Layer.provide(Tokens.layer),
    Layer.provide(TokenRepo.layer),
    Layer.provide(Layer.succeed(AppSecret, Redacted.make(appSecret))),
    Layer.provideMerge(pgClientLayer(Redacted.make(service.databaseUrl), { maxConnections: 2 }))
  )

/** HTTP calls of the fuzzer's states go to the service. */
const clientOf = (base: string) =>
  Layer.effect(HttpClient.HttpClient, Effect.map(HttpClient.HttpClient, HttpClient.mapRequest(HttpClientRequest.prependUrl(base)))).pipe(
    Layer.provide(NodeHttpClient.layerNodeHttpOptions({ keepAlive: false }))
  )

void runBench(async () => {
  const appSecret = randomBytes(32).toString("base64url")
  // one client books every reservation of the run: no limit on completions per client address
  const service = await startService({ APP_SECRET: appSecret, BOOKING_LIMIT_PER_HOUR: "0" })
  const started = Date.now()
  const result = await Effect.runPromise(
    fuzz(options).pipe(Effect.provide(Layer.merge(spawnedTarget(service, appSecret), clientOf(service.base))))
  )
  console.log(`${formatReport(result, options)}\n\n${((Date.now() - started) / 1000).toFixed(1)} s`)
  if (!passed(result, options)) process.exitCode = 1
})
