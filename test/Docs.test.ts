import { describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as path from "node:path"

// The README and docs/ against the repository (issue 41): a page that sends a reader to a section,
// a file or a name the code no longer has costs a newcomer more than no page. Pure Node, no database.

const ROOT = path.resolve(import.meta.dirname, "..")
const PAGES = ["README.md", ...fs.readdirSync(path.join(ROOT, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)]
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8")

/** A page's prose: fenced code blocks are examples (shell, JSON, the layout drawing), not references. */
export const prose = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, "")

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export const slug = (heading: string) =>
  heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-")

/** Every anchor a page has: its headings' (GitHub numbers a repeated one: `x`, `x-1`) and explicit ids. */
export const anchorsOf = (markdown: string): ReadonlySet<string> => {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = slug(heading!)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  for (const [, id] of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id!)
  return anchors
}

/** Relative links: `[text](target)`, web addresses aside. */
export const linksOf = (markdown: string): ReadonlyArray<string> =>
  [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target!).filter((target) => !/^[a-z]+:/i.test(target))

/** Where a link leads, or why it leads nowhere. */
export const brokenLink = (page: string, target: string, readPage: (file: string) => string | undefined): string | undefined => {
  const [file = "", anchor] = target.split("#")
  const resolved = file === "" ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURI(file)))
  if (resolved.startsWith("..")) return `${target}: outside the repository`
  const text = readPage(resolved)
  if (text === undefined) return `${target}: no such file`
  if (anchor !== undefined && resolved.endsWith(".md") && !anchorsOf(text).has(anchor)) return `${target}: no heading #${anchor} in ${resolved}`
  return undefined
}

/** The `code spans` of a page's prose. */
const spansOf = (markdown: string) => [...prose(markdown).matchAll(/`([^`\n]+)`/g)].map(([, span]) => span!)

const REPOSITORY_ROOTS = /^(src|test|bench|ops|public|data|docs|patches|\.ci)\//
const TOP_LEVEL_FILES = new Set(["package.json", "package-lock.json", "docker-compose.yml", "Dockerfile", ".dependency-cruiser.cjs", "tsconfig.json", "vitest.config.ts"])
/** A path written as a pattern (`src/Api/Contract/<Group>.ts`, `*Repo.ts`) names no one file. */
const isPattern = (span: string) => /[<>*…{}$\s]/.test(span)
const SOURCE_EXTENSIONS = /\.(ts|js|cjs|mjs|json|yml|yaml|html|css|md)$/

const filesUnder = (folder: string): ReadonlyArray<string> =>
  fs.readdirSync(path.join(ROOT, folder), { recursive: true, encoding: "utf8" }).map((file) => `${folder}/${file}`)
const REPOSITORY_FILES = ["src", "test", "public", "bench", "ops", "data"].flatMap(filesUnder)
const exists = (file: string) => fs.existsSync(path.join(ROOT, file))

/** A path a page names that the repository does not have. */
export const missingPath = (span: string): string | undefined => {
  if (isPattern(span)) return undefined
  const file = span.replace(/^\.\//, "")
  if (REPOSITORY_ROOTS.test(file) || TOP_LEVEL_FILES.has(file)) return exists(file.replace(/\/$/, "")) ? undefined : span
  // a path inside src written from its folder (`Domain/CancellationPolicy.ts`), or a file's bare name (`Tools.ts`)
  if (/^[A-Z][\w-]*(\/[\w.-]+)*\.\w+$/.test(file) && SOURCE_EXTENSIONS.test(file)) {
    return REPOSITORY_FILES.some((candidate) => candidate === file || candidate.endsWith(`/${file}`)) ? undefined : span
  }
  return undefined
}

const SOURCES = filesUnder("src").filter((file) => file.endsWith(".ts"))
/** Code without its comments: a name the code lost may live on in a comment, as the docs' did. */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|\s)\/\/.*$/gm, "$1")
const SOURCE_TEXT = new Map(SOURCES.map((file) => [file, withoutComments(read(file))]))
/** Names the code imports from packages (`Effect`, `Layer`, `Schema`…): the docs may name their members freely. */
const PACKAGE_NAMES = new Set(
  [...SOURCE_TEXT.values()].flatMap((text) =>
    [...text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"(?!\.)/g)].flatMap(([, names]) =>
      names!.split(",").map((name) => name.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop()!).filter(Boolean)
    )
  )
)
/** The files of src that export a name, or that are the module of that name (`Tracing.fn`: `import * as Tracing`). */
const declaringFiles = (name: string) =>
  SOURCES.filter((file) => path.basename(file) === `${name}.ts` || new RegExp(`export\\s+(?:declare\\s+)?(?:abstract\\s+)?(?:class|const|let|function|interface|type|namespace|enum)\\s+${name}\\b`).test(SOURCE_TEXT.get(file)!))
const mentions = (text: string, name: string) => new RegExp(`(^|[^\\w$])${name.replace(/\$/g, "\\$")}($|[^\\w$])`).test(text)

/**
 * A `Service.member` a page names (`Quotes.layer`, `HotelRepo.InMemory(hotel)`) that the code lacks:
 * the class or constant must be exported from src, and its file must still have the member.
 */
export const missingMember = (span: string): string | undefined => {
  const match = /^([A-Z][a-z]\w*)\.([A-Za-z_$][\w$]*)(\(.*\))?$/.exec(span)
  if (match === null) return undefined
  const [, owner, member] = match as unknown as [string, string, string]
  if (SOURCE_EXTENSIONS.test(`.${member}`) || PACKAGE_NAMES.has(owner)) return undefined
  const files = declaringFiles(owner)
  if (files.length === 0) return `${span}: no export ${owner} in src`
  return files.some((file) => mentions(SOURCE_TEXT.get(file)!, member)) ? undefined : `${span}: ${files.join(", ")} has no ${member}`
}

/** Names a page ties to a file: "`ROUTE_COSTS` in `src/…`", "`oneLine` and `guestLines` in `src/…`", "(`name`, `src/…`)". */
export const namesTiedToFiles = (markdown: string): ReadonlyArray<{ readonly name: string; readonly file: string }> => {
  const text = prose(markdown).replace(/\s+/g, " ")
  const ties: Array<{ name: string; file: string }> = []
  const ident = "`[A-Za-z_$][\\w$]*`"
  for (const [, names, file] of text.matchAll(new RegExp(`((?:${ident}(?:, | and | or ))*${ident}) in \`([^\`]+)\``, "g"))) {
    for (const [, name] of names!.matchAll(/`([^`]+)`/g)) ties.push({ name: name!, file: file! })
  }
  for (const [, name, file] of text.matchAll(new RegExp(`\\((${ident}), \`([^\`]+)\`\\)`, "g"))) ties.push({ name: name!.slice(1, -1), file: file! })
  return ties.filter(({ file }) => REPOSITORY_ROOTS.test(file) && !isPattern(file) && /\.\w+$/.test(file))
}

const missingTie = ({ file, name }: { readonly name: string; readonly file: string }) =>
  !exists(file) ? `${name} in ${file}: no such file` : mentions(withoutComments(read(file)), name) ? undefined : `${name}: not in ${file}`

const readPage = (file: string) => {
  if (!exists(file)) return undefined
  return fs.statSync(path.join(ROOT, file)).isDirectory() ? "" : read(file)
}

describe("the README and docs/", () => {
  it("the README stays a ten-minute read and keeps the project's own design notes", () => {
    expect(read("README.md").split("\n").length).toBeLessThanOrEqual(250)
    expect(PAGES).toContain("docs/decisions.md")
  })

  it.each(PAGES)("%s: every relative link leads to a file, and every #anchor to a heading", (page) => {
    const broken = linksOf(read(page)).map((target) => brokenLink(page, target, readPage)).filter((why) => why !== undefined)
    expect(broken).toEqual([])
  })

  it.each(PAGES)("%s: every file path it names exists", (page) => {
    expect(spansOf(read(page)).map(missingPath).filter((why) => why !== undefined)).toEqual([])
  })

  it.each(PAGES)("%s: every Service.member it names is still in the code", (page) => {
    expect(spansOf(read(page)).map(missingMember).filter((why) => why !== undefined)).toEqual([])
  })

  it.each(PAGES)("%s: every name it ties to a file is still in that file", (page) => {
    expect(namesTiedToFiles(read(page)).map(missingTie).filter((why) => why !== undefined)).toEqual([])
  })

  it("src and test point into docs/, at headings that exist", () => {
    const files = [...filesUnder("src"), ...filesUnder("test"), ...filesUnder("bench")]
      .filter((file) => /\.(ts|js|cjs)$/.test(file) && file !== "test/Docs.test.ts")
    const broken = files.flatMap((file) => {
      const text = read(file)
      const outside = /DESIGN §|shared\/DESIGN/.test(text) ? [`${file}: cites DESIGN, outside the repository`] : []
      const pointers = [...text.matchAll(/docs\/([\w-]+\.md)(?:#([\w-]+))?/g)].map(([, page, anchor]) =>
        brokenLink("docs/x.md", anchor === undefined ? page! : `${page}#${anchor}`, readPage)
      )
      return [...outside, ...pointers.filter((why) => why !== undefined).map((why) => `${file}: ${why}`)]
    })
    expect(broken).toEqual([])
  })
})

describe("the checks themselves catch rot", () => {
  const pages: Record<string, string> = { "docs/a.md": "# A\n\n## Where it goes\n\n## Where it goes\n", "README.md": "# R\n" }
  const readFake = (file: string) => pages[file]

  it("a link to a missing file, a missing heading or outside the repository", () => {
    expect(brokenLink("README.md", "docs/a.md#where-it-goes-1", readFake)).toBeUndefined()
    expect(brokenLink("README.md", "docs/b.md", readFake)).toContain("no such file")
    expect(brokenLink("README.md", "docs/a.md#where-it-went", readFake)).toContain("no heading")
    expect(brokenLink("docs/a.md", "../../shared/DESIGN.md", readFake)).toContain("outside")
    expect(anchorsOf("## What the code's choices saved (`src/`)\n")).toContain("what-the-codes-choices-saved-src")
  })

  it("a path, a member or a tied name the code no longer has", () => {
    expect(missingPath("src/Services/Quotes.ts")).toBeUndefined()
    expect(missingPath("src/Services/Quotations.ts")).toBe("src/Services/Quotations.ts")
    expect(missingPath("Domain/CancellationPolicy.ts")).toBeUndefined()
    expect(missingPath("Domain/CancelPolicy.ts")).toBe("Domain/CancelPolicy.ts")
    expect(missingPath("src/Api/Contract/<Group>.ts")).toBeUndefined()
    expect(missingMember("Quotes.layer")).toBeUndefined()
    expect(missingMember("Effect.fn")).toBeUndefined()
    expect(missingMember("Quotes.layerWithEverything")).toContain("has no layerWithEverything")
    expect(missingMember("Quotations.layer")).toContain("no export Quotations")
    const ties = namesTiedToFiles("`oneLine` and `guestLines` in `src/Domain/Text.ts`; (`nowhere`, `src/Domain/Text.ts`)")
    expect(ties.map(missingTie)).toEqual([undefined, undefined, "nowhere: not in src/Domain/Text.ts"])
  })
})
