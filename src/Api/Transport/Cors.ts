import { HttpServerResponse } from "effect/http"
import type { IncomingMessage } from "node:http"
import type { AnswerHeaders } from "./ApiResponse.js"
import { pathOf } from "./RequestObservation.js"

/** The public read and quote endpoints, which any web page may call (no credentials); never the token endpoints. */
const CORS_PATHS = new Set([
  "/",
  "/v1",
  "/v1/health",
  "/v1/hotel",
  "/v1/room-types",
  "/v1/availability",
  "/v1/quote",
  "/v1/quotes",
  "/openapi.json",
  "/.well-known/api-catalog"
])

/** What every answer says: its body is what its content type says, and no page it links to learns where the link was. */
const EVERY_ANSWER: AnswerHeaders = { "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" }
const CORS_ANSWER: AnswerHeaders = {
  ...EVERY_ANSWER,
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "ratelimit, ratelimit-policy, retry-after"
}

/**
 * The headers of every answer to `request`, with CORS's on a CORS endpoint's, which the admission
 * gives its response (`ApiResponse`): free, where the platform's `cors` middleware would add a
 * response hook to every request, CORS endpoint or not.
 */
export const answerHeaders = (request: IncomingMessage): AnswerHeaders =>
  CORS_PATHS.has(pathOf(request.url ?? "")) ? CORS_ANSWER : EVERY_ANSWER

/**
 * A browser's preflight for a CORS endpoint. No route takes OPTIONS, so it is answered where its
 * 404 would be, at no cost to other requests; any other OPTIONS stays a 404.
 */
export const isPreflight = (method: string, path: string) => method === "OPTIONS" && CORS_PATHS.has(path)

/** The answer to a preflight: the headers the platform's `cors` middleware would give it, fixed. */
export const preflight = HttpServerResponse.empty({
  status: 204,
  headers: {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "GET, POST, OPTIONS",
    "access-control-allow-headers": "content-type, x-hotel-client, x-ai-agent, x-hotel-session",
    "access-control-max-age": "86400"
  }
})
