import { Clock, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import type { NodemailerError, SendMailOptions, Transporter } from "nodemailer"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { type MailMessage, messageIdHeader } from "../Domain/Mail.js"
import { HotelRepo } from "../Layers/Persistence/HotelRepo.js"
import { PRIVATE_FILE, privateFolder } from "../Layers/Platform/PrivateFiles.js"
import * as Tracing from "../Layers/Platform/Tracing.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"

/** An email was not delivered; `retryable` says whether the same message may go through later. */
export class MailDeliveryError extends Schema.TaggedError<MailDeliveryError>()("MailDeliveryError", {
  message: Schema.String,
  retryable: Schema.Boolean
}) {}

/**
 * RFC 5321: a 5xx reply is permanent, except 503 (bad sequence: the session, not the message);
 * a 4xx one is transient. Without a reply, a failed connection is worth a retry; anything else
 * (no recipient, bad configuration) would fail again the same way.
 */
const TRANSIENT_CODES = new Set(["ECONNECTION", "ESOCKET", "ETIMEDOUT", "EDNS", "ECONNREFUSED", "ECONNRESET"])

const deliveryError = (cause: unknown): MailDeliveryError => {
  const error = cause as NodemailerError
  const reply = error.responseCode
  const retryable = reply !== undefined
    ? reply < 500 || reply >= 600 || reply === 503
    : TRANSIENT_CODES.has(error.code ?? "") || TRANSIENT_CODES.has(error.originalCode ?? "")
  return new MailDeliveryError({ message: `mail not delivered: ${error.message ?? String(cause)}`, retryable })
}

/**
 * A nodemailer transport, made at the first email: nodemailer is megabytes of every instance's memory,
 * and most instances send mail rarely. Closed with the layer's scope, if it was ever made.
 */
const lazyTransport = (options: Parameters<typeof import("nodemailer").createTransport>[0]) =>
  Effect.gen(function*() {
    let made: Transporter | undefined
    yield* Effect.addFinalizer(() => Effect.sync(() => made?.close()))
    return yield* Effect.cached(Effect.promise(async () => {
      const { default: nodemailer } = await import("nodemailer")
      made = nodemailer.createTransport(options)
      return made
    }))
  })

/** The same nodemailer message for the SMTP transport and the .eml files. */
const mailOptions = (from: string, message: MailMessage): SendMailOptions => ({
  from,
  to: message.to,
  subject: message.subject,
  text: message.text,
  html: message.html,
  messageId: messageIdHeader(message.messageId, from),
  attachments: message.attachments.map((a) => ({
    filename: a.filename,
    contentType: a.contentType,
    content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength)
  }))
})

/** `smtp://user:secret@host:25` without its credentials, for the start-up log. */
const withoutCredentials = (url: Redacted.Redacted): string => {
  try {
    const parsed = new URL(Redacted.value(url))
    return `${parsed.protocol}//${parsed.host}`
  } catch {
    return "(unparseable SMTP_URL)"
  }
}

/** Guest emails: through SMTP or into .eml files. */
export class Mailer extends Context.Service<Mailer, {
  readonly send: (message: MailMessage) => Effect.Effect<void, MailDeliveryError>
}>()("Mailer") {
  /** Through the SMTP server of `url`; a dead server fails within seconds, not minutes. */
  static readonly smtp = (options: { readonly url: Redacted.Redacted; readonly from: string }) =>
    Layer.effect(
      Mailer,
      Effect.gen(function*() {
        const transport = yield* lazyTransport({
          url: Redacted.value(options.url),
          connectionTimeout: 5_000,
          greetingTimeout: 5_000,
          socketTimeout: 15_000,
          dnsTimeout: 5_000
        })
        return {
          send: Tracing.fn("Mailer.send", { kind: "client" })(function*(message: MailMessage) {
            yield* Tracing.annotate({ "mail.message_id": message.messageId })
            const smtp = yield* transport
            yield* Effect.tryPromise({
              try: () => smtp.sendMail(mailOptions(options.from, message)),
              catch: deliveryError
            })
          })
        }
      })
    )

  /**
   * Each message as an RFC 822 file `<dir>/<timestamp>-<id>.eml`, the bytes SMTP would carry:
   * without a mail server, a developer still sees every email. Written to a temporary name and
   * renamed, so a reader never sees half a file. The folder and its files are the service user's
   * alone: an email holds a live manage link.
   */
  static readonly files = (options: { readonly dir: string; readonly from: string }) =>
    Layer.effect(
      Mailer,
      Effect.gen(function*() {
        yield* Effect.sync(() => privateFolder(options.dir))
        const transport = yield* lazyTransport({ streamTransport: true, buffer: true, newline: "windows" })
        const write = (file: string, bytes: Buffer) =>
          Effect.tryPromise({
            try: async () => {
              const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`
              await fs.writeFile(temporary, bytes, { mode: PRIVATE_FILE })
              await fs.rename(temporary, file)
            },
            // a full or read-only disk can be fixed while the outbox keeps retrying
            catch: (cause) => new MailDeliveryError({ message: `mail file not written: ${String(cause)}`, retryable: true })
          })
        return {
          send: Tracing.fn("Mailer.send", { kind: "client" })(function*(message: MailMessage) {
            yield* Tracing.annotate({ "mail.message_id": message.messageId })
            const stream = yield* transport
            const info = yield* Effect.tryPromise({
              try: () => stream.sendMail(mailOptions(options.from, message)),
              catch: deliveryError
            })
            const now = new Date(yield* Clock.currentTimeMillis).toISOString().replace(/[:.]/g, "-")
            yield* write(path.join(options.dir, `${now}-${message.messageId}.eml`), info.message as Buffer) // `buffer: true`
          })
        }
      })
    )

  /** SMTP when `SMTP_URL` is set, else .eml files under `DATA_DIR/mail`; says which at start. From `MAIL_FROM`, else the hotel. */
  static readonly layer = Layer.unwrap(
    Effect.gen(function*() {
      const config = yield* AppConfig
      // built after the migrations, which import the hotel into an empty database
      const from = Option.isSome(config.mailFrom) ? config.mailFrom.value : yield* Effect.map(
        Effect.orDie((yield* HotelRepo).load),
        (hotel) => `${hotel.name} <${hotel.contact.email}>`
      )
      if (Option.isSome(config.smtpUrl)) {
        yield* Effect.logInfo(`mail: sending through ${withoutCredentials(config.smtpUrl.value)}`)
        return Mailer.smtp({ url: config.smtpUrl.value, from })
      }
      const dir = path.join(config.dataDir, "mail")
      yield* Effect.logInfo(`mail: writing .eml files to ${dir} (SMTP_URL unset)`)
      return Mailer.files({ dir, from })
    })
  )
}
