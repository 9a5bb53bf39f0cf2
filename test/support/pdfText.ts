import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs"
import type { TextItem } from "pdfjs-dist/types/src/display/api.js"

/** One line of a page: the text items that share a baseline, left to right. */
interface Line {
  readonly y: number
  readonly items: Array<TextItem>
}

// items whose baselines differ by less than this many points are on one line
const SAME_LINE = 2

/** A line as `pdftotext -layout` reads it: items apart from each other are separated by a space. */
const lineText = (line: Line): string => {
  const items = [...line.items].sort((a, b) => a.transform[4] - b.transform[4])
  let text = ""
  let end: number | undefined
  for (const item of items) {
    const x = item.transform[4] as number
    // a gap wider than a fifth of the font's size is a word or column break
    if (end !== undefined && x - end > Math.abs(item.transform[0] as number) * 0.2) text += " "
    text += item.str
    end = x + item.width
  }
  return text
}

/**
 * The text of a PDF, page after page and line after line, as pdfjs (Mozilla's PDF.js, run in Node)
 * reads it: no-break spaces made plain and runs of spaces single, so that a label and its value
 * drawn apart read as "Arrival Friday, 12 March 2027, from 14:00".
 */
export const pdfText = async (pdf: Uint8Array): Promise<string> => {
  // pdfjs takes the buffer over (transfers it): it reads a copy
  const document = await getDocument({ data: pdf.slice(), isEvalSupported: false, verbosity: 0 }).promise
  try {
    const pages: Array<string> = []
    for (let number = 1; number <= document.numPages; number++) {
      const content = await (await document.getPage(number)).getTextContent()
      const lines: Array<Line> = []
      for (const item of content.items) {
        if (!("str" in item) || item.str === "") continue
        const y = item.transform[5] as number
        const line = lines.find((l) => Math.abs(l.y - y) < SAME_LINE)
        if (line) line.items.push(item)
        else lines.push({ y, items: [item] })
      }
      pages.push(lines.sort((a, b) => b.y - a.y).map(lineText).join("\n"))
    }
    return pages.join("\n\f")
      .replace(/[\u00a0\u202f]/g, " ")
      .replace(/ +/g, " ")
  } finally {
    await document.destroy()
  }
}
