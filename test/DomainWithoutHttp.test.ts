import { describe, expect, it } from "@effect/vitest"
import { SchemaAST } from "effect"
import { HttpApi, type HttpApiGroup } from "effect/http-api"
import * as fs from "node:fs"
import * as path from "node:path"
import { Api } from "../src/Api/Contract/Api.js"
import { ChannelApi } from "../src/Api/Contract/Channel.js"
import { ROUTES as SERVER_ROUTES } from "../src/Api/Transport/RequestObservation.js"
import { Language } from "../src/Domain/Language.js"

// The layering in words (issue 29, "Domain without HTTP"): the domain never knows how a request
// travels (header names, routes, content types: src/Api's), and no fact of the hotel is written in
// code (data/hotel.json's). dependency-cruiser checks imports; these check what the code says.

const filesUnder = (folder: string): ReadonlyArray<string> =>
  fs.readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => path.join(folder, file))
    .sort()

const read = (file: string) => fs.readFileSync(file, "utf8")

/** Code without its comments: a comment may say where a value comes from; the code must not know it. */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|\s)\/\/.*$/gm, "$1")

/** The string literals of a piece of code (quotes and template texts), as written. */
const literals = (code: string): ReadonlyArray<string> => [...code.matchAll(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g)].map(([literal]) => literal)

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")

// --- what is HTTP ---------------------------------------------------------------------

/** The names of the request headers an API declares. */
const declaredHeaders = <Id extends string, Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<Id, Groups>): ReadonlyArray<string> => {
  const names: Array<string> = []
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const ast = endpoint.headers?.ast
      if (ast !== undefined && SchemaAST.isObjects(ast)) {
        for (const property of ast.propertySignatures) names.push(String(property.name))
      }
    }
  })
  return names
}

/** Every header name src/Api reads or sets by its name (`headers["…"]`, `withResponseHeader("…"`, `setHeader(…, "…"`). */
const headersUsedByTheApi = (): ReadonlyArray<string> =>
  filesUnder("src/Api").flatMap((file) =>
    [...read(file).matchAll(/headers\["([A-Za-z0-9-]+)"\]|withResponseHeader\("([A-Za-z0-9-]+)"|setHeader\([^,()]+,\s*"([A-Za-z0-9-]+)"|in: "header", key: "([A-Za-z0-9-]+)"/g)]
      .map((match) => match.slice(1).find((name) => name !== undefined)!)
  )

/**
 * HTTP header names: every one the API declares or handles by name, spelt with a hyphen (a
 * one-word name such as `origin` or `connection` is also an English word of the domain's texts).
 */
const HEADER_NAMES = [...new Set([...declaredHeaders(Api), ...declaredHeaders(ChannelApi), ...headersUsedByTheApi(), "content-type"].map((name) => name.toLowerCase()))]
  .filter((name) => name.includes("-"))
  .sort()

/** Every route the server answers but the root (a literal "/" is also a path separator). */
const ROUTES = [...SERVER_ROUTES].filter((route) => route !== "/")

/**
 * A content type (RFC 6838 `type/subtype`) in a literal. The one exception: the confirmation
 * mail's PDF attachment, a MIME part of a mail (RFC 2045) the domain composes, not an HTTP answer.
 */
const CONTENT_TYPE = /\b(?:application|text|multipart|image|audio|video|font)\/[a-z0-9.+-]+/gi
const MAIL_ATTACHMENT = { file: path.join("src", "Domain", "GuestEmails.ts"), type: "application/pdf" }

/** What a piece of code (a file of `file` name) knows of HTTP, each as `kind: what`. */
const httpKnowledge = (file: string, text: string): ReadonlyArray<string> => {
  const code = withoutComments(text)
  const strings = literals(code)
  const headers = HEADER_NAMES.filter((name) => new RegExp(`(?<![A-Za-z0-9-])${escape(name)}(?![A-Za-z0-9-])`, "i").test(code))
  // a route as data: a literal that is a path (or starts with one), not a sentence citing an endpoint to a reader
  const routes = strings.filter((literal) =>
    /^.\/(?:v1|internal)\b/.test(literal) || ROUTES.some((route) => new RegExp(`^.${escape(route)}(?:[?#/"'\`$]|$)`).test(literal))
  )
  const contentTypes = strings.flatMap((literal) => [...literal.matchAll(CONTENT_TYPE)].map(([type]) => type!.toLowerCase()))
    .filter((type) => !(file === MAIL_ATTACHMENT.file && type === MAIL_ATTACHMENT.type))
  return [
    ...headers.map((name) => `header: ${name}`),
    ...routes.map((literal) => `route: ${literal.slice(1, -1)}`),
    ...contentTypes.map((type) => `content type: ${type}`)
  ]
}

describe("src/Domain knows no HTTP", () => {
  it("knows every header, route and content type the API handles, so the check below means something", () => {
    expect(HEADER_NAMES).toEqual(expect.arrayContaining([
      "x-hotel-client", "x-ai-agent", "x-hotel-session", "idempotency-key", "x-reservation-token",
      "idempotent-replayed", "retry-after", "content-type", "x-forwarded-for"
    ]))
    expect(ROUTES).toEqual(expect.arrayContaining(["/v1/hotel", "/v1/quotes", "/v1/reservation-intents", "/mcp", "/llms.txt"]))
    expect(ROUTES.length).toBeGreaterThan(20)
  })

  it("finds each kind in a piece of code that has it, and not in comments or in a sentence citing an endpoint", () => {
    const knowledge = (code: string) => httpKnowledge("src/Domain/Planted.ts", code)
    expect(knowledge(`export const H = Schema.Struct({ "x-hotel-client": Schema.String })`)).toEqual(["header: x-hotel-client"])
    expect(knowledge(`const n = "X-AI-Agent"`)).toEqual(["header: x-ai-agent"])
    expect(knowledge(`const step = { method: "GET", path: "/v1/hotel" }`)).toEqual(["route: /v1/hotel"])
    expect(knowledge("const url = `/v1/reservation-public?x=1`")).toEqual(["route: /v1/reservation-public?x=1"])
    expect(knowledge(`const p = "/v1/new-thing"`)).toEqual(["route: /v1/new-thing"])
    expect(knowledge(`const csv = { contentType: "text/csv; charset=utf-8" }`)).toEqual(["content type: text/csv"])
    expect(knowledge(`// read from the X-Hotel-Client header\n/** GET /v1/hotel's answer */\nconst a = "as POST /v1/quotes takes them"`)).toEqual([])
  })

  it("src/Domain: no header name, no route, no content type", () => {
    const files = filesUnder("src/Domain")
    expect(files.length).toBeGreaterThan(30)
    const found = files.flatMap((file) => httpKnowledge(file, read(file)).map((what) => `${file}: ${what}`))
    expect(found).toEqual([])
  })
})

// --- the hotel's facts ----------------------------------------------------------------

const HOTEL_FILE = path.join("data", "hotel.json")
const hotel = JSON.parse(read(HOTEL_FILE))

/** Every text of the hotel in every language: objects keyed by languages (names, descriptions, beds, policies, terms). */
const localizedTexts = (value: unknown): ReadonlyArray<string> => {
  if (Array.isArray(value)) return value.flatMap(localizedTexts)
  if (typeof value !== "object" || value === null) return []
  const entries = Object.entries(value)
  const isLocalized = entries.length > 0 && entries.every(([key, text]) => Language.literals.includes(key as Language) && typeof text === "string")
  return isLocalized ? entries.map(([, text]) => text as string) : entries.flatMap(([, nested]) => localizedTexts(nested))
}

/** The codes of a list of the hotel's, enumerated as a text would: `a, b, c` and `a, b and c`. */
const enumerations = (codes: ReadonlyArray<string>) =>
  [codes.join(", "), `${codes.slice(0, -1).join(", ")} and ${codes.at(-1)}`]

/**
 * The facts that say which hotel this is and what it offers: its name (and the name without
 * "Hôtel"), id, address, time zone, phone, email and website, every text it writes, and which room
 * types, rate plans and promotions it has (their codes enumerated). A single code (a room type,
 * a rate, a time, the currency) is left out: it is the API's vocabulary, which examples in the
 * contract illustrate a field's format with.
 */
const HOTEL_FACTS: ReadonlyArray<string> = [...new Set([
  hotel.name,
  hotel.name.replace(/^H[oô]tel\s+/i, ""),
  hotel.id,
  hotel.address.street,
  hotel.address.postal_code,
  hotel.address.city,
  hotel.timezone,
  hotel.contact.phone,
  hotel.contact.phone.replace(/[^+0-9]/g, ""),
  hotel.contact.email,
  new URL(hotel.contact.website).host,
  ...localizedTexts(hotel),
  ...enumerations(hotel.room_types.map((room: { id: string }) => room.id)),
  ...enumerations(hotel.rate_plans.map((plan: { code: string }) => plan.code)),
  ...enumerations(hotel.promotions.map((promotion: { code: string }) => promotion.code))
] as ReadonlyArray<string>)]

/** The facts written in a piece of code, comments included. */
const hotelFactsIn = (text: string) =>
  HOTEL_FACTS.filter((fact) => new RegExp(`(?<![\\p{L}\\p{N}])${escape(fact)}(?![\\p{L}\\p{N}])`, "u").test(text))

describe("the hotel's facts are only in data/hotel.json", () => {
  it("reads the demo hotel's facts from its file, so the check below means something", () => {
    expect(HOTEL_FACTS).toEqual(expect.arrayContaining([
      "Hôtel Belle Rive", "Belle Rive", "Nice", "Europe/Paris", "+33 4 93 00 12 34", "double, twin, deluxe", "double, twin and deluxe"
    ]))
    expect(HOTEL_FACTS.length).toBeGreaterThan(50)
    const planted = `const example = { name: "${hotel.name}", room_name: "${hotel.room_types[0].name.en}", tz: "${hotel.timezone}" }`
    expect(hotelFactsIn(planted)).toEqual(expect.arrayContaining([hotel.name, hotel.room_types[0].name.en, hotel.timezone]))
    expect(hotelFactsIn(`const word = "Nicer"; const zone = "Europe/Paris2"`)).toEqual([])
  })

  it("src: not one of them", () => {
    const files = filesUnder("src")
    expect(files.length).toBeGreaterThan(100)
    const found = files.flatMap((file) => hotelFactsIn(read(file)).map((fact) => `${file}: ${fact}`))
    expect(found).toEqual([])
  })
})
