import { Data, Effect, FileSystem, Schema, SchemaIssue } from "effect"
import { HotelDefinition } from "../../Domain/Hotel.js"
import * as Tracing from "../Platform/Tracing.js"

export class HotelFileError extends Data.TaggedError("HotelFileError")<{ readonly message: string }> {}

const decode = Schema.decodeUnknownEffect(Schema.fromJsonString(HotelDefinition), { errors: "all" })

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const describe = (error: Schema.SchemaError): string =>
  formatIssues(error.issue).issues
    .map((issue) => `${issue.path !== undefined && issue.path.length > 0 ? issue.path.map(String).join(".") : "(file)"}: ${issue.message}`)
    .join("\n")

/** Reads and validates a hotel definition file; a refusal names the path of each bad field. */
export const readHotelFile = (file: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(file).pipe(
      Effect.mapError((error) => new HotelFileError({ message: `cannot read hotel file ${file}: ${error.message}` }))
    )
    return yield* decode(text).pipe(
      Effect.mapError((error) => new HotelFileError({ message: `invalid hotel file ${file}:\n${describe(error)}` }))
    )
  }).pipe(Tracing.withSpan("HotelFile.read", { attributes: { file } }))
