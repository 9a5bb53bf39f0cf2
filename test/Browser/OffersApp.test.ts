import { expect } from "@effect/vitest"
import { Effect } from "effect"
import type { Frame, Page } from "playwright-core"
import { APP_MIME_TYPE } from "../../src/Api/Mcp/OffersApp.js"
import { GUEST_CATALOG } from "../../src/Domain/GuestTexts.js"
import { axeViolations, baseUrl, DESKTOP, layerWithChromium, onPage, PHONE, recordAxe, screenshot } from "../support/browser.js"
import { daysFromToday } from "../support/clock.js"
import { APPS_CAPABILITIES, mcpRequest, mcpSession, sessionHeaders } from "../support/mcpSession.js"
import { TestApp } from "../support/TestApp.js"

/**
 * A stub host of MCP Apps, as the extension (revision 2026-01-26) has a host behave: it renders the
 * app's HTML in a sandboxed frame of another origin under the CSP built from the resource's
 * `_meta.ui.csp`, answers `ui/initialize` with its context, sends the tool's input and result once
 * the app is initialized, passes the app's `tools/call` to the MCP server, and records every message.
 * Both origins are served by the test (Playwright's routes): nothing reaches a network.
 */
const HOST_URL = "http://host.test/chat"
const APP_URL = "http://sandbox.test/app"

interface UiCsp { readonly connectDomains?: ReadonlyArray<string>; readonly resourceDomains?: ReadonlyArray<string>; readonly frameDomains?: ReadonlyArray<string>; readonly baseUriDomains?: ReadonlyArray<string> }

/** The CSP a host builds from a resource's declared domains (the extension's "CSP Construction from Metadata"). */
const hostCsp = (csp: UiCsp = {}) => {
  const resources = (csp.resourceDomains ?? []).join(" ")
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`,
    `style-src 'self' 'unsafe-inline' ${resources}`,
    `connect-src 'self' ${(csp.connectDomains ?? []).join(" ")}`,
    `img-src 'self' data: ${resources}`,
    `font-src 'self' ${resources}`,
    `media-src 'self' data: ${resources}`,
    `frame-src ${(csp.frameDomains ?? []).join(" ") || "'none'"}`,
    "object-src 'none'",
    `base-uri ${(csp.baseUriDomains ?? []).join(" ") || "'self'"}`
  ].join("; ")
}

interface HostSetup {
  readonly context: object
  readonly capabilities: object
  readonly toolInput: object
  readonly toolResult: object
}

const hostPage = (setup: HostSetup) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Stub host</title></head>
<body><main><h1>Assistant</h1><p>Here are the offers.</p>
<iframe id="app" title="Hotel offers" sandbox="allow-scripts" src="${APP_URL}" style="width:100%;height:200px;border:1px solid #999"></iframe>
</main>
<script>
const SETUP = ${JSON.stringify(setup)}
const frame = document.getElementById("app")
window.hostLog = []
const send = (message) => frame.contentWindow.postMessage({ jsonrpc: "2.0", ...message }, "*")
window.addEventListener("message", async (event) => {
  if (event.source !== frame.contentWindow) return
  const message = event.data
  window.hostLog.push(message)
  switch (message.method) {
    case "ui/initialize":
      return send({ id: message.id, result: {
        protocolVersion: "2026-01-26",
        hostInfo: { name: "stub-host", version: "1.0.0" },
        hostCapabilities: SETUP.capabilities,
        hostContext: SETUP.context
      } })
    case "ui/notifications/initialized":
      send({ method: "ui/notifications/tool-input", params: { arguments: SETUP.toolInput } })
      return send({ method: "ui/notifications/tool-result", params: SETUP.toolResult })
    case "tools/call":
      return send({ id: message.id, result: await window.serverToolCall(message.params) })
    case "ui/open-link":
      return send({ id: message.id, result: {} })
    case "ui/notifications/size-changed":
      frame.style.height = message.params.height + "px"
  }
})
</script></body></html>`

interface HostMessage { readonly id?: number; readonly method?: string; readonly params?: any }

/**
 * The host's page with the app, on `page`: the app's document and CSP are the resource's, read from
 * `/mcp` in the apps session `sessionId`; the app's tool calls go to `/mcp` in that session. Answers
 * the app's frame, the tool calls it made and the requests the browser made.
 */
const openHost = async (page: Page, base: string, sessionId: string, app: { html: string; csp: UiCsp }, setup: HostSetup) => {
  const requests: Array<string> = []
  const toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> = []
  page.on("request", (request) => requests.push(request.url()))
  await page.route("**/*", (route) => {
    const url = route.request().url()
    if (url === HOST_URL) return route.fulfill({ contentType: "text/html; charset=utf-8", body: hostPage(setup) })
    if (url === APP_URL) return route.fulfill({ contentType: "text/html; charset=utf-8", headers: { "content-security-policy": hostCsp(app.csp) }, body: app.html })
    return route.abort()
  })
  await page.exposeFunction("serverToolCall", async (params: { name: string; arguments: Record<string, unknown> }) => {
    toolCalls.push(params)
    const answer = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...sessionHeaders(sessionId) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params })
    })
    const { result } = await answer.json() as { readonly result: unknown }
    return result
  })
  await page.goto(HOST_URL)
  const frame = page.frame({ url: APP_URL })!
  return { frame, toolCalls, requests }
}

const hostLog = (page: Page) => page.evaluate<ReadonlyArray<HostMessage>>("window.hostLog")

const isFocused = (frame: Frame, selector: string) => frame.evaluate<boolean>(`document.hasFocus() && document.activeElement.matches(${JSON.stringify(selector)})`)
/** Presses Tab from the host's page until `selector` of the app has the focus, as a keyboard user does. */
const tabTo = async (page: Page, frame: Frame, selector: string) => {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press("Tab")
    if (await isFocused(frame, selector)) return
  }
  throw new Error(`Tab never reached ${selector}`)
}

let n = 0
/** A stay of its own for each test (the in-memory inventory is shared in a file). */
const stayRequest = (language: string) => {
  const checkin = daysFromToday(30 + (n += 5))
  return { checkin, checkout: daysFromToday(30 + n + 2), rooms: [{ room_type_id: "double", adults: 2, children_ages: [1] }], language }
}

/** The app as a host of the extension finds it: quote_stay's `_meta.ui.resourceUri`, read with `resources/read`. */
const appOfQuoteTool = (sessionId: string) =>
  Effect.gen(function*() {
    const tools = (yield* mcpRequest(sessionId, "tools/list")).body.result.tools
    const uri: string = tools.find((tool: { name: string }) => tool.name === "quote_stay")._meta.ui.resourceUri
    const [content] = (yield* mcpRequest(sessionId, "resources/read", { uri })).body.result.contents
    expect(content.mimeType).toBe(APP_MIME_TYPE)
    return { html: content.text as string, csp: content._meta.ui.csp as UiCsp }
  })

layerWithChromium(TestApp())("the offers app (MCP Apps) in a host", (it) => {
  it.effect("shows quote_stay's offers as the booking page does, in the guest's language, accessible; choosing one by keyboard makes the intent through the host", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const { id } = yield* mcpSession(APPS_CAPABILITIES)
      const app = yield* appOfQuoteTool(id)
      const args = stayRequest("fr")
      const quoted = (yield* mcpRequest(id, "tools/call", { name: "quote_stay", arguments: args })).body.result
      const quote = quoted.structuredContent
      expect(quote.package_offers.length).toBeGreaterThan(1)
      const fr = GUEST_CATALOG.fr

      const outcome = yield* onPage({ viewport: PHONE }, async (page) => {
        const host = await openHost(page, base, id, app, {
          context: { locale: "en-US", theme: "light", displayMode: "inline", platform: "mobile" },
          capabilities: { openLinks: {}, serverTools: {} },
          toolInput: args,
          toolResult: quoted
        })
        const { frame } = host
        await frame.locator("li.offer").first().waitFor()
        // the offers, each with the booking page's card: its name, inclusions, policy and price table
        const cards = await frame.locator("li.offer").evaluateAll((nodes) =>
          nodes.map((node) => ({ package: node.getAttribute("data-package"), title: node.querySelector("h3")!.textContent, total: node.querySelector("tr.total td")!.textContent })))
        const words = {
          lang: await frame.evaluate<string>("document.documentElement.lang"),
          title: await frame.locator("h1").textContent(),
          button: await frame.locator("button.choose").first().textContent(),
          status: await frame.locator("#status").textContent()
        }
        const axe = await axeViolations(frame)

        // a keyboard user reaches the first offer's button from the host's page and chooses it
        const first = cards[0]!.package!
        await tabTo(page, frame, `li[data-package="${first}"] button.choose`)
        await page.keyboard.press("Enter")
        await frame.locator("#continue-link").waitFor()
        const continued = {
          href: await frame.locator("#continue-link").getAttribute("href"),
          focused: await isFocused(frame, "#continue-link"),
          text: await frame.locator("#continue").textContent()
        }
        await page.keyboard.press("Enter")
        await page.waitForFunction("window.hostLog.some((m) => m.method === 'ui/open-link')")
        const afterChoice = await axeViolations(frame)
        await screenshot(page, "offers-app-continue")
        return { cards, words, axe, afterChoice, continued, first, log: await hostLog(page), toolCalls: host.toolCalls, requests: host.requests }
      })

      recordAxe("offers-app", [...outcome.axe, ...outcome.afterChoice])
      expect(outcome.axe).toEqual([])
      expect(outcome.afterChoice).toEqual([])
      expect(outcome.cards.map((card) => card.package)).toEqual(quote.package_offers.map((offer: { package_code: string }) => offer.package_code))
      expect(outcome.cards.map((card) => card.title)).toEqual(quote.package_offers.map((offer: { name: string }) => offer.name))
      expect(outcome.cards.every((card) => /€/.test(card.total ?? ""))).toBe(true)
      // French, as quote_stay was asked, though the host's locale is English
      expect(outcome.words).toMatchObject({ lang: "fr", title: fr.offersTitle, button: fr.chooseOffer })
      expect(outcome.words.status).toContain(String(quote.package_offers.length))

      // the handshake as the extension has it, then the one tool call: the intent for the offer chosen
      const methods = outcome.log.map((message) => message.method)
      expect(methods.slice(0, 2)).toEqual(["ui/initialize", "ui/notifications/initialized"])
      expect(outcome.log[0]!.params).toMatchObject({ protocolVersion: "2026-01-26", appCapabilities: {} })
      expect(methods).toContain("ui/notifications/size-changed")
      expect(outcome.toolCalls).toEqual([{
        name: "create_reservation_intent",
        arguments: { quote_id: quote.quote_id, package_code: outcome.first, language: "fr", idempotency_key: `offers-app:${quote.quote_id}:${outcome.first}:fr` }
      }])
      // the way on: the intent's continue_url, opened by the host
      expect(outcome.continued.href).toMatch(/^http:\/\/hotel\.test\/complete#token=/)
      expect(outcome.continued.focused).toBe(true)
      expect(outcome.continued.text).toContain(fr.appContinue)
      expect(outcome.log.find((message) => message.method === "ui/open-link")!.params).toEqual({ url: outcome.continued.href })
      // nothing but the host's page and the app's document was requested: the app loads nothing
      expect([...new Set(outcome.requests)]).toEqual([HOST_URL, APP_URL])
    }))

  it.effect("a refused quote and a host without a locale: the app says so in English, and offers nothing to choose", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const { id } = yield* mcpSession(APPS_CAPABILITIES)
      const app = yield* appOfQuoteTool(id)
      const args = { ...stayRequest("en"), rooms: [{ room_type_id: "nowhere", adults: 2 }] }
      const refused = (yield* mcpRequest(id, "tools/call", { name: "quote_stay", arguments: { ...args, language: undefined } })).body.result
      expect(refused.isError).toBe(true)
      const outcome = yield* onPage({ viewport: DESKTOP }, async (page) => {
        const { frame, toolCalls } = await openHost(page, base, id, app, { context: {}, capabilities: {}, toolInput: {}, toolResult: refused })
        await frame.locator("#no-quote").waitFor()
        return {
          lang: await frame.evaluate<string>("document.documentElement.lang"),
          text: await frame.locator("#no-quote").textContent(),
          buttons: await frame.locator("button").count(),
          toolCalls
        }
      })
      expect(outcome).toEqual({ lang: "en", text: GUEST_CATALOG.en.appNoQuote, buttons: 0, toolCalls: [] })
    }))
})
