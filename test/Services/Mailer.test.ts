import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { simpleParser } from "mailparser"
import * as fs from "node:fs/promises"
import { createServer, type AddressInfo, type Server, type Socket } from "node:net"
import * as path from "node:path"
import { confirmationEmail } from "../../src/Domain/GuestEmails.js"
import type { MailMessage } from "../../src/Domain/Mail.js"
import { HotelRepo } from "../../src/Layers/Persistence/HotelRepo.js"
import { AppConfig } from "../../src/Layers/Platform/AppConfig.js"
import { MailDeliveryError, Mailer } from "../../src/Services/Mailer.js"
import { temporaryDataDir } from "../support/database.js"
import { demoHotel } from "../support/hotel.js"
import { inMemoryMailer, MailerInMemory } from "../support/outsideSystems.js"
import { completedReservation } from "../support/reservation.js"
import { closedPort, smtpServer } from "../support/smtp.js"

const from = "Hôtel Belle Rive <reservations@belle-rive-nice.example>"
const manageUrl = "http://127.0.0.1:3000/manage#token=QuvYn1pAQmivYoiZLfuZt2OM23Fs98LMd8xAzGXSpLo"
const pdfBytes = new Uint8Array(Buffer.from("%PDF-1.7\n% a confirmation\n%%EOF\n"))
const message: MailMessage = {
  ...confirmationEmail(demoHotel, completedReservation("fr"), manageUrl, { filename: "BR-7K3Q9X.pdf", content: pdfBytes }),
  messageId: "job-42"
}

/** A TCP server that accepts connections and never says a word: an SMTP server that hangs. */
const silentServer = Effect.acquireRelease(
  Effect.callback<{ readonly server: Server; readonly sockets: Array<Socket>; readonly url: string }>((resume) => {
    const sockets: Array<Socket> = []
    const server = createServer((socket) => void sockets.push(socket))
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({ server, sockets, url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}` })))
  }),
  ({ server, sockets }) =>
    Effect.callback<void>((resume) => {
      sockets.forEach((socket) => socket.destroy())
      server.close(() => resume(Effect.void))
    })
)

const send = (mail: MailMessage) => Effect.flatMap(Mailer, (mailer) => mailer.send(mail))

/** What a mail client makes of the raw message: the confirmation, every part of it. */
const expectConfirmation = async (raw: Buffer) => {
  const parsed = await simpleParser(raw)
  expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value : []).toEqual([
    { name: "Jeanne Dupont", address: "jeanne.dupont@example.org" }
  ])
  expect(parsed.from?.value).toEqual([{ name: "Hôtel Belle Rive", address: "reservations@belle-rive-nice.example" }])
  expect(parsed.subject).toBe("Votre réservation BR-7K3Q9X est confirmée – Hôtel Belle Rive")
  expect(parsed.messageId).toBe("<job-42@belle-rive-nice.example>")
  expect(parsed.text).toContain("Numéro de réservation : BR-7K3Q9X")
  expect(parsed.text).toContain(manageUrl)
  expect(parsed.html || "").toContain("BR-7K3Q9X")
  expect(parsed.html || "").toContain(`href="${manageUrl}"`)
  expect(parsed.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType }))).toEqual([
    { filename: "BR-7K3Q9X.pdf", contentType: "application/pdf" }
  ])
  expect(new Uint8Array(parsed.attachments[0]!.content)).toEqual(pdfBytes)
}

describe("Mailer.smtp", () => {
  it.live("delivers the confirmation, subject, bodies, PDF and Message-ID, to a real SMTP server", () =>
    Effect.gen(function*() {
      const smtp = yield* smtpServer()
      yield* send(message).pipe(Effect.provide(Mailer.smtp({ url: Redacted.make(smtp.url), from })))
      expect(smtp.received).toHaveLength(1)
      expect(smtp.received[0]!.envelopeTo).toEqual(["jeanne.dupont@example.org"])
      yield* Effect.promise(() => expectConfirmation(smtp.received[0]!.raw))
    }))

  it.live("a server that is down is a retryable MailDeliveryError at once", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const error = yield* send(message).pipe(
        Effect.provide(Mailer.smtp({ url: Redacted.make(`smtp://127.0.0.1:${port}`), from })),
        Effect.flip
      )
      expect(error).toBeInstanceOf(MailDeliveryError)
      expect(error.retryable).toBe(true)
    }))

  it.live("a server that never greets is a retryable error after the greeting timeout, not a hang", () =>
    Effect.gen(function*() {
      const silent = yield* silentServer
      const [elapsed, error] = yield* send(message).pipe(
        Effect.provide(Mailer.smtp({ url: Redacted.make(silent.url), from })),
        Effect.flip,
        Effect.timed
      )
      expect(error.retryable).toBe(true)
      expect(Duration.toMillis(elapsed)).toBeLessThan(10_000)
    }), 20_000)

  it.live("a 4xx reply is worth retrying, a 5xx reply is not", () =>
    Effect.gen(function*() {
      for (const [code, retryable] of [[451, true], [550, false]] as const) {
        const smtp = yield* smtpServer({ rejectWith: code })
        const error = yield* send(message).pipe(Effect.provide(Mailer.smtp({ url: Redacted.make(smtp.url), from })), Effect.flip)
        expect({ code, retryable: error.retryable }).toEqual({ code, retryable })
        expect(smtp.received).toHaveLength(0)
      }
    }))
})

describe("Mailer.files", () => {
  it.live("writes each message as a parseable .eml file, never leaving a partial one", () =>
    Effect.gen(function*() {
      const dir = path.join(yield* temporaryDataDir, "mail")
      yield* send(message).pipe(Effect.provide(Mailer.files({ dir, from })))
      const files = yield* Effect.promise(() => fs.readdir(dir))
      expect(files).toHaveLength(1)
      expect(files[0]).toMatch(/^\d{4}-\d{2}-\d{2}T[\d-]+Z-job-42\.eml$/)
      yield* Effect.promise(async () => expectConfirmation(await fs.readFile(path.join(dir, files[0]!))))
    }))

  it.live("the folder is 0700 and each .eml 0600, also where an older start left them readable by others", () =>
    Effect.gen(function*() {
      const dir = path.join(yield* temporaryDataDir, "mail")
      yield* Effect.promise(async () => {
        await fs.mkdir(dir, { mode: 0o755 })
        await fs.chmod(dir, 0o755)
        await fs.writeFile(path.join(dir, "older.eml"), "a live manage link", { mode: 0o644 })
        await fs.chmod(path.join(dir, "older.eml"), 0o644)
      })
      yield* send(message).pipe(Effect.provide(Mailer.files({ dir, from })))
      const modes = yield* Effect.promise(async () => {
        const files = await fs.readdir(dir)
        const modeOf = async (file: string) => (await fs.stat(file)).mode & 0o777
        return { folder: await modeOf(dir), files: await Promise.all(files.sort().map(async (file) => [file, await modeOf(path.join(dir, file))])) }
      })
      expect(modes).toEqual({ folder: 0o700, files: [[expect.stringMatching(/-job-42\.eml$/), 0o600], ["older.eml", 0o600]] })
    }))

  it.live("Mailer.layer writes under DATA_DIR/mail when SMTP_URL is unset, from the hotel when MAIL_FROM is", () =>
    Effect.gen(function*() {
      const dataDir = yield* temporaryDataDir
      const hotel = { ...demoHotel, name: "Hôtel Second", contact: { ...demoHotel.contact, email: "desk@second.example" } }
      yield* send(message).pipe(
        Effect.provide(Mailer.layer.pipe(Layer.provide([
          AppConfig.InMemory({ dataDir, smtpUrl: Option.none(), mailFrom: Option.none() }),
          HotelRepo.InMemory(hotel)
        ])))
      )
      const files = yield* Effect.promise(() => fs.readdir(path.join(dataDir, "mail")))
      expect(files).toHaveLength(1)
      const parsed = yield* Effect.promise(async () => simpleParser(await fs.readFile(path.join(dataDir, "mail", files[0]!))))
      expect(parsed.from?.value).toEqual([{ name: "Hôtel Second", address: "desk@second.example" }])
    }))
})

describe("inMemoryMailer", () => {
  it.effect("records what was sent, and fails the next sends when told to", () =>
    Effect.gen(function*() {
      const mailbox = yield* MailerInMemory
      yield* mailbox.failNext(1, new MailDeliveryError({ message: "server busy", retryable: true }))
      const failed = yield* send(message).pipe(Effect.flip)
      expect(failed.retryable).toBe(true)
      expect(yield* mailbox.sent).toEqual([])
      yield* send(message)
      expect((yield* mailbox.sent).map((m) => m.messageId)).toEqual(["job-42"])
    }).pipe(Effect.provide(inMemoryMailer)))
})
