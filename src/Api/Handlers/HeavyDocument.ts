/**
 * A large document that changes only with a new version of the service (`/openapi.json`, `/docs/`):
 * compressed once, then served compressed as the client accepts it, with an `ETag` that answers a
 * repeated request 304 without a body. Compressing per request would cost more CPU than the
 * request, and serving it plain would hold megabytes per unread answer.
 */
import { Effect, Record } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { createHash } from "node:crypto"
import { promisify } from "node:util"
import { brotliCompress, constants, gzip } from "node:zlib"

/** A browser or client may keep it this long before asking again (a 304 when unchanged). */
const CACHE_CONTROL = "public, max-age=300"

/** The content codings served, best first. */
const CODINGS = ["br", "gzip"] as const
type Coding = typeof CODINGS[number]

const compress: { readonly [C in Coding]: (body: Uint8Array) => Promise<Uint8Array> } = {
  // quality 6: about the size of the default 11 in a fiftieth of its time (docs/limits.md, "Heavy answers")
  br: (body) => promisify(brotliCompress)(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 6 } }),
  gzip: (body) => promisify(gzip)(body, { level: 9 })
}

/** The codings an `Accept-Encoding` header accepts (`q=0` refuses one; `*` accepts any). */
const acceptedCodings = (header: string | undefined): ReadonlySet<string> => {
  const accepted = new Set<string>()
  for (const part of (header ?? "").toLowerCase().split(",")) {
    const [name = "", ...parameters] = part.split(";").map((s) => s.trim())
    const q = parameters.find((p) => p.startsWith("q="))
    if (q === undefined || Number(q.slice(2)) > 0) accepted.add(name)
  }
  return accepted
}

/** Whether an `If-None-Match` header names this tag (compared weakly, as for a GET). */
const matches = (header: string | undefined, etag: string) =>
  header !== undefined &&
  header.split(",").some((tag) => {
    const candidate = tag.trim()
    return candidate === "*" || candidate.replace(/^W\//, "") === etag.replace(/^W\//, "")
  })

/** The answer to a GET: 304 to a client that has it, else the form it accepts best. */
const answer = (contentType: string, body: Uint8Array, forms: { readonly [C in Coding]: Uint8Array }, own: Record<string, string>) => {
  // weak: the br, gzip and plain forms are the same document
  const etag = `W/"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`
  const headers = { "cache-control": CACHE_CONTROL, ...own, etag, vary: "Accept-Encoding" }
  return HttpServerRequest.HttpServerRequest.useSync((request) => {
    if (matches(request.headers["if-none-match"], etag)) return HttpServerResponse.empty({ status: 304, headers })
    const accepted = acceptedCodings(request.headers["accept-encoding"])
    const coding = CODINGS.find((c) => accepted.has(c) || accepted.has("*"))
    return coding === undefined
      ? HttpServerResponse.uint8Array(body, { contentType, headers })
      : HttpServerResponse.uint8Array(forms[coding], { contentType, headers: { ...headers, "content-encoding": coding } })
  })
}

/**
 * The handler of GETs of the document, which is compressed here, once; `headers` are its own (a
 * `cache-control` of its own replaces the documents' five minutes).
 */
export const heavyDocument = (contentType: string, body: Uint8Array, headers: Record<string, string> = {}) =>
  Effect.map(
    Effect.all(Record.map(compress, (compressed) => Effect.promise(() => compressed(body)))),
    (forms) => answer(contentType, body, forms, headers)
  )
