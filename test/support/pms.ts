import { Effect } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface PmsRequest {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}
export interface PmsAnswer {
  readonly status: number
  readonly body?: string
  readonly headers?: Record<string, string>
}

/** A PMS on a free port, under `/pms`, answering each request with `answer` (or what it gives for the nth request, from 0). */
export const pmsStub = (answer: PmsAnswer | ((n: number) => PmsAnswer)) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly close: () => void; readonly url: string; readonly requests: Array<PmsRequest> }>((resume) => {
      const requests: Array<PmsRequest> = []
      const server = createServer((request, response) => {
        let body = ""
        request.on("data", (chunk) => (body += chunk)).on("end", () => {
          const { body: answerBody, headers = {}, status } = typeof answer === "function" ? answer(requests.length) : answer
          requests.push({ method: request.method!, url: request.url!, headers: request.headers, body })
          response.writeHead(status, answerBody === undefined ? headers : { "content-type": "application/json", ...headers })
          response.end(answerBody)
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          close: () => server.close(),
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/pms`,
          requests
        })))
    }),
    ({ close }) => Effect.sync(close)
  )
