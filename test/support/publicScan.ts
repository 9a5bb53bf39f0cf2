import ts from "typescript"

/*
 * What the guest pages (public/) hold of their own that a guest reads or that limits what a guest
 * may do: their words and their limits come from the service (/assets/guest-i18n.js, generated from
 * the catalog and the schemas), so any such literal is a finding.
 */

export interface Finding {
  readonly file: string
  readonly line: number
  readonly literal: string
  readonly why: string
}

/** Calls whose string arguments are keys, selectors, attribute or event names, paths: never shown. */
const CODE_CALLS = new Set([
  "t", "word", "hasText", "refusal", "querySelector", "querySelectorAll", "getElementById", "addEventListener",
  "getAttribute", "removeAttribute", "namedItem", "createElement", "get", "fetch", "fetchPublic", "json", "raw",
  "includes", "startsWith", "messageSlot", "showInvalid", "startPage", "RegExp", "reasonText"
])
/** Calls whose arguments after the first `codeArgs` are shown to the guest as they are. */
const SHOWN_AFTER: Record<string, number> = { el: 2, say: 2, notice: 1, setStatus: 0, tell: 1, append: 0 }
/** Attributes a guest reads (or hears). */
const SHOWN_ATTRIBUTES = new Set(["aria-label", "title", "placeholder", "alt", "label", "value", "aria-description"])
const SHOWN_PROPERTIES = new Set(["textContent", "innerText", "innerHTML", "title", "placeholder", "alt"])

/** A code token: an id, class, type, name, event, path (lower case, no space), a catalog key (camelCase), a code or method (upper case). */
const CODE_TOKEN = /^(?:[a-z0-9_\-.:/#?=&[\]*]*|[a-z][a-zA-Z0-9_]*|[A-Z][A-Z0-9_]*)$/
const LETTER = /\p{L}/u
/** A number that may bound what a guest does (0 and 1 are counts' and indices' starts). */
const isLimit = (text: string) => Number(text.replace(/_/g, "")) > 1

const calleeName = (call: ts.CallExpression | ts.NewExpression): string | undefined => {
  const callee = call.expression
  return ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : undefined
}
const propertyName = (name: ts.PropertyName): string | undefined =>
  ts.isIdentifier(name) || ts.isStringLiteral(name) ? name.text : undefined

/** Where a string literal stands: shown to the guest, code, or anything else (judged by its shape). */
const position = (node: ts.Node): "shown" | "code" | "other" => {
  let child: ts.Node = node
  let parent = node.parent
  // a template's part stands where its template does
  while (ts.isTemplateSpan(parent) || ts.isTemplateExpression(parent) || ts.isParenthesizedExpression(parent) ||
    ts.isConditionalExpression(parent) || (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.BarBarToken)) {
    child = parent
    parent = parent.parent
  }
  if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent)) return "code"
  if (ts.isElementAccessExpression(parent) || ts.isCaseClause(parent)) return "code"
  if (ts.isBinaryExpression(parent) && /EqualsEquals|ExclamationEquals|InKeyword/.test(ts.SyntaxKind[parent.operatorToken.kind])) return "code"
  if (ts.isPropertyAssignment(parent)) {
    if (parent.name === child) return "code"
    const name = propertyName(parent.name)
    if (name !== undefined && SHOWN_ATTRIBUTES.has(name)) return "shown"
    return name === "class" ? "code" : "other"
  }
  if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(parent.left)) {
    if (SHOWN_PROPERTIES.has(parent.left.name.text)) return "shown"
    if (parent.left.name.text === "className") return "code"
  }
  if ((ts.isCallExpression(parent) || ts.isNewExpression(parent)) && parent.arguments?.includes(child as ts.Expression) === true) {
    const name = calleeName(parent) ?? ""
    const index = parent.arguments!.indexOf(child as ts.Expression)
    if (name in SHOWN_AFTER && index >= SHOWN_AFTER[name]!) return "shown"
    if (name === "setAttribute") return index === 0 || !SHOWN_ATTRIBUTES.has((parent.arguments![0] as ts.StringLiteral).text) ? "code" : "shown"
    if (CODE_CALLS.has(name) || name === "el") return "code"
  }
  return "other"
}

/** The findings of one script of `public/`; `allowed` are `literal` texts the file may hold, each with its reason. */
export const scanScript = (file: string, source: string, allowed: ReadonlyMap<string, string> = new Map()) => {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS)
  const findings: Array<Finding> = []
  const used = new Set<string>()
  let literals = 0
  const report = (node: ts.Node, literal: string, why: string) => {
    if (allowed.has(literal)) return void used.add(literal)
    findings.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1, literal, why })
  }
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      literals++
      const text = node.text
      const where = position(ts.isStringLiteralLike(node) ? node : node.parent.kind === ts.SyntaxKind.TemplateSpan ? node.parent : node)
      if (where === "shown" && LETTER.test(text)) report(node, text, "a guest-visible text of its own")
      else if (where === "other" && LETTER.test(text) && !CODE_TOKEN.test(text)) report(node, text, "a text that is no code token")
      else if (where !== "code" && /[2-9]|\d\d/.test(text)) report(node, text, "a number in a string: a limit or a format of its own")
    } else if (ts.isNumericLiteral(node)) {
      literals++
      // an index, or a protocol's code compared for equality (an HTTP status), bounds nothing
      const parent = node.parent
      const compared = ts.isBinaryExpression(parent) && /^(EqualsEqualsEquals|ExclamationEqualsEquals)Token$/.test(ts.SyntaxKind[parent.operatorToken.kind])
      const index = ts.isElementAccessExpression(parent) && parent.argumentExpression === node
      if (isLimit(node.text) && !compared && !index) report(node, node.text, "a number of its own: a limit belongs to the schemas or the Domain")
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return { findings, literals, unused: [...allowed.keys()].filter((literal) => !used.has(literal)) }
}

/** The findings of a page shell: a word a guest reads outside a `{{key}}` of the catalog. */
export const scanShell = (file: string, shell: string): ReadonlyArray<Finding> => {
  const findings: Array<Finding> = []
  // a `{{>piece.html}}` line is the shared piece of that name, scanned as a file of its own
  const html = shell.replace(/\{\{>[\w-]+\.html\}\}/g, "")
  const lineOf = (index: number) => html.slice(0, index).split("\n").length
  for (const match of html.matchAll(/>([^<]*)</g)) {
    const text = match[1]!.replace(/\{\{\w+\}\}/g, "")
    if (LETTER.test(text)) findings.push({ file, line: lineOf(match.index!), literal: text.trim(), why: "a guest-visible text of its own" })
  }
  for (const match of html.matchAll(/\s(aria-label|title|alt|placeholder)="([^"]*)"/g)) {
    if (LETTER.test(match[2]!.replace(/\{\{\w+\}\}/g, ""))) {
      findings.push({ file, line: lineOf(match.index!), literal: match[2]!, why: "a guest-visible attribute of its own" })
    }
  }
  return findings
}
