import { HttpServerResponse } from "effect/http"
import type { IncomingMessage, ServerResponse } from "node:http"
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

/**
 * The CORS headers of every response of a CORS endpoint, set on the Node response before the
 * application writes its head (Node merges them in): free, where the platform's `cors` middleware
 * would add a response hook to every request, CORS endpoint or not.
 */
export const allowCrossOrigin = (request: IncomingMessage, response: ServerResponse) => {
  if (CORS_PATHS.has(pathOf(request.url ?? ""))) {
    response.setHeader("access-control-allow-origin", "*")
    response.setHeader("access-control-expose-headers", "ratelimit, ratelimit-policy, retry-after")
  }
}

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
