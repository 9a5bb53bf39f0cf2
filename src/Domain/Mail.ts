import { Schema } from "effect"

export const MailAddress = Schema.Struct({
  name: Schema.String,
  address: Schema.String
}).annotate({ identifier: "MailAddress" })
export type MailAddress = typeof MailAddress.Type

export const MailAttachment = Schema.Struct({
  filename: Schema.String,
  contentType: Schema.String,
  /** Base64 when encoded, so a composed message can be stored as JSON. */
  content: Schema.Uint8ArrayFromBase64
}).annotate({ identifier: "MailAttachment" })
export type MailAttachment = typeof MailAttachment.Type

/** What an email says, to whom: the composers' output. */
export const MailContent = Schema.Struct({
  to: MailAddress,
  subject: Schema.String,
  text: Schema.String,
  html: Schema.String,
  attachments: Schema.Array(MailAttachment)
}).annotate({ identifier: "MailContent" })
export type MailContent = typeof MailContent.Type

/**
 * A stable identifier of one email, e.g. the outbox job's id. The mailer makes the Message-ID
 * header `<id@sender's domain>` from it, so a retried delivery carries the same Message-ID and
 * the receiving side can recognise the duplicate.
 */
export const MailId = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[A-Za-z0-9._-]{1,128}$/u, { message: "must be 1 to 128 letters, digits, '.', '_' or '-'" })),
  Schema.annotate({ identifier: "MailId" })
)

/** An outgoing email. */
export const MailMessage = Schema.Struct({
  ...MailContent.fields,
  messageId: MailId
}).annotate({ identifier: "MailMessage" })
export type MailMessage = typeof MailMessage.Type

/** The Message-ID header of a message sent from `from` (an address, or `Name <address>`). */
export const messageIdHeader = (id: string, from: string): string => {
  const address = (/<([^>]+)>/.exec(from)?.[1] ?? from).trim()
  const at = address.lastIndexOf("@")
  return `<${id}@${at >= 0 ? address.slice(at + 1) : "localhost"}>`
}
