import { Context, Effect, Layer, Option, Ref } from "effect"
import type { MailMessage } from "../../src/Domain/Mail.js"
import { PmsOutcome, type PmsReservation } from "../../src/Domain/Pms.js"
import * as Tracing from "../../src/Layers/Platform/Tracing.js"
import { type MailDeliveryError, Mailer } from "../../src/Services/Mailer.js"
import { Pms, type PmsError } from "../../src/Services/Pms.js"

/**
 * What an in-memory stand-in of an outside system (the mail server, the PMS) keeps: each call it
 * took, and the failures its next calls are to meet, set by a test.
 */
const makeRecorder = <A, E>() =>
  Effect.gen(function*() {
    const taken = yield* Ref.make<ReadonlyArray<A>>([])
    const failures = yield* Ref.make<ReadonlyArray<E>>([])
    return {
      /** Fails with the next failure set, if any; else keeps `call`. */
      record: (call: A): Effect.Effect<void, E> =>
        Effect.flatMap(Ref.modify(failures, ([first, ...rest]) => [first, rest]), (failure) =>
          failure === undefined ? Ref.update(taken, (all) => [...all, call]) : Effect.fail(failure)),
      taken: Ref.get(taken),
      failNext: (times: number, error: E) => Ref.set(failures, Array.from({ length: times }, () => error))
    }
  })

/** The in-memory mailer's record, for tests. */
export class MailerInMemory extends Context.Service<MailerInMemory, {
  /** Every message delivered, in order. */
  readonly sent: Effect.Effect<ReadonlyArray<MailMessage>>
  /** The next `times` sends fail with `error` and deliver nothing. */
  readonly failNext: (times: number, error: MailDeliveryError) => Effect.Effect<void>
}>()("MailerInMemory") {}

/** A mailer that keeps every message in memory; `MailerInMemory` reads them and makes the next sends fail. */
export const inMemoryMailer: Layer.Layer<Mailer | MailerInMemory> = Layer.effectContext(
  Effect.gen(function*() {
    const { failNext, record, taken } = yield* makeRecorder<MailMessage, MailDeliveryError>()
    const mailer: Context.Service.Shape<typeof Mailer> = {
      send: Tracing.fn("Mailer.send", { kind: "client" })(function*(message: MailMessage) {
        yield* record(message)
      })
    }
    return Context.make(Mailer, mailer).pipe(Context.add(MailerInMemory, { sent: taken, failNext }))
  })
)

/** A call the in-memory PMS received (a failed one is not recorded). */
export type PmsCall =
  | { readonly _tag: "Push"; readonly reservation: PmsReservation; readonly changeId: string; readonly feedCursor: Option.Option<bigint> }
  | { readonly _tag: "Cancel"; readonly number: string; readonly changeId: string; readonly feedCursor: Option.Option<bigint> }

/** The in-memory PMS's record, for tests. */
export class PmsInMemory extends Context.Service<PmsInMemory, {
  /** Every successful call, in order. */
  readonly calls: Effect.Effect<ReadonlyArray<PmsCall>>
  /** The next `times` calls fail with `error` and change nothing. */
  readonly failNext: (times: number, error: PmsError) => Effect.Effect<void>
}>()("PmsInMemory") {}

/** A PMS that records every call; `PmsInMemory` reads them and makes the next calls fail. */
export const inMemoryPms: Layer.Layer<Pms | PmsInMemory> = Layer.effectContext(
  Effect.gen(function*() {
    const { failNext, record, taken } = yield* makeRecorder<PmsCall, PmsError>()
    const pms: Context.Service.Shape<typeof Pms> = {
      push: Tracing.fn("Pms.push", { kind: "client" })(function*(reservation: PmsReservation, changeId: string, feedCursor: Option.Option<bigint>) {
        yield* record({ _tag: "Push", reservation, changeId, feedCursor })
        return PmsOutcome.Synced({ reference: `PMS-${reservation.reservation_number}` })
      }),
      cancel: Tracing.fn("Pms.cancel", { kind: "client" })(function*(number: string, changeId: string, feedCursor: Option.Option<bigint>) {
        yield* record({ _tag: "Cancel", number, changeId, feedCursor })
        return PmsOutcome.Cancelled({ reference: Option.some(`PMS-${number}`) })
      })
    }
    return Context.make(Pms, pms).pipe(Context.add(PmsInMemory, { calls: taken, failNext }))
  })
)
