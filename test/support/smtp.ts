import { Effect } from "effect"
import { type AddressInfo, createServer } from "node:net"
import { SMTPServer, type SMTPServerAddress } from "smtp-server"

export interface Received {
  readonly envelopeTo: ReadonlyArray<string>
  readonly raw: Buffer
  /** When the message's last byte arrived (performance.now()). */
  readonly at: number
}

interface SmtpServerOptions {
  /** Refuse every recipient with this reply code. */
  readonly rejectWith?: number
  /** Listen on this port (e.g. one a mailer already points at); a free one when unset. */
  readonly port?: number
  /** Where to keep the messages, e.g. one array across a restart of the server. */
  readonly received?: Array<Received>
}

/** A real SMTP server on 127.0.0.1, for the scope. */
export const smtpServer = (options: SmtpServerOptions = {}) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly server: SMTPServer; readonly url: string; readonly received: Array<Received> }>((resume) => {
      const received = options.received ?? []
      const server = new SMTPServer({
        authOptional: true,
        disabledCommands: ["STARTTLS"],
        logger: false,
        onRcptTo: (_address: SMTPServerAddress, _session, callback) =>
          options.rejectWith === undefined
            ? callback()
            : callback(Object.assign(new Error("mailbox unavailable"), { responseCode: options.rejectWith })),
        onData: (stream, session, callback) => {
          const chunks: Array<Buffer> = []
          stream.on("data", (chunk: Buffer) => chunks.push(chunk)).on("end", () => {
            received.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks), at: performance.now() })
            callback()
          })
        }
      })
      server.listen(options.port ?? 0, "127.0.0.1", () => {
        const { port } = server.server.address() as AddressInfo
        resume(Effect.succeed({ server, url: `smtp://127.0.0.1:${port}`, received }))
      })
    }),
    ({ server }) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
  )

/** A port nothing listens on. */
export const closedPort = Effect.callback<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})
