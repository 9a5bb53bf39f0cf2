import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { scanScript, scanShell } from "../support/publicScan.js"

const PUBLIC = new URL("../../public/", import.meta.url)
const files = readdirSync(PUBLIC)
const read = (file: string) => readFileSync(new URL(file, PUBLIC), "utf8")

/**
 * The literals a script of public/ may hold, each with why it is neither a guest's word nor a
 * limit. An entry no longer found fails too, so the list cannot outlive its reasons.
 */
const ALLOWED: Record<string, Record<string, string>> = {
  "complete.js": { "60": "seconds in a minute: a wait said in minutes" },
  "manage.js": {
    "60": "seconds in a minute: a wait said in minutes",
    "60000": "how long the PDF's blob URL lives after its download started: not a guest's limit"
  },
  "manage-change.js": {
    "100": "cents in a euro: the API's amounts are decimals, compared in cents",
    "60": "seconds in a minute: a wait said in minutes"
  },
  "guest-text.js": { "/guest-i18n.js": "the module of another language's words: a path, not a limit" },
  "guest.js": { "500": "the first status of HTTP's server errors (5xx), which a retry may cure: the protocol's, not a limit" },
  "guest-dom.js": { "2": "the length of the \"on\" of an event attribute's name" },
  "guest-form.js": { "4": "the rows a special-requests box shows: its height, not its limit (max_length is the API's)" },
  "guest-format.js": { "2000-01-01T": "a day to hang a time of day on, to format the time alone" },
  "book-search.js": { "86400000": "milliseconds in a day: date arithmetic on UTC days" },
  "book-alternatives.js": { "2": "half: as many dates before the asked arrival as after" },
  "book-calendar.js": {
    "7": "days in a week: the grid's rows",
    "6": "the last day of a week counted from 0 (End)",
    "31": "more days than a month has: a month's first day moved by it is in the next month",
    "-01": "a month's first day",
    "T00:00:00Z": "midnight UTC: a calendar date as a Date to format, never shifted",
    "2024-01-01": "a Monday: the week's day names are formatted from it"
  }
}

describe("public/ holds no guest-visible text and no limit of its own", () => {
  it("no script of the guest pages holds a word, a sentence or a limit: they come from /assets/guest-i18n.js", () => {
    const scripts = files.filter((file) => file.endsWith(".js"))
    expect(scripts.length).toBeGreaterThan(8)
    let literals = 0
    for (const file of scripts) {
      const scan = scanScript(file, read(file), new Map(Object.entries(ALLOWED[file] ?? {})))
      literals += scan.literals
      expect(scan.findings, file).toEqual([])
      expect(scan.unused, `${file}: allowed literals no longer there`).toEqual([])
    }
    // the scan read the scripts' code, not an empty list
    expect(literals).toBeGreaterThan(500)
    expect(Object.keys(ALLOWED).every((file) => scripts.includes(file))).toBe(true)
  })

  it("the page shells' words are the catalog's {{keys}}", () => {
    const shells = files.filter((file) => file.endsWith(".html"))
    expect(shells).toEqual(["book.html", "complete.html", "guest-failure.html", "guest-head.html", "guest-modules.html", "manage.html"])
    for (const file of shells) expect(scanShell(file, read(file)), file).toEqual([])
    // the pages; the others are the pieces they share
    for (const file of ["book.html", "complete.html", "manage.html"]) {
      expect(read(file)).toMatch(/<title>\{\{\w+\}\}<\/title>/)
    }
  })

  it("the scan finds what it must: a word, a sentence, a limit, a pattern, a shell's text", () => {
    const planted = [
      `el("p", null, "loading")`,
      `el("button", { type: "button", "aria-label": "Close" }, t("retry"))`,
      `const hint = "With country code, e.g. +33"`,
      `node.textContent = "Saved"`,
      `say(message, "error", "Something went wrong")`,
      `const MAX_LINES = 20`,
      `if (lines.length >= 20) return`,
      `const PHONE = "[0-9]{5,24}"`
    ]
    for (const source of planted) expect(scanScript("planted.js", source).findings, source).not.toEqual([])
    expect(scanScript("planted.js", `if (res.status === 409 && code === "price_changed") el("p", { id: "x" }, t("failed"))`).findings).toEqual([])
    expect(scanShell("planted.html", "<h1>{{titleManage}}</h1><p>Loading…</p>").map((f) => f.literal)).toEqual(["Loading…"])
    expect(scanShell("planted.html", `<button aria-label="Close">{{retry}}</button>`)).toHaveLength(1)
  })
})
