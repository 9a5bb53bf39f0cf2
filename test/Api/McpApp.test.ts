import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { APP_MIME_TYPE, declaresApps, OFFERS_APP_URI } from "../../src/Api/Mcp/OffersApp.js"
import { toolDescriptors } from "../../src/Api/Mcp/Tools.js"
import type { QuoteId } from "../../src/Domain/Ids.js"
import { QuoteRepo } from "../../src/Layers/Persistence/QuoteRepo.js"
import { makeTestClock } from "../support/clock.js"
import { demoHotel } from "../support/hotel.js"
import { APPS_CAPABILITIES as APPS, mcpRequest as rpc, mcpSession as session } from "../support/mcpSession.js"
import { post } from "../support/flow.js"
import { modernMeta, modernRequest } from "../support/mcpModern.js"
import { TestApp } from "../support/TestApp.js"

// Today is Sunday 2026-11-22 in hotel time.
const clock = makeTestClock("2026-11-22T10:00:00Z")

const STAY = {
  checkin: "2026-12-10",
  checkout: "2026-12-13",
  rooms: [{ room_type_id: "double", adults: 2, children_ages: [1] }, { room_type_id: "twin", adults: 2, quantity: 2 }],
  language: "fr"
}

describe("declaresApps: the extension's capability, as a client declares it", () => {
  it("holds only with HTML apps among its mimeTypes", () => {
    expect(declaresApps(APPS)).toBe(true)
    expect(declaresApps({ extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html", APP_MIME_TYPE] } } })).toBe(true)
    for (const capabilities of [undefined, null, {}, { extensions: {} }, { extensions: { "io.modelcontextprotocol/ui": {} } },
      { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: "text/html;profile=mcp-app" } } },
      { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html"] } } }, { experimental: APPS.extensions }]) {
      expect(declaresApps(capabilities), JSON.stringify(capabilities)).toBe(false)
    }
  })
})

layer(TestApp().pipe(Layer.provide(clock.layer)), { excludeTestServices: true })("the offers app at /mcp (MCP Apps)", (it) => {
  it.effect("the server declares the extension; tools/list names the app on quote_stay only for a client that declared it", () =>
    Effect.gen(function*() {
      const plain = yield* session({})
      const apps = yield* session(APPS)
      expect(apps.initialized.capabilities.extensions).toEqual({ "io.modelcontextprotocol/ui": {} })

      const plainTools = (yield* rpc(plain.id, "tools/list")).body.result.tools
      const appTools = (yield* rpc(apps.id, "tools/list")).body.result.tools
      // without the extension, the tools as they have always been listed: no _meta anywhere
      expect(JSON.stringify(plainTools)).not.toContain("_meta")
      expect(plainTools.map((tool: { name: string }) => tool.name)).toEqual(toolDescriptors.map((tool) => tool.name))
      const quote = appTools.find((tool: { name: string }) => tool.name === "quote_stay")
      expect(quote._meta).toEqual({ ui: { resourceUri: OFFERS_APP_URI }, "ui/resourceUri": OFFERS_APP_URI })
      // and nothing else differs
      expect(appTools.map(({ _meta, ...tool }: { _meta?: unknown }) => tool)).toEqual(plainTools)
    }))

  it.effect("the app is listed to a host of the extension and read as the extension says: ui://, its MIME type, its CSP (nothing from elsewhere), one HTML document", () =>
    Effect.gen(function*() {
      const { id } = yield* session(APPS)
      const listed = (yield* rpc(id, "resources/list")).body.result.resources
      expect(listed.map((resource: { uri: string }) => resource.uri)).toEqual(["hotel://policies", "hotel://agent-rules", OFFERS_APP_URI])
      expect(listed[2]).toMatchObject({
        uri: OFFERS_APP_URI,
        mimeType: APP_MIME_TYPE,
        _meta: { ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true } }
      })
      // a client without the extension is not shown it (its agent has no use for HTML), and may still read it
      const plain = yield* session({})
      expect((yield* rpc(plain.id, "resources/list")).body.result.resources.map((resource: { uri: string }) => resource.uri))
        .toEqual(["hotel://policies", "hotel://agent-rules"])
      expect((yield* rpc(plain.id, "resources/read", { uri: OFFERS_APP_URI })).body.result.contents[0].mimeType).toBe(APP_MIME_TYPE)
      const read = yield* rpc(id, "resources/read", { uri: OFFERS_APP_URI })
      const contents = read.body.result.contents
      expect(contents).toHaveLength(1)
      expect(contents[0]).toMatchObject({ uri: OFFERS_APP_URI, mimeType: APP_MIME_TYPE, _meta: { ui: { csp: { connectDomains: [] } } } })
      const html: string = contents[0].text
      expect(html).toMatch(/^<!doctype html>\n<html lang="en">/)
      // self-contained: no file, script, style or font of its own or of anyone's to load
      expect(html).not.toMatch(/<script[^>]*\ssrc=|<link[^>]*stylesheet|@import|url\((?!data:)/i)
      expect(html).not.toMatch(/\bhttps?:\/\/(?!www\.w3\.org)/)
      expect(html.match(/<script/g)).toHaveLength(1)
      expect(html).toContain("Content-Security-Policy")
      // the booking page's stylesheet, its offer cards' code and the catalog's words in every language
      expect(html).toContain("ul.offers")
      expect(html).toContain("Réserver cette offre")
      expect(html).toContain("Забронировать")
      // the room types the quote names by id, in each language
      const types = JSON.parse(attributeOf(html, "data-room-types"))
      expect(Object.keys(types)).toEqual(["en", "fr", "ru"])
      expect(types.fr.map((type: { id: string }) => type.id)).toContain("double")
    }))

  it.effect("2026-07-28: a request that declares the extension in its _meta gets the app named and listed; one that does not, neither", () =>
    Effect.gen(function*() {
      const declaring = { ...modernMeta(), "io.modelcontextprotocol/clientCapabilities": APPS }
      const modern = (method: string, meta: object) => {
        const { body, headers } = modernRequest(method)
        return post("/mcp", { ...body, params: { _meta: meta } }, headers)
      }
      const quoteMeta = (answer: { body: any }) => answer.body.result.tools.find((tool: { name: string }) => tool.name === "quote_stay")._meta
      expect(quoteMeta(yield* modern("tools/list", declaring))).toEqual({ ui: { resourceUri: OFFERS_APP_URI }, "ui/resourceUri": OFFERS_APP_URI })
      expect(quoteMeta(yield* modern("tools/list", modernMeta()))).toBeUndefined()
      const uris = (answer: { body: any }) => answer.body.result.resources.map((resource: { uri: string }) => resource.uri)
      expect(uris(yield* modern("resources/list", declaring))).toContain(OFFERS_APP_URI)
      expect(uris(yield* modern("resources/list", modernMeta()))).not.toContain(OFFERS_APP_URI)

      // and quote_stay's result, the same bytes either way but for the quote's own id
      const quote = (meta: object) => {
        const { body, headers } = modernRequest("tools/call", { name: "quote_stay", arguments: STAY })
        return post("/mcp", { ...body, params: { ...body.params, _meta: meta } }, headers)
      }
      const withApps = yield* quote(declaring)
      const withoutApps = yield* quote(modernMeta())
      const quoteId = (answer: typeof withApps) => answer.body.result.structuredContent.quote_id as string
      expect(withoutApps.body.result.isError).toBe(false)
      expect(withApps.text.replaceAll(quoteId(withApps), quoteId(withoutApps))).toBe(withoutApps.text)
    }))

  it.effect("quote_stay answers a host of the extension byte for byte what it answers any other client", () =>
    Effect.gen(function*() {
      const plain = yield* session({})
      const apps = yield* session(APPS)
      const withoutApps = yield* rpc(plain.id, "tools/call", { name: "quote_stay", arguments: STAY })
      const withApps = yield* rpc(apps.id, "tools/call", { name: "quote_stay", arguments: STAY })
      expect(withoutApps.status).toBe(200)
      expect(withApps.status).toBe(200)
      const quoteId = (answer: typeof withApps) => answer.body.result.structuredContent.quote_id as string
      expect(withoutApps.body.result.isError).toBe(false)
      expect(withoutApps.body.result._meta).toBeUndefined()
      // each call makes a quote of its own: its id is the one difference allowed
      expect(quoteId(withApps)).not.toBe(quoteId(withoutApps))
      expect(withApps.text.replaceAll(quoteId(withApps), quoteId(withoutApps))).toBe(withoutApps.text)
      expect(withApps.headers["content-type"]).toBe(withoutApps.headers["content-type"])

      // the apps session still carries the agent's name, recorded on the quote
      const stored = yield* (yield* QuoteRepo).find(quoteId(withApps) as QuoteId)
      expect(Option.map(stored, (q) => q.client.ai_agent)).toEqual(Option.some("apps-test-host/2.0.4"))
    }))
})

/** An attribute of the document, its character references decoded as a browser decodes them. */
const attributeOf = (html: string, name: string): string =>
  new RegExp(`\\s${name}="([^"]*)"`).exec(html)![1]!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))

/** A room type's name that would break the document if it were pasted in as it is: markup and `replace` patterns. */
const STRANGE = `Suite </script><script>alert(1)</script><!-- $& $' $\` "quoted"`
const strangeHotel = {
  ...demoHotel,
  room_types: demoHotel.room_types.map((room, index) => index === 0 ? { ...room, name: { ...room.name, en: STRANGE } } : room)
}

layer(TestApp({ hotel: strangeHotel }), { excludeTestServices: true })("the offers app's document, whatever the hotel's texts", (it) => {
  it.effect("a room type's name is data in the document: one script, the name read back as written", () =>
    Effect.gen(function*() {
      const { id } = yield* session(APPS)
      const html: string = (yield* rpc(id, "resources/read", { uri: OFFERS_APP_URI })).body.result.contents[0].text
      expect(html.match(/<script/g)).toHaveLength(1)
      expect(html.match(/<\/script>/g)).toHaveLength(1)
      expect(html).not.toContain("<!--")
      const types = JSON.parse(attributeOf(html, "data-room-types"))
      expect(types.en[0].name).toBe(STRANGE)
    }))
})
