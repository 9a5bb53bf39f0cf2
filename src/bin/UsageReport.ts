/**
 * How `npm run usage` prints the report (not an entry point: the command calls it, tests check it):
 * a table for people, CSV or JSON for tools, each row named by the header its figures are counted by.
 */
import { Schema } from "effect"
import { conversion, type UsageRow } from "../Domain/Usage.js"
import { USAGE_HEADERS } from "../Api/Contract/RequestHeaders.js"

export const UsageFormat = Schema.Literals(["table", "csv", "json"])
export type UsageFormat = typeof UsageFormat.Type

const amount = (cents: number) => (cents / 100).toFixed(2)
const percent = (ratio: number | null) => ratio === null ? "-" : `${(ratio * 100).toFixed(1)} %`

const csvField = (text: string) => /[",\n\r]/.test(text) ? `"${text.replace(/"/g, "\"\"")}"` : text

/**
 * Terminal escape sequences (CSI `ESC [ … final`, the string commands OSC, DCS, PM, APC and SOS up
 * to their terminator, and two-character escapes), in their 7-bit and 8-bit (C1) forms.
 */
const ESCAPE_SEQUENCE =
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d-\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[ -/]*[0-~]/g
/** C0 and C1 control characters and DEL. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g

/**
 * A caller's name as text a terminal or a spreadsheet only shows: the callers chose it (an MCP
 * client names itself in JSON, where any character goes), and an escape sequence would act on the
 * reader's terminal.
 */
export const printable = (value: string) => value.replace(ESCAPE_SEQUENCE, "").replace(CONTROL, "")

/**
 * A spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` (tab and CR too) as a formula:
 * a leading apostrophe makes it text (OWASP, "CSV Injection").
 */
const asText = (cell: string) => /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell

const table = (header: ReadonlyArray<string>, lines: ReadonlyArray<ReadonlyArray<string>>, rightAligned: ReadonlySet<number>) => {
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => line[i]!.length)))
  const render = (cells: ReadonlyArray<string>) =>
    cells.map((cell, i) => rightAligned.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)).join("  ").trimEnd()
  return [render(header), widths.map((w) => "-".repeat(w)).join("  "), ...lines.map(render)].join("\n")
}

/** The report as printed: a table for people, CSV or JSON for tools. */
export const formatUsage = (rows: ReadonlyArray<UsageRow>, format: UsageFormat, currency: string): string => {
  switch (format) {
    case "json":
      return JSON.stringify(
        rows.map((row) => ({
          day: row.day,
          header: USAGE_HEADERS[row.dimension],
          value: row.value,
          quotes: row.quotes,
          intents: row.intents,
          completions: row.completions,
          conversion: conversion(row),
          revenue_cents: row.revenue,
          currency
        })),
        null,
        2
      )
    case "csv":
      return [
        "day,header,value,quotes,intents,completions,conversion,revenue,currency",
        ...rows.map((row) =>
          [
            row.day,
            USAGE_HEADERS[row.dimension],
            csvField(asText(printable(row.value))),
            String(row.quotes),
            String(row.intents),
            String(row.completions),
            conversion(row)?.toFixed(4) ?? "",
            amount(row.revenue),
            currency
          ].join(",")
        )
      ].join("\n")
    case "table":
      return rows.length === 0 ? "no traffic in this period" : table(
        ["day", "header", "value", "quotes", "intents", "completions", "conversion", `revenue (${currency})`],
        rows.map((row) => [
          row.day,
          USAGE_HEADERS[row.dimension],
          printable(row.value),
          String(row.quotes),
          String(row.intents),
          String(row.completions),
          percent(conversion(row)),
          amount(row.revenue)
        ]),
        new Set([3, 4, 5, 6, 7])
      )
  }
}
