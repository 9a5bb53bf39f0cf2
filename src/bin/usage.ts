// npm run usage -- --from DATE --to DATE [--format table|csv|json]: quotes, intents, completions,
// conversion and revenue per X-Hotel-Client and per X-AI-Agent, per day in the hotel's time zone,
// read from the stored quotes and reservations (DATABASE_URL, or the embedded one in DATA_DIR).
// Quotes are kept QUOTE_RETENTION_DAYS (30 by default): older days count no quotes.
import { Effect, Layer, References, Schema } from "effect"
import { LocalDate } from "../Domain/LocalDate.js"
import { formatUsage, UsageFormat } from "./UsageReport.js"
import { runEntry } from "../Layers/Platform/Entry.js"
import { HotelRepo } from "../Layers/Persistence/HotelRepo.js"
import { CommandDatabaseLive } from "../Layers/Persistence/Migrations.js"
import { UsageRepo } from "../Layers/Persistence/UsageRepo.js"

class UsageArguments extends Schema.TaggedError<UsageArguments>()("UsageArguments", { message: Schema.String }) {}

const USAGE = "usage: npm run usage -- --from YYYY-MM-DD --to YYYY-MM-DD [--format table|csv|json]"

/** `--name value` pairs. */
const options = (argv: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const found = new Map<string, string>()
    for (let i = 0; i < argv.length; i += 2) {
      const [name, value] = [argv[i]!, argv[i + 1]]
      if (!["--from", "--to", "--format"].includes(name) || value === undefined) {
        return yield* new UsageArguments({ message: `unexpected argument ${name}\n${USAGE}` })
      }
      found.set(name.slice(2), value)
    }
    const decode = <S extends Schema.Decoder<unknown>>(schema: S, name: string, fallback?: string) => {
      const value = found.get(name) ?? fallback
      return value === undefined
        ? new UsageArguments({ message: `--${name} is required\n${USAGE}` })
        : Schema.decodeUnknownEffect(schema)(value).pipe(Effect.mapError(() => new UsageArguments({ message: `--${name} ${value}: not valid\n${USAGE}` })))
    }
    const from = yield* decode(LocalDate, "from")
    const to = yield* decode(LocalDate, "to")
    if (to < from) return yield* new UsageArguments({ message: `--to ${to} is before --from ${from}` })
    return { from, to, format: yield* decode(UsageFormat, "format", "table") }
  })

const program = Effect.gen(function*() {
  const { format, from, to } = yield* options(process.argv.slice(2))
  const hotel = yield* (yield* HotelRepo).load
  const rows = yield* (yield* UsageRepo).report(from, to)
  process.stdout.write(formatUsage(rows, format, hotel.currency) + "\n")
})

runEntry(program.pipe(
  Effect.provide(Layer.merge(UsageRepo.layer, HotelRepo.layer).pipe(Layer.provideMerge(CommandDatabaseLive))),
  // the report alone on stdout, for a pipe; what happens on the way (migrations) on stderr
  Effect.provideService(References.LogToStderr, true)
))
