import { Effect, Option, Schema, SchemaIssue, SchemaParser, SchemaTransformation, Struct } from "effect"
import { HttpServerResponse } from "effect/http"
import { isDeepStrictEqual } from "node:util"
import {
  AlreadyCancelled,
  AvailabilityChanged,
  CancellationNotAllowed,
  ChangeNotAllowed,
  GroupBookingRequired,
  GroupStayChange,
  IdempotencyInProgress,
  IdempotencyKeyReused,
  InvalidMessage,
  MessageIdReused,
  InvalidPromoCode,
  InvalidToken,
  NotFound,
  PriceChanged,
  QuoteExpired,
  QuoteNotReservable,
  RateLimited,
  ReservationNotPending,
  ServiceUnavailable,
  ValidationCode,
  ValidationError
} from "../../Domain/Errors.js"
import { ChangeDetails } from "../../Domain/Reservation.js"

/** The one error shape of every non-2xx answer (spec: Error). */
export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: Schema.String.annotate({ description: "Stable machine-readable code", examples: ["invalid_dates"] }),
    message: Schema.String.annotate({ description: "What went wrong, naming the field" }),
    // an object of its own fields, documented as such
    details: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown).annotate({
      description: "What a client needs to act on the error (e.g. the new total of a 409 price_changed)"
    }))
  })
}).annotate({
  identifier: "Error",
  examples: [{ error: { code: "invalid_dates", message: "checkout must be after checkin" } }]
})
export type ErrorBody = typeof ErrorBody.Type

/** One field of a request that breaks its schema, and what is wrong with it. */
interface DecodeIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const ACTUAL = ", actual "

/** Schema's own words, as clients have always read them: `is missing`, `is unexpected`, `Expected …, actual …`. */
const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) => {
    const message = SchemaIssue.defaultLeafHook(issue)
    if (issue._tag === "MissingKey" && message === "Missing key") return "is missing"
    if (issue._tag === "UnexpectedKey" && (message === "Expected no excess property" || message.startsWith("Unexpected key"))) {
      return "is unexpected"
    }
    return message
  }
})

/** Every issue of a failed decoding, by the path of its field. */
const decodeIssues = (issue: SchemaIssue.Issue): ReadonlyArray<DecodeIssue> =>
  formatIssue(issue).issues.map(({ message, path }) => ({
    path: (path ?? []).map((segment) => typeof segment === "object" ? segment.key : segment),
    message: message.startsWith("Expected ") ? message.replace(", got ", ACTUAL) : message
  }))

/** The first issue found for each field (later ones repeat it for other union members), the field named by `pathOf`. */
const firstIssuePerField = (issues: ReadonlyArray<DecodeIssue>, pathOf: (path: ReadonlyArray<PropertyKey>) => string) => {
  const byField = new Map<string, string>()
  for (const issue of issues) {
    const field = issue.path.length > 0 ? pathOf(issue.path) : "request"
    if (!byField.has(field)) byField.set(field, issue.message)
  }
  return [...byField].map(([path, message]) => ({ path, message }))
}

/** How much of a bad value an issue quotes: enough to recognise it, never a megabyte echoed back. */
const MAX_QUOTED_CHARACTERS = 100

/** At most `max` characters of a value sent (an ellipsis says when there were more). */
export const quote = (text: string, max = MAX_QUOTED_CHARACTERS) => text.length <= max ? text : `${text.slice(0, max)}…`

/** An issue's message, where it quotes the bad value (`…, actual "…"`), with at most 100 characters of it. */
const quoteActual = (message: string) => {
  const at = message.indexOf(ACTUAL)
  return at === -1 ? message : message.slice(0, at + ACTUAL.length) + quote(message.slice(at + ACTUAL.length))
}

/**
 * The message of a request that breaks its schema (the issue of its `SchemaError`): one per field,
 * the first issue found for it; undefined when no issue names anything. An unknown key and a bad
 * value are quoted, at most 100 characters of each (the value is there when the decoding was asked
 * to report it: `reportInput`).
 */
export const describeIssues = (issue: SchemaIssue.Issue): string | undefined => {
  const fields = firstIssuePerField(decodeIssues(issue), (path) => path.map((key) => quote(String(key))).join("."))
  return fields.length === 0 ? undefined : fields.map(({ message, path }) => `${path}: ${quoteActual(message)}`).join("; ")
}

/** A path as a client's code spells it: `updates[3].min_stay`; an unknown key is the client's text, quoted as such. */
const bracketPath = (path: ReadonlyArray<PropertyKey>) =>
  path.map((key, i) => typeof key === "number" ? `[${key}]` : `${i === 0 ? "" : "."}${quote(String(key))}`).join("")

/** Each field of a channel request that breaks its schema, by its path, as `InvalidMessage` lists them. */
export const pathIssues = (issue: SchemaIssue.Issue) =>
  firstIssuePerField(decodeIssues(issue), bracketPath).map(({ message, path }) => ({ path, message: quoteActual(message) }))

/** An error class of the domain or the transport: a schema of its instances, made from its fields. */
interface ErrorClass<E extends { readonly message: string }> extends Schema.Codec<E, unknown> {
  /** Checks its fields: throws when one breaks its schema. The props differ per class, hence `any`. */
  new(props: any): E
  readonly identifier: string
}

/** The fields of an error carried as `error.details` as they are (no conversion), in the order given. */
const detailFields = <Fields extends Schema.Struct.Fields, const Keys extends ReadonlyArray<keyof Fields>>(
  ErrorClass: { readonly fields: Fields },
  ...keys: Keys
) => Schema.Struct(Struct.pick(ErrorClass.fields, keys))

/** A body as JSON carries it: a key whose value is undefined is not sent. */
const asSent = (body: ErrorBody): unknown => JSON.parse(JSON.stringify(body))

/**
 * An error on the wire: encoded as the `Error` body with `code`, decoded back to the error's class
 * (for typed clients); its HTTP status is declared here, once, and endpoints only list the error.
 * `details` is the schema of the fields carried as `error.details`, the same both ways (e.g. an
 * amount in cents sent in euros). The documents name the body after the class.
 *
 * A body decodes to this class only if the class would have sent exactly that body (same code, same
 * details): a status shared by several errors of an endpoint (a 409, a 400) is told apart by them, as
 * the client's union tries each error of the status in turn.
 */
export const errorBody = <E extends { readonly message: string } & D, D = unknown>(
  ErrorClass: ErrorClass<E>,
  status: number,
  description: string,
  code: (error: E) => string,
  details?: Schema.Codec<D, { readonly [field: string]: unknown }>,
  /** The body as the wire carries it, for the OpenAPI document (otherwise the generic `Error` example). */
  example?: ErrorBody
) => {
  const encodeDetails = details === undefined ? undefined : SchemaParser.encodeUnknownEffect(details)
  const decodeDetails = details === undefined ? undefined : SchemaParser.decodeUnknownEffect(details)
  const encode = (error: E): Effect.Effect<ErrorBody, SchemaIssue.Issue> =>
    encodeDetails === undefined
      ? Effect.succeed({ error: { code: code(error), message: error.message } })
      : Effect.map(encodeDetails(error), (extra) => ({ error: { code: code(error), message: error.message, details: extra } }))
  const refused = (body: ErrorBody, message: string) => new SchemaIssue.InvalidValue({ message }, body)
  const decode = (body: ErrorBody) =>
    Effect.gen(function*() {
      const carried = decodeDetails === undefined ? {} : yield* decodeDetails(body.error.details)
      // `code` is a field of ValidationError; a class without one leaves it out, as it does an unknown key
      const candidate = yield* Effect.try({
        try: () => new ErrorClass({ ...carried, code: body.error.code, message: body.error.message }),
        catch: (e) => refused(body, String(e))
      })
      const sent = yield* encode(candidate)
      return isDeepStrictEqual(asSent(sent), asSent(body))
        ? candidate
        : yield* Effect.fail(refused(body, `not a body that ${ErrorClass.identifier} sends (code ${code(candidate)})`))
    })
  return ErrorBody.annotate({
    identifier: ErrorClass.identifier,
    description,
    ...(example === undefined ? {} : { examples: [example] })
  }).pipe(
    Schema.decodeTo(Schema.toType(ErrorClass), SchemaTransformation.transformEffect({ decode, encode })),
    // `errorCode`: the code of an error of the class, for what counts errors by their code (`conflictCodeOf`)
    Schema.annotate({ description, httpApiStatus: status, errorCode: code })
  )
}

/**
 * The answer to an error raised outside the API's endpoints (by the transport: an unknown route, a
 * body too large): the body and status of the first of these `errorBody` schemas that is the
 * error's; none when no schema is.
 */
export const errorResponse = (bodies: ReadonlyArray<Schema.Codec<unknown, unknown>>) => {
  const encoders = bodies.map((body) => ({
    is: Schema.is(Schema.toType(body)),
    encode: SchemaParser.encodeUnknownEffect(body),
    status: Schema.resolveAnnotations(body)?.httpApiStatus ?? 500
  }))
  return (error: unknown): Effect.Effect<Option.Option<HttpServerResponse.HttpServerResponse>> => {
    const encoder = encoders.find(({ is }) => is(error))
    return encoder === undefined
      ? Effect.succeedNone
      : encoder.encode(error).pipe(
        Effect.map((body) => Option.some(HttpServerResponse.jsonUnsafe(body, { status: encoder.status }))),
        Effect.orElseSucceed(() => Option.none())
      )
  }
}

export const ValidationErrorBody = errorBody(
  ValidationError,
  400,
  `Invalid request. error.code: ${ValidationCode.literals.join(", ")}`,
  (e) => e.code
)
export const InvalidPromoCodeBody = errorBody(
  InvalidPromoCode,
  400,
  "The promo_code cannot be used: details.reason is unknown, not_active (switched off or outside its booking dates) " +
    "or used_up. Quote again without it. error.code: invalid_promo_code",
  () => "invalid_promo_code",
  detailFields(InvalidPromoCode, "reason")
)
export const InvalidMessageBody = errorBody(
  InvalidMessage,
  400,
  "The request breaks its schema or a bound; nothing was applied. details.issues names each bad field by its path " +
    "(updates[3].min_stay) with what is wrong. error.code: invalid_request",
  () => "invalid_request",
  detailFields(InvalidMessage, "issues"),
  {
    error: {
      code: "invalid_request",
      message: "the message was not applied: updates[3].min_stay: Expected a number between 1 and 30, actual 31",
      details: { issues: [{ path: "updates[3].min_stay", message: "Expected a number between 1 and 30, actual 31" }] }
    }
  }
)
export const MessageIdReusedBody = errorBody(
  MessageIdReused,
  422,
  "The message_id was already used by a message with another body: nothing was applied. A message is sent again with " +
    "its id and the same body; a new message takes a new id. error.code: message_id_reused",
  () => "message_id_reused",
  detailFields(MessageIdReused, "message_id")
)
export const NotFoundBody = errorBody(NotFound, 404, "No such resource. error.code: not_found", () => "not_found")
export const ServiceUnavailableBody = errorBody(
  ServiceUnavailable,
  503,
  "A dependency (the database) does not answer, or did not within its deadline; nothing was changed. Retry after the " +
    "Retry-After header's seconds (also details.retry_after_seconds). error.code: unavailable",
  () => "unavailable",
  detailFields(ServiceUnavailable, "retry_after_seconds"),
  {
    error: {
      code: "unavailable",
      message: "the database is unavailable just now: nothing was changed; retry in 2 s",
      details: { retry_after_seconds: 2 }
    }
  }
)

export const InvalidTokenBody = errorBody(
  InvalidToken,
  401,
  "The token is unknown, expired or not for this resource. error.code: invalid_token",
  () => "invalid_token"
)

export const QuoteExpiredBody = errorBody(
  QuoteExpired,
  409,
  "The quote's expires_at has passed: quote again. error.code: quote_expired",
  () => "quote_expired",
  detailFields(QuoteExpired, "quote_id", "expired_at")
)
export const QuoteNotReservableBody = errorBody(
  QuoteNotReservable,
  409,
  "The quote cannot be reserved (no such package, or no longer available). error.code: quote_not_reservable",
  () => "quote_not_reservable",
  detailFields(QuoteNotReservable, "quote_id")
)
export const GroupBookingRequiredBody = errorBody(
  GroupBookingRequired,
  409,
  "The quote asks for more rooms than one reservation may hold (the quote said so: reservable false): details give " +
    "reason group_booking, max_rooms, requested_rooms and the hotel's contact, who books groups. error.code: quote_not_reservable",
  () => "quote_not_reservable",
  detailFields(GroupBookingRequired, "quote_id", "reason", "max_rooms", "requested_rooms", "contact")
)
export const GroupStayChangeBody = errorBody(
  GroupStayChange,
  400,
  "The new stay asks for more rooms than one reservation may hold: details give reason group_booking, max_rooms, " +
    "requested_rooms and the hotel's contact, who books groups. error.code: invalid_request",
  () => "invalid_request",
  detailFields(GroupStayChange, "reason", "max_rooms", "requested_rooms", "contact")
)
export const IdempotencyKeyReusedBody = errorBody(
  IdempotencyKeyReused,
  422,
  "The Idempotency-Key was used with another body. error.code: idempotency_key_reused",
  () => "idempotency_key_reused"
)
export const IdempotencyInProgressBody = errorBody(
  IdempotencyInProgress,
  409,
  "The first request with this Idempotency-Key is still running: retry shortly. error.code: idempotency_in_progress",
  () => "idempotency_in_progress"
)

/** An availability change carries no totals: the wire's ChangeDetails with both null (any other is not this error's body). */
const AvailabilityDetails = ChangeDetails.pipe(
  Schema.decodeTo(
    Schema.toType(ChangeDetails.mapFields(Struct.omit(["previous_total", "new_total"]))),
    SchemaTransformation.transform({
      decode: ({ currency, rooms }) => ({ currency, rooms }),
      encode: ({ currency, rooms }) => ({ previous_total: null, new_total: null, currency, rooms })
    })
  )
)

export const AvailabilityChangedBody = errorBody(
  AvailabilityChanged,
  409,
  "Rooms are no longer available; details.rooms says which room request and why. error.code: availability_changed",
  () => "availability_changed",
  AvailabilityDetails,
  {
    error: {
      code: "availability_changed",
      message: "some rooms are not free for 2027-03-13 to 2027-03-16 (details.rooms): choose other dates or rooms; the reservation is unchanged",
      details: { previous_total: null, new_total: null, currency: "EUR", rooms: [{ room_index: 0, room_type_id: "deluxe", reason: "sold_out" }] }
    }
  }
)
export const PriceChangedBody = errorBody(
  PriceChanged,
  409,
  "The live total differs from expected_total; send the request again with details.new_total as expected_total to accept it. " +
    "error.code: price_changed",
  () => "price_changed",
  ChangeDetails,
  {
    error: {
      code: "price_changed",
      message: "the total changed from 498.60 to 512.40 EUR: send the request again with expected_total 512.40 to accept it",
      details: { previous_total: 498.6, new_total: 512.4, currency: "EUR", rooms: [{ room_index: 0, room_type_id: "double", reason: "price_changed" }] }
    }
  }
)
export const ReservationNotPendingBody = errorBody(
  ReservationNotPending,
  409,
  "The reservation is no longer pending (expired or cancelled). error.code: reservation_not_pending",
  () => "reservation_not_pending",
  detailFields(ReservationNotPending, "status")
)

export const CancellationNotAllowedBody = errorBody(
  CancellationNotAllowed,
  409,
  "The rate is non-refundable or the free-cancellation deadline has passed; details say which (reason non_refundable or " +
    "deadline_passed, as the manage view's refused_actions) and until when. error.code: cancellation_not_allowed",
  () => "cancellation_not_allowed",
  detailFields(CancellationNotAllowed, "reason", "refundable", "free_cancellation_until")
)
export const ChangeNotAllowedBody = errorBody(
  ChangeNotAllowed,
  409,
  "The stay cannot be changed: details.reason is non_refundable (the rate), deadline_passed (the free-cancellation " +
    "deadline of the current stay) or not_completed (cancelled); the message says whom to ask. error.code: change_not_allowed",
  () => "change_not_allowed",
  detailFields(ChangeNotAllowed, "reason"),
  {
    error: {
      code: "change_not_allowed",
      message: "the stay of reservation BR-7K3Q9X cannot be changed: changes were possible until 2027-03-10T14:00:00+01:00 " +
        "(hotel time); contact the hotel to change it",
      details: { reason: "deadline_passed" }
    }
  }
)
export const AlreadyCancelledBody = errorBody(
  AlreadyCancelled,
  409,
  "The reservation is already cancelled; nothing was changed. error.code: already_cancelled",
  () => "already_cancelled"
)
export const RateLimitedBody = errorBody(
  RateLimited,
  429,
  "Too many requests of this kind: retry after the Retry-After header's seconds. When the hotel itself can take " +
    "the booking (more room-nights than one address books online in 24 hours), details.contact gives its email and phone. " +
    "error.code: rate_limited",
  () => "rate_limited",
  detailFields(RateLimited, "retry_after_seconds", "contact")
)
