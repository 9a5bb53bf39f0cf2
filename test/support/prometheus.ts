/*
 * Prometheus's text exposition format (0.0.4), read as a scraper reads it: enough to check what
 * `/internal/metrics` serves, and strict, so a line a scraper would refuse fails the test.
 */

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Exposition {
  /** Each metric family's declared type, by the name its samples carry (a histogram's without `_bucket`…). */
  readonly types: ReadonlyMap<string, string>
  readonly samples: ReadonlyArray<Sample>
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*"
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`)
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y

const parseLabels = (text: string, line: string): Record<string, string> => {
  const labels: Record<string, string> = {}
  LABEL.lastIndex = 0
  while (LABEL.lastIndex < text.length) {
    const match = LABEL.exec(text)
    if (match === null) throw new Error(`bad labels in: ${line}`)
    if (match[1]! in labels) throw new Error(`label ${match[1]} twice in: ${line}`)
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c))
  }
  return labels
}

const parseValue = (text: string, line: string) => {
  const value = text === "+Inf" ? Infinity : text === "-Inf" ? -Infinity : Number(text)
  if (Number.isNaN(value) && text !== "NaN") throw new Error(`bad value in: ${line}`)
  return value
}

export const parsePrometheus = (text: string): Exposition => {
  const types = new Map<string, string>()
  const samples: Array<Sample> = []
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# HELP ")) continue
    if (line.startsWith("# TYPE ")) {
      const [name, type] = line.slice("# TYPE ".length).split(" ")
      if (name === undefined || type === undefined || types.has(name)) throw new Error(`bad or repeated TYPE: ${line}`)
      types.set(name, type)
      continue
    }
    const match = SAMPLE.exec(line)
    if (match === null) throw new Error(`not a sample: ${line}`)
    samples.push({ name: match[1]!, labels: parseLabels(match[2] ?? "", line), value: parseValue(match[3]!, line) })
  }
  return { types, samples }
}

/** The samples of `name` whose labels include `labels`. */
export const samplesOf = (exposition: Exposition, name: string, labels: Readonly<Record<string, string>> = {}) =>
  exposition.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))

/** The sum of the samples of `name` whose labels include `labels` (0 when none). */
export const valueOf = (exposition: Exposition, name: string, labels: Readonly<Record<string, string>> = {}) =>
  samplesOf(exposition, name, labels).reduce((sum, s) => sum + s.value, 0)
