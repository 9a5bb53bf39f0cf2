import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type IncomingMessage, Server } from "node:http"
import { ApiResponse } from "../../src/Api/Transport/ApiResponse.js"
import { closing, listening } from "../support/listening.js"

/*
 * The headers the admission gives an answer go into its head however the head is written, and a
 * header of the same name that the application sets or writes wins, as it did over one set
 * beforehand with `setHeader`.
 */

const OURS = { "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" }

/** How each path's answer is written, the way a writer of this server may write it. */
const writers: Record<string, (response: ApiResponse) => void> = {
  "/object": (response) => response.writeHead(200, { "content-type": "text/plain" }).end("ok"),
  "/reason-then-object": (response) => response.writeHead(200, "Fine", { "referrer-policy": "same-origin" }).end("ok"),
  "/no-reason-then-object": (response) => response.writeHead(200, undefined, { "referrer-policy": "same-origin" }).end("ok"),
  "/set-before": (response) => {
    response.setHeader("x-content-type-options", "other")
    response.end("ok")
  },
  "/end-only": (response) => response.end("ok"),
  "/raw-list": (response) => response.writeHead(200, ["content-type", "text/plain", "referrer-policy", "origin"]).end("ok"),
  "/added": (response) => {
    response.addAnswerHeaders({ "ratelimit": "first", "x-by-app": "ours" })
    response.addAnswerHeaders({ "ratelimit": "later" })
    response.writeHead(200, { "x-by-app": "the app's" }).end("ok")
  },
  "/traceparent": (response) => {
    response.writeHead(200, { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" }).end("ok")
  }
}

let server: Server<typeof IncomingMessage, typeof ApiResponse>
let base = ""
const written = new Map<string, ApiResponse>()

beforeAll(async () => {
  server = new Server<typeof IncomingMessage, typeof ApiResponse>({ ServerResponse: ApiResponse }, (request, response) => {
    response.answerHeaders = OURS
    written.set(request.url!, response)
    writers[request.url!]!(response)
  })
  base = `http://127.0.0.1:${await listening(server)}`
})
afterAll(() => closing(server))

/** The raw head of the answer to `path`: every header line as sent, duplicates included. */
const headerLines = async (path: string) => {
  const response = await fetch(`${base}${path}`)
  await response.text()
  return { status: response.status, statusText: response.statusText, headers: [...response.headers.entries()] }
}

describe("ApiResponse", () => {
  it("adds the admission's headers to a head written with an object", async () => {
    const { headers } = await headerLines("/object")
    expect(Object.fromEntries(headers)).toMatchObject({ ...OURS, "content-type": "text/plain" })
  })

  it("lets a header given to writeHead win, with or without a reason phrase, and keeps the phrase", async () => {
    const withReason = await headerLines("/reason-then-object")
    expect(withReason.statusText).toBe("Fine")
    expect(withReason.headers.filter(([name]) => name === "referrer-policy")).toEqual([["referrer-policy", "same-origin"]])
    expect(Object.fromEntries(withReason.headers)["x-content-type-options"]).toBe("nosniff")
    const withoutReason = await headerLines("/no-reason-then-object")
    expect(withoutReason.statusText).toBe("OK")
    expect(withoutReason.headers.filter(([name]) => name === "referrer-policy")).toEqual([["referrer-policy", "same-origin"]])
  })

  it("lets a header set on the response win", async () => {
    const { headers } = await headerLines("/set-before")
    expect(headers.filter(([name]) => name === "x-content-type-options")).toEqual([["x-content-type-options", "other"]])
    expect(Object.fromEntries(headers)["referrer-policy"]).toBe("no-referrer")
  })

  it("adds them to a head Node writes itself, on an end() with none", async () => {
    const { headers } = await headerLines("/end-only")
    expect(Object.fromEntries(headers)).toMatchObject(OURS)
  })

  it("adds them under a raw list of names and values, which wins where it names one", async () => {
    const { headers } = await headerLines("/raw-list")
    expect(headers.filter(([name]) => name === "referrer-policy")).toEqual([["referrer-policy", "origin"]])
    expect(Object.fromEntries(headers)["x-content-type-options"]).toBe("nosniff")
  })

  it("adds headers given after the admission's, a later one of a name over an earlier, the application's over both", async () => {
    const { headers } = await headerLines("/added")
    expect(Object.fromEntries(headers)).toMatchObject({ ...OURS, "ratelimit": "later", "x-by-app": "the app's" })
    expect(headers.filter(([name]) => name === "ratelimit")).toHaveLength(1)
  })

  it("tells a header given to writeHead once the answer is written (the request log's traceparent)", async () => {
    await headerLines("/traceparent")
    expect(written.get("/traceparent")!.writtenHeader("traceparent")).toBe("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
    expect(written.get("/set-before")!.writtenHeader("x-content-type-options")).toBe("other")
  })
})
