import type { IncomingMessage, ServerResponse } from "node:http"
import type { RequestLogLine } from "../../Layers/Platform/Logging.js"
import type { ApiResponse } from "./ApiResponse.js"
import { invalidRequestBody } from "./ClientErrors.js"
import type { Connections } from "./Connections.js"
import { answerHeaders } from "./Cors.js"
import type { Drain } from "./Drain.js"
import { observeResponse } from "./RequestObservation.js"

/** What serves a request once it is admitted: the application's handler. */
export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void

const ABSOLUTE_FORM = /^https?:\/\/[^/?#]*/i

/**
 * The path of an absolute-form target (`GET http://host/v1/hotel`, which HTTP/1.1 servers must
 * accept), any other target as it is: made so before anything reads it, such a request is
 * routed, limited and logged as its path.
 */
const originForm = (target: string): string => {
  const authority = ABSOLUTE_FORM.exec(target)
  if (authority === null) return target
  const rest = target.slice(authority[0].length)
  return rest.startsWith("/") ? rest : `/${rest}`
}

const upgradeRefused = JSON.stringify(invalidRequestBody("this server upgrades no connection: send the request without Upgrade"))

/**
 * What every request of the API's Node server goes through before the application sees it (the
 * server's only `request` listener):
 * - its connection counts as busy (`Connections`), and an absolute-form target becomes its path;
 * - nosniff and no-referrer are given to its answer, and CORS for the endpoints any origin may
 *   call (`ApiResponse` writes them into the head, whoever writes it: they are on the answers no
 *   application writes too, and cost less than a response hook in the application);
 * - while the server stops, its answer closes its connection (`Drain`);
 * - its answer is measured and logged (`observeResponse`), once `log` is set;
 * - one request at a time per connection: Node hands each request over as soon as its headers are
 *   parsed, pipelined ones too (2,000 on one unread socket ran 360–590 at once), and gives a
 *   pipelined request's response the connection once the answer before it is written in full:
 *   only then is it served, so a client that does not read holds back only itself;
 * - a request with `Upgrade` is refused: this server upgrades nothing (with no `upgrade`
 *   listener, Node hands it over as any other request);
 * - the server listens before the application is built and attached (`serve`): a request in
 *   between (a health probe at start-up) is held and handed over then, never left to hang.
 *
 * `Expect: 100-continue` needs nothing here: with no `checkContinue` listener, Node answers
 * `100 Continue` itself and hands the request over as any other.
 */
export class Admission {
  /** Where each request's line goes, while the request log is on. */
  log: RequestLogLine | undefined
  #handler: RequestHandler | undefined
  #held: Array<readonly [IncomingMessage, ServerResponse]> = []

  constructor(private readonly connections: Connections, private readonly drain: Drain) {}

  readonly admit = (request: IncomingMessage, response: ApiResponse) => {
    this.connections.started(request, response)
    if (request.url !== undefined && !request.url.startsWith("/")) request.url = originForm(request.url)
    response.answerHeaders = answerHeaders(request)
    this.drain.admitted(response)
    observeResponse(request, response, this.log)
    if (response.socket === null) response.once("socket", () => this.#serve(request, response))
    else this.#serve(request, response)
  }

  /** Hands every request over to `handler` from now on, the ones held meanwhile first. */
  serve(handler: RequestHandler) {
    this.#handler = handler
    const waiting = this.#held
    this.#held = []
    process.nextTick(() => waiting.forEach(([request, response]) => handler(request, response)))
  }

  /** Holds the requests again, as before `serve`: the application is gone. */
  withdraw() {
    this.#handler = undefined
  }

  #serve(request: IncomingMessage, response: ServerResponse) {
    if (request.headers.upgrade !== undefined) {
      response.writeHead(400, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(upgradeRefused),
        connection: "close"
      }).end(upgradeRefused)
    } else if (this.#handler === undefined) this.#held.push([request, response])
    else this.#handler(request, response)
  }
}
