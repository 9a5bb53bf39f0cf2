import { Context, Effect, identity, Layer, Option, type Redacted, Schema } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"
import {
  PmsAnswer,
  type PmsCancelOutcome,
  PmsOutcome,
  type PmsPushOutcome,
  PmsReservation
} from "../Domain/Pms.js"
import * as Tracing from "../Layers/Platform/Tracing.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"

/**
 * A PMS call failed. `retryable`: no answer, a timeout, 408, 429 or 5xx (the same request may
 * succeed later); another answer (a 4xx, a 2xx without a reference) would come back the same.
 */
export class PmsError extends Schema.TaggedError<PmsError>()("PmsError", {
  message: Schema.String,
  retryable: Schema.Boolean,
  /** The PMS's HTTP status, when it answered. */
  status: Schema.optional(Schema.Int)
}) {}

const TIMEOUT = "10 seconds"

const isRedirect = (status: number) => status >= 300 && status < 400

/**
 * The hotel's property management system. Calls are idempotent by reservation number; `changeId`
 * (the outbox job's id) names the change being delivered, so retries of it carry the same
 * `Idempotency-Key`; `feedCursor` is the cursor of the reservation's last change that the call
 * carries (`Feed-Cursor`), the position of that change in `GET /internal/v1/reservations`.
 */
export class Pms extends Context.Service<Pms, {
  /** Creates or replaces the reservation in the PMS. */
  readonly push: (reservation: PmsReservation, changeId: string, feedCursor: Option.Option<bigint>) => Effect.Effect<PmsPushOutcome, PmsError>
  /** Cancels it; one the PMS does not know (404) counts as cancelled. */
  readonly cancel: (reservationNumber: string, changeId: string, feedCursor: Option.Option<bigint>) => Effect.Effect<PmsCancelOutcome, PmsError>
}>()("Pms") {
  /**
   * JSON over HTTP: `PUT` and `DELETE {baseUrl}/reservations/{number}` (docs/channel.md#pms-contract),
   * with `Authorization: Bearer {token}` when there is one.
   */
  static readonly http = (baseUrl: string, token: Option.Option<Redacted.Redacted> = Option.none()) =>
    Layer.effect(
      Pms,
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const authorized: (request: HttpClientRequest.HttpClientRequest) => HttpClientRequest.HttpClientRequest = Option.match(token, {
          onNone: () => identity,
          onSome: (secret) => HttpClientRequest.bearerToken(secret)
        })
        const resource = (number: string) => `${baseUrl.replace(/\/+$/, "")}/reservations/${encodeURIComponent(number)}`
        const request = (method: "PUT" | "DELETE", number: string, changeId: string, feedCursor: Option.Option<bigint>) =>
          HttpClientRequest.make(method)(resource(number)).pipe(
            HttpClientRequest.acceptJson,
            // the PUT is idempotent anyway; the key lets the PMS tell a retried delivery from a new change
            HttpClientRequest.setHeader("Idempotency-Key", `${number}-${changeId}`),
            Option.match(feedCursor, {
              onNone: () => identity,
              onSome: (cursor) => HttpClientRequest.setHeader("Feed-Cursor", cursor.toString())
            }),
            authorized
          )

        /** Sends, then reads the answer with `onAnswer`; the whole exchange is bounded by the timeout. */
        const exchange = <A>(
          what: string,
          send: HttpClientRequest.HttpClientRequest,
          onAnswer: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<A, PmsError>
        ) =>
          client.execute(send).pipe(
            Effect.mapError((error) =>
              new PmsError({ message: `${what}: the PMS did not answer (${error.message})`, retryable: true })
            ),
            Effect.flatMap(onAnswer),
            Effect.timeoutOrElse({
              duration: TIMEOUT,
              orElse: () => Effect.fail(new PmsError({ message: `${what}: no answer within ${TIMEOUT}`, retryable: true }))
            })
          )

        const refused = (what: string, response: HttpClientResponse.HttpClientResponse) =>
          Effect.flatMap(Effect.orElseSucceed(response.text, () => ""), (body) =>
            new PmsError({
              message: `${what}: the PMS answered ${response.status}${body ? `: ${body.slice(0, 200)}` : ""}`,
              // a redirect is never followed (the guest's data would go where it points): a failed attempt, as the PMS's own fault
              retryable: response.status >= 500 || response.status === 429 || response.status === 408 || isRedirect(response.status),
              status: response.status
            }))

        // made once: a schema's codec is compiled when it is made
        const decodeAnswer = Schema.decodeUnknownEffect(Schema.fromJsonString(PmsAnswer))
        const withReservation = HttpClientRequest.schemaBodyJson(PmsReservation)
        const reference = (what: string, response: HttpClientResponse.HttpClientResponse) =>
          Effect.flatMap(Effect.orElseSucceed(response.text, () => ""), (body) =>
            decodeAnswer(body).pipe(
              Effect.map((answer) => answer.reference),
              Effect.mapError(() =>
                new PmsError({
                  message: `${what}: the PMS answered ${response.status} without a reference`,
                  retryable: false,
                  status: response.status
                })
              )
            ))

        return {
          push: Tracing.fn("Pms.push", { kind: "client" })(function*(reservation: PmsReservation, changeId: string, feedCursor: Option.Option<bigint>) {
            const number = reservation.reservation_number
            yield* Tracing.annotate({ "reservation.number": number })
            const what = `PUT reservation ${number}`
            const send = yield* withReservation(request("PUT", number, changeId, feedCursor), reservation)
              .pipe(Effect.orDie)
            return yield* exchange(what, send, (response) =>
              response.status >= 200 && response.status < 300
                ? Effect.map(reference(what, response), (reference) => PmsOutcome.Synced({ reference }))
                : refused(what, response))
          }),
          cancel: Tracing.fn("Pms.cancel", { kind: "client" })(function*(number: string, changeId: string, feedCursor: Option.Option<bigint>) {
            yield* Tracing.annotate({ "reservation.number": number })
            const what = `DELETE reservation ${number}`
            return yield* exchange(what, request("DELETE", number, changeId, feedCursor), (response) =>
              response.status === 404 || (response.status >= 200 && response.status < 300)
                // a DELETE may answer 204, or its reference; 404: already gone, which is what was asked
                ? Effect.map(Effect.option(reference(what, response)), (reference) => PmsOutcome.Cancelled({ reference }))
                : refused(what, response))
          })
        }
      })
    // Node's own fetch: the undici package behind NodeHttpClient is megabytes more of every instance's memory;
    // "manual": a redirect is answered as it came, never followed
    ).pipe(Layer.provide(FetchHttpClient.layer), Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, { redirect: "manual" })))

  /** No PMS configured: nothing is sent, every call answers `Disabled`. Says so once, at start. */
  static readonly disabled = Layer.effect(
    Pms,
    Effect.as(Effect.logInfo("PMS sync disabled (PMS_URL unset): reservations stay pms_status PENDING"), {
      push: () => Effect.succeed<PmsPushOutcome>(PmsOutcome.Disabled()).pipe(Tracing.withSpan("Pms.push", { kind: "client" })),
      cancel: () => Effect.succeed<PmsCancelOutcome>(PmsOutcome.Disabled()).pipe(Tracing.withSpan("Pms.cancel", { kind: "client" }))
    })
  )

  /** The HTTP PMS at `PMS_URL` (with `PMS_TOKEN`), or `disabled` when it is unset. */
  static readonly layer = Layer.unwrap(
    Effect.map(AppConfig, ({ pmsToken, pmsUrl }) =>
      Option.match(pmsUrl, { onNone: () => Pms.disabled, onSome: (url) => Pms.http(url, pmsToken) }))
  )
}
