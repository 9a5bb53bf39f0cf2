import fontkit from "@pdf-lib/fontkit"
import { PDFDocument, type PDFFont, type PDFPage, PDFString, rgb } from "pdf-lib"
import type { Font, Fontkit } from "pdf-lib/cjs/types/fontkit.js"
import type { ConfirmationDocument, DocumentLine } from "../../Domain/ConfirmationDocument.js"
import { say } from "../../Domain/GuestTexts.js"

/**
 * The confirmation document drawn as a PDF with pdf-lib, in a worker thread (`ConfirmationPdfWorker`)
 * started at the first document: pdf-lib and fontkit, large in memory, live only there.
 */

export interface FontFiles {
  readonly regular: Uint8Array
  readonly bold: Uint8Array
}

// --- layout (points; A4) -----------------------------------------------------------

const PAGE = { width: 595.28, height: 841.89 }
const MARGIN = { left: 56, right: 56, top: 48, bottom: 64 }
const CONTENT_WIDTH = PAGE.width - MARGIN.left - MARGIN.right
const LABEL_WIDTH = 170
const VALUE_X = MARGIN.left + LABEL_WIDTH + 12
const VALUE_WIDTH = PAGE.width - MARGIN.right - VALUE_X
const AMOUNT_WIDTH = 120
/** Between the frame around the guest's own words and those words. */
const FRAME_PADDING = 3
/** The document's title and number, set right in the heading beside the hotel's first lines. */
const HEADER_RIGHT_WIDTH = 190
const SIZE = { body: 9.5, label: 9, heading: 11, title: 16, hotel: 20, small: 8.5 }
const LEADING = 1.38

const INK = rgb(0.13, 0.14, 0.16)
const MUTED = rgb(0.42, 0.45, 0.5)
const ACCENT = rgb(0.09, 0.29, 0.45)
const RULE = rgb(0.82, 0.85, 0.88)

/** The characters each font file can draw, listed once per file (some 6,000 a font). */
const drawableChars = new WeakMap<Uint8Array, ReadonlySet<number>>()

/** Guest input may hold tabs, carriage returns or characters the font lacks (emoji): keep what it can draw. */
const printable = (font: PDFFont, file: Uint8Array) => {
  let drawable = drawableChars.get(file)
  if (drawable === undefined) drawableChars.set(file, drawable = new Set(font.getCharacterSet()))
  return (text: string) =>
    Array.from(text.replace(/\r\n?/g, "\n").replace(/\t/g, " "))
      .map((c) => c === "\n" || drawable.has(c.codePointAt(0)!) ? c : "?")
      .join("")
}

/** Lines of at most `width`: words break at spaces, a word longer than a line (a URL) anywhere. */
const wrap = (text: string, font: PDFFont, size: number, width: number): ReadonlyArray<string> => {
  const fits = (s: string) => font.widthOfTextAtSize(s, size) <= width
  const lines: Array<string> = []
  for (const paragraph of text.split("\n")) {
    let line = ""
    for (const word of paragraph.split(" ")) {
      const candidate = line === "" ? word : `${line} ${word}`
      if (fits(candidate)) {
        line = candidate
        continue
      }
      if (line !== "") lines.push(line)
      line = ""
      for (const c of word) {
        if (line !== "" && !fits(line + c)) {
          lines.push(line)
          line = ""
        }
        line += c
      }
    }
    lines.push(line)
  }
  return lines
}

/**
 * fontkit, parsing each font file once: pdf-lib parses the fonts it embeds again for every
 * document, the larger part of a PDF's cost. A parsed font is only read from afterwards.
 */
const parsedFonts = new WeakMap<Uint8Array, Font>()
const onceParsedFontkit: Fontkit = {
  create: (data, postscriptName) => {
    if (postscriptName !== undefined) return fontkit.create(data, postscriptName)
    let font = parsedFonts.get(data)
    if (font === undefined) parsedFonts.set(data, font = fontkit.create(data))
    return font
  }
}

export const renderPdf = async (doc: ConfirmationDocument, fonts: FontFiles, createdAt: Date): Promise<Uint8Array> => {
  const pdf = await PDFDocument.create()
  pdf.registerFontkit(onceParsedFontkit)
  // subset: the PDF carries the glyphs it uses, a small part of the fonts
  const regular = await pdf.embedFont(fonts.regular, { subset: true })
  const bold = await pdf.embedFont(fonts.bold, { subset: true })
  const clean = printable(regular, fonts.regular)
  const wrapped = (text: string, font: PDFFont, size: number, width: number) => wrap(clean(text), font, size, width)

  pdf.setTitle(`${doc.title} ${doc.reservationNumber}`, { showInWindowTitleBar: true })
  pdf.setSubject(`${doc.hotelName}: ${doc.title} ${doc.reservationNumber}`)
  pdf.setAuthor(doc.hotelName)
  pdf.setCreator(doc.hotelName)
  pdf.setLanguage(doc.language)
  pdf.setCreationDate(createdAt)
  pdf.setModificationDate(createdAt)

  let page: PDFPage = pdf.addPage([PAGE.width, PAGE.height])
  let y = PAGE.height - MARGIN.top

  /** Whether `height` more fits on the page above its bottom margin. */
  const fits = (height: number) => y - height >= MARGIN.bottom
  const ensure = (height: number) => {
    if (fits(height)) return
    page = pdf.addPage([PAGE.width, PAGE.height])
    y = PAGE.height - MARGIN.top
  }
  /** Text whose line, `lineSize` high, starts at `y`: smaller text beside larger shares its baseline. */
  const draw = (text: string, x: number, size: number, font: PDFFont, color = INK, lineSize = size) =>
    page.drawText(clean(text), { x, y: y - lineSize, size, font, color })
  const rule = (thickness: number, color = RULE) => {
    page.drawLine({ start: { x: MARGIN.left, y }, end: { x: PAGE.width - MARGIN.right, y }, thickness, color })
  }
  const link = (url: string, x: number, width: number, size: number) => {
    const annotation = pdf.context.register(pdf.context.obj({
      Type: "Annot",
      Subtype: "Link",
      Rect: [x, y - size * LEADING, x + width, y],
      Border: [0, 0, 0],
      A: { Type: "Action", S: "URI", URI: PDFString.of(url) }
    }))
    page.node.addAnnot(annotation)
  }

  // heading: the hotel and its contact on the left; what the document is, and its number, on the right
  const top = y
  const number = clean(doc.reservationNumber)
  const title = clean(doc.title)
  draw(title, PAGE.width - MARGIN.right - bold.widthOfTextAtSize(title, SIZE.label), SIZE.label, bold, MUTED)
  y -= SIZE.label * 1.6
  draw(number, PAGE.width - MARGIN.right - bold.widthOfTextAtSize(number, SIZE.title), SIZE.title, bold, ACCENT)
  const rightBottom = y - SIZE.title
  y = top
  draw(doc.hotelName, MARGIN.left, SIZE.hotel, bold, ACCENT)
  y -= SIZE.hotel * 1.4
  for (const line of doc.hotelLines) {
    const width = y > rightBottom ? CONTENT_WIDTH - HEADER_RIGHT_WIDTH : CONTENT_WIDTH
    for (const part of wrapped(line, regular, SIZE.small, width)) {
      draw(part, MARGIN.left, SIZE.small, regular, MUTED)
      y -= SIZE.small * LEADING
    }
  }
  y -= 8
  rule(1.5, ACCENT)
  y -= 4

  const lineHeight = (size: number) => size * LEADING
  const drawLine = (line: DocumentLine) => {
    switch (line._tag) {
      case "Field": {
        const labels = wrapped(line.label, regular, SIZE.label, LABEL_WIDTH)
        const values = wrapped(line.value, regular, SIZE.body, VALUE_WIDTH)
        const rows = Math.max(labels.length, values.length)
        ensure(rows * lineHeight(SIZE.body))
        const top = y
        labels.forEach((label, i) => {
          y = top - i * lineHeight(SIZE.body)
          draw(label, MARGIN.left, SIZE.label, regular, MUTED, SIZE.body)
        })
        values.forEach((value, i) => {
          y = top - i * lineHeight(SIZE.body)
          draw(value, VALUE_X, SIZE.body, regular)
        })
        y = top - rows * lineHeight(SIZE.body) - 2
        return
      }
      case "Amount": {
        const font = line.total ? bold : regular
        const size = line.total ? SIZE.heading : SIZE.body
        const labels = wrapped(line.label, font, size, CONTENT_WIDTH - AMOUNT_WIDTH)
        ensure(labels.length * lineHeight(size) + (line.total ? 8 : 0))
        if (line.total) {
          y -= 2
          rule(0.8, INK)
          y -= 6
        }
        const amount = clean(line.amount)
        draw(amount, PAGE.width - MARGIN.right - font.widthOfTextAtSize(amount, size), size, font)
        for (const label of labels) {
          draw(label, MARGIN.left, size, font)
          y -= lineHeight(size)
        }
        y -= line.total ? 6 : 2
        return
      }
      case "Text": {
        const font = line.strong ? bold : regular
        for (const part of wrapped(line.text, font, SIZE.body, CONTENT_WIDTH)) {
          ensure(lineHeight(SIZE.body))
          draw(part, MARGIN.left, SIZE.body, font)
          y -= lineHeight(SIZE.body)
        }
        y -= 3
        return
      }
      case "GuestWords": {
        // the guest's words in a frame, beside the label and a caption saying whose words they are:
        // set apart, they cannot pass for lines of the hotel's (a frame cut by a page goes on)
        const labels = wrapped(line.label, regular, SIZE.label, LABEL_WIDTH)
        const caption = wrapped(line.caption, regular, SIZE.small, LABEL_WIDTH)
        const words = line.lines.flatMap((l) => wrapped(l, regular, SIZE.body, VALUE_WIDTH - 2 * FRAME_PADDING))
        const framedLine = lineHeight(SIZE.body) + 2 * FRAME_PADDING
        ensure(Math.max(FRAME_PADDING + labels.length * lineHeight(SIZE.body) + caption.length * lineHeight(SIZE.small), framedLine))
        let top = y
        // the label on the baseline of the first framed line
        y -= FRAME_PADDING
        for (const part of labels) {
          draw(part, MARGIN.left, SIZE.label, regular, MUTED, SIZE.body)
          y -= lineHeight(SIZE.body)
        }
        for (const part of caption) {
          draw(part, MARGIN.left, SIZE.small, regular, MUTED)
          y -= lineHeight(SIZE.small)
        }
        let labelsBottom = y
        const frame = () =>
          page.drawRectangle({
            x: VALUE_X,
            y: y - FRAME_PADDING,
            width: VALUE_WIDTH,
            height: top - y + FRAME_PADDING,
            borderColor: RULE,
            borderWidth: 0.8
          })
        y = top - FRAME_PADDING
        for (const part of words) {
          if (!fits(lineHeight(SIZE.body) + FRAME_PADDING)) {
            frame()
            ensure(framedLine)
            // the labels stayed on the page before
            labelsBottom = Number.POSITIVE_INFINITY
            top = y
            y -= FRAME_PADDING
          }
          draw(part, VALUE_X + FRAME_PADDING, SIZE.body, regular)
          y -= lineHeight(SIZE.body)
        }
        frame()
        y = Math.min(y - FRAME_PADDING, labelsBottom) - 2
        return
      }
      case "Link": {
        for (const part of wrapped(line.url, regular, SIZE.label, CONTENT_WIDTH)) {
          ensure(lineHeight(SIZE.label))
          draw(part, MARGIN.left, SIZE.label, regular, ACCENT)
          link(line.url, MARGIN.left, regular.widthOfTextAtSize(part, SIZE.label), SIZE.label)
          y -= lineHeight(SIZE.label)
        }
        return
      }
    }
  }

  for (const section of doc.sections) {
    // a heading never ends a page: it moves on with the first lines it introduces
    ensure(SIZE.heading * 2 + 3 * lineHeight(SIZE.body))
    y -= 10
    draw(section.heading, MARGIN.left, SIZE.heading, bold, ACCENT)
    y -= SIZE.heading + 4
    rule(0.6)
    y -= 6
    section.lines.forEach(drawLine)
  }

  const pages = pdf.getPages()
  pages.forEach((p, i) => {
    page = p
    y = MARGIN.bottom - 30
    rule(0.6)
    y -= 6
    draw(doc.footer, MARGIN.left, SIZE.small, regular, MUTED)
    const numbering = say(doc.language, "page", { page: i + 1, pages: pages.length })
    draw(numbering, PAGE.width - MARGIN.right - regular.widthOfTextAtSize(numbering, SIZE.small), SIZE.small, regular, MUTED)
  })
  return pdf.save()
}
